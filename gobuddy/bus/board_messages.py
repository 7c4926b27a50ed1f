"""Typed messages a board publishes about itself: frames, button presses, retained state.

Field meanings are the schemas' (``schemas/board_frame``, ``button_event``,
``board_state``); vertices are GTP strings, colours ``"B"``/``"W"``. Game events are in
``game_events``. Nothing here knows the rules of Go.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from gobuddy.bus.message import Message, now_ms

Move = tuple[str, str]  # (colour, vertex or "pass")


@dataclass(frozen=True, kw_only=True)
class BoardFrame(Message):
    """One classified sensor frame; ``rows[0]`` is the top row ('.', 'X', 'O', '?')."""

    KIND = "board_frame"
    board_id: str
    seq: int
    size: int
    rows: tuple[str, ...]
    stable: bool
    raw: tuple[int, ...] | None = None
    ts: int = field(default_factory=now_ms)


@dataclass(frozen=True, kw_only=True)
class ButtonEvent(Message):
    """A button press: ``button`` in hint/pass/undo/new_game/end_game/mode, ``press`` short/long."""

    KIND = "button_event"
    board_id: str
    seq: int
    button: str
    press: str = "short"
    ts: int = field(default_factory=now_ms)


@dataclass(frozen=True)
class Problem:
    """A named problem with the physical board (see ``problem_kind`` in the schemas)."""

    kind: str
    points: tuple[str, ...] = ()
    message: str = ""


@dataclass(frozen=True, kw_only=True)
class BoardState(Message):
    """The current game on a board (retained). ``move_number == len(moves)``."""

    KIND = "board_state"
    board_id: str
    status: str = "idle"
    game_id: str | None = None
    seq: int | None = None
    size: int = 9
    komi: float = 7.0
    rules: str = "chinese"
    mode: str | None = None
    handicap: int = 0
    setup: tuple[Move, ...] = ()
    moves: tuple[Move, ...] = ()
    move_number: int = 0
    to_play: str = "B"
    captures: dict[str, int] = field(default_factory=lambda: {"B": 0, "W": 0})
    problem: Problem | None = None
    result: str | None = None
    ts: int = field(default_factory=now_ms)


@dataclass(frozen=True, kw_only=True)
class BoardCommand(Message):
    """A person asks a board to do something: ``command`` recalibrate, set_teaching
    with ``level`` (a learner's level, or ``None``: no teacher), or set_players with
    ``players`` (``{"B": name or None, "W": name or None}``: who plays the next games,
    ``None`` a guest); ``by`` who asked."""

    KIND = "board_command"
    board_id: str
    command: str
    by: str
    level: str | None = None
    players: dict[str, str | None] | None = None
    ts: int = field(default_factory=now_ms)
