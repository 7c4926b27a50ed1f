"""How a board reads its stones, and where its calibration stands, from its retained status.

A board's presence (``schemas/status.schema.json``) carries ``calibrated``, ``sensing``
(``color``/``occupancy``), and while a calibration runs its step (``calibration``),
``calibration_message`` (what the board waits for) and ``calibration_problem`` (what
went wrong). ``board_sensing`` turns them into words for people. A board that says
nothing of its calibration (an older agent, a stand-in) reads as unknown ("—"), never
as uncalibrated ("none yet" is for a board that says it has no calibration). The step,
message and problem of an offline board are dropped: they were true when it went away,
and nobody is waiting at it now (a restarted agent calibrates from the start). Not
checked here: that the details are valid (the bus validated them on receipt).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

UNKNOWN = "—"
SENSING = {"color": "colour", "occupancy": "occupancy"}
STEPS = {"empty_board": "measuring the empty board", "black_stones": "black reference stones",
         "white_stones": "white reference stones", "clear_board": "clearing the board"}


@dataclass(frozen=True)
class BoardSensing:
    """One board: ``sensing`` (colour, occupancy, or ``UNKNOWN``), ``calibration`` (its
    state in words), and while it calibrates online the ``message`` saying what it waits
    for and the ``problem`` of a failed step (``None``: nothing to say)."""

    board_id: str
    online: bool
    sensing: str
    calibration: str
    message: str | None = None
    problem: str | None = None


def calibration_state(details: Mapping[str, Any], online: bool = True) -> str:
    """``calibrating: <step>`` (online only), ``calibrated``, ``not calibrated`` or ``UNKNOWN``."""
    step = details.get("calibration") if online else None
    if step:
        return f"calibrating: {STEPS.get(step, step)}"
    calibrated = details.get("calibrated")
    if calibrated is None:
        return UNKNOWN
    return "calibrated" if calibrated else "not calibrated"


def board_sensing(board_id: str, online: bool, details: Mapping[str, Any]) -> BoardSensing:
    """A board's sensing and calibration from its status ``details`` (see the module docstring)."""
    sensing = SENSING.get(details.get("sensing"), UNKNOWN)  # type: ignore[arg-type]
    if sensing == UNKNOWN and details.get("calibrated") is False:
        sensing = "none yet"
    said = details if online and details.get("calibration") else {}  # a step's words, while it runs
    return BoardSensing(board_id, online, sensing, calibration_state(details, online),
                        message=said.get("calibration_message") or None,
                        problem=said.get("calibration_problem") or None)
