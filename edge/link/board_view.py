"""What a board shows: classified frames as ``board_frame`` messages, and its LED commands.

``FrameView.update`` takes each frame with its ``Sighting`` and returns a ``BoardFrame``
when one is due: at most ``frames_per_s`` a second, and within ``min_gap_s`` when what
the board shows (rows, or stable or not) changes; otherwise ``None``. Rows follow
``schemas/board_frame``: ``X``/``O`` for stones, ``?`` for uncertain and masked points
(a sensor read implausibly), and for a stone whose colour the sensors cannot tell
(occupancy sensing), the colour the game has there, or ``?`` for a stone the game does
not have yet. ``stable`` means the rows have not changed for ``settle_s`` of board time
and nothing is uncertain. ``seq`` counts from the wall-clock milliseconds at start, so
it keeps growing across restarts.

``led_command`` turns the reconciler's ``LedPattern`` into the firmware's LED command:
a hint or the engine's point steady, captured stones still on the board blinking one
by one (at most 16, as many as fit in a 64-byte line), any other problem all LEDs
blinking together.
"""

from __future__ import annotations

import time
from typing import Sequence

from edge.sensing.classify import STONE, Frame, Sighting
from edge.reading.problems import CAPTURES_NOT_REMOVED
from edge.reading.led_pattern import LedPattern
from gobuddy.bus.message import now_ms
from gobuddy.bus.messages import BoardFrame
from gobuddy.go.coords import BLACK, EMPTY, WHITE, to_gtp

_CHARS = {EMPTY: ".", BLACK: "X", WHITE: "O"}
LED_BLINK_MAX = 16  # points in one LED BLINK command (PROTOCOL.md)


def frame_rows(sighting: Sighting, stones: Sequence[int] | None) -> tuple[str, ...]:
    """Rows for ``sighting``, colouring occupancy-only stones from ``stones`` (the game's)."""
    size = sighting.size
    chars = []
    for p, seen in enumerate(sighting.board):
        if seen == STONE:
            seen = stones[p] if stones is not None and stones[p] != EMPTY else None
        chars.append(_CHARS.get(seen, "?"))  # type: ignore[arg-type]
    for p in (*sighting.uncertain, *sighting.masked):  # a masked sensor shows nothing it can vouch for
        chars[p] = "?"
    return tuple("".join(chars[r * size:(r + 1) * size]) for r in range(size))


class FrameView:
    """Decides which frames of one board are published (see the module docstring)."""

    def __init__(self, board_id: str, frames_per_s: float, settle_s: float, min_gap_s: float = 0.1) -> None:
        self.board_id = board_id
        self.frames_per_s, self.settle_s, self.min_gap_s = frames_per_s, settle_s, min_gap_s
        self.seq = now_ms()
        self._rows: tuple[str, ...] = ()
        self._since = 0.0
        self._last: tuple[float, tuple[str, ...], bool] = (float("-inf"), (), False)

    def update(self, frame: Frame, sighting: Sighting, stones: Sequence[int] | None) -> BoardFrame | None:
        rows = frame_rows(sighting, stones)
        if rows != self._rows:
            self._rows, self._since = rows, frame.t
        stable = not sighting.uncertain and frame.t - self._since >= self.settle_s
        if self.frames_per_s <= 0:
            return None
        now = time.monotonic()
        last, last_rows, last_stable = self._last
        due = now - last >= 1.0 / self.frames_per_s
        changed = (rows, stable) != (last_rows, last_stable) and now - last >= self.min_gap_s
        if not (due or changed):
            return None
        self._last = (now, rows, stable)
        self.seq += 1
        return BoardFrame(board_id=self.board_id, seq=self.seq, size=sighting.size, rows=rows, stable=stable,
                          raw=tuple(int(v) for v in frame.readings))


def led_command(pattern: LedPattern, problem_kind: str | None, size: int) -> str:
    """The firmware command for an LED pattern on a ``size`` board (a problem other than
    captures still on the board blinks all LEDs); the points become GTP vertices here."""
    if pattern.mode == "steady" and pattern.points:
        return f"LED POINT {to_gtp(pattern.points[0], size)}"
    if pattern.mode == "all_blink" or (pattern.mode == "blink" and problem_kind not in (None, CAPTURES_NOT_REMOVED)):
        return "LED PROBLEM"
    if pattern.mode == "blink" and pattern.points:
        return blink_command([to_gtp(p, size) for p in pattern.points])
    return "LED OFF"


def blink_command(points: Sequence[str]) -> str:
    """``LED BLINK`` with the first of ``points`` (GTP) that fit: at most 16, and room
    left for the checksum in a 64-byte line. Not checked: that there is a point."""
    text = "LED BLINK"
    for point in points[:LED_BLINK_MAX]:
        if len(text) + 1 + len(point) + 5 > 64:
            break
        text += f" {point}"
    return text
