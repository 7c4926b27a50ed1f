"""What the reconciler remembers of each point between sightings: when it changed, what masks hide.

``PointMemory`` follows the classified frames (``edge.sensing.classify.Sighting``) for
``edge.reading.reconcile``:

| what | for |
|---|---|
| ``since``: per point, when it last turned empty or occupied | the order of stones the board showed together (``edge.reading.unseen_moves.moves_in_order``) |
| ``masked``, ``masked_at``: the points read around now (``Sighting.masked``), since when | how long a difference waits for a glint to end |
| ``base``: what the game had at a masked point when it was masked, ``None`` once the game changed there | ``read``: a masked point reads as last seen until the game changes there, then as the game has it |
| ``gap_end``: the first frame after the latest gap in the frames | whether nobody saw the board after a capture |

A stone seen as its point unmasks may have come any time since the point was masked,
so its ``since`` is the time of masking. A point where the game changed while it was
masked reads as the game has it from then on, even if the game changes back (a stone
captured on a dead sensor and played again there). Pure bookkeeping: no rules here.
"""

from __future__ import annotations

from typing import Sequence

from edge.sensing.classify import Sighting
from edge.reading.unseen_moves import read_around
from gobuddy.go.coords import EMPTY


class PointMemory:
    """Per-point memory of one board's sightings (see the module docstring)."""

    def __init__(self) -> None:
        self.masked: frozenset[int] = frozenset()
        self.base: dict[int, int | None] = {}
        self.masked_at: dict[int, float] = {}
        self.since: list[float] = []
        self.gap_end: float | None = None
        self._classes: tuple[int, ...] = ()

    def update(self, sighting: Sighting, game_board: Sequence[int], gap: bool) -> dict[int, float]:
        """Take in one sighting (``gap``: frames stopped before it); the points unmasked
        by it, with when they had been masked."""
        if gap:
            self.gap_end = sighting.t
        self.masked = frozenset(sighting.masked)
        self.base = {p: self.base.get(p, game_board[p]) for p in self.masked}
        self.note_changes(game_board)
        unmasked = {p: t for p, t in self.masked_at.items() if p not in self.masked}
        self.masked_at = {p: self.masked_at.get(p, sighting.t) for p in self.masked}
        if len(self.since) != len(sighting.board):
            self.since = [sighting.t] * len(sighting.board)
        elif not sighting.blind:
            for p, (old, new) in enumerate(zip(self._classes, sighting.board)):
                if (old == EMPTY) != (new == EMPTY):  # a shadow may turn a white stone black: no matter
                    self.since[p] = unmasked.get(p, sighting.t)
        if not sighting.blind:
            self._classes = sighting.board
        return unmasked

    def note_changes(self, game_board: Sequence[int]) -> None:
        """Mark the masked points where the game changed since they were masked."""
        for p, base in self.base.items():
            if base is not None and game_board[p] != base:
                self.base[p] = None

    def read(self, raw: tuple[int, ...], game_board: Sequence[int]) -> tuple[int, ...]:
        """``raw`` classes with the masked points read around (see the module docstring)."""
        self.note_changes(game_board)
        return read_around(raw, game_board, self.masked, self.base)

    def mask_aged(self, before: float, now: float, wait_s: float) -> bool:
        """True if a mask turned ``wait_s`` old between ``before`` and ``now``."""
        return any(before < t + wait_s <= now for t in self.masked_at.values())

    def recent_empty_mask(self, now: float, wait_s: float, game_board: Sequence[int]) -> bool:
        """True if a point the game has empty was masked less than ``wait_s`` ago (a glint
        may hide a stone there)."""
        return any(now - t < wait_s and game_board[p] == EMPTY for p, t in self.masked_at.items())
