"""From sightings to stable boards: a board counts once it has held still and clear.

``Stabiliser`` reports a board once its classes have held, with no uncertain point, for
``min_frames`` frames spanning ``settle_s`` seconds; a board that holds ``lasting_s``
without ever clearing is reported as unclear. Time comes only from the sightings'
timestamps, never from a clock, so replays are deterministic. Not done here: reading
frames (``edge.sensing.classify``), or what a stable board means for the game
(``edge.reading.reconcile``).
"""

from __future__ import annotations

from dataclasses import dataclass

from edge.sensing.classify import Sighting


@dataclass(frozen=True)
class StabilityConfig:
    """A board (the classes of all points) counts once it has held, with no uncertain
    point anywhere, for ``min_frames`` frames spanning ``settle_s`` seconds. A board
    that holds ``lasting_s`` without ever being clear is reported as unclear. A gap of
    more than ``max_gap_s`` between frames restarts the count (nobody saw what
    happened meanwhile); a lost frame or two (a sequence gap within that time) does
    not. A board that changes and comes back within ``glitch_frames`` frames (a glint
    turned a black stone white for a moment) resumes its count as if the frames of
    the excursion had not come."""

    min_frames: int = 5
    settle_s: float = 0.3
    lasting_s: float = 3.0
    max_gap_s: float = 0.25
    glitch_frames: int = 5


@dataclass(frozen=True)
class StableBoard:
    """A board that held still: ``board`` as in ``Sighting``, clear (no uncertain
    point) since ``since`` and reported at ``t``; or, with ``lasting`` set, a board that
    held ``lasting_s`` without becoming clear, with the points last seen ``uncertain``."""

    t: float
    since: float
    board: tuple[int, ...]
    uncertain: tuple[int, ...] = ()
    lasting: bool = False


class Stabiliser:
    """Turns a stream of sightings into the stable boards among them: each board once
    when it has held clear, or once as unclear when it held but never cleared (after
    which the next clear board is reported even if it was reported before). Not
    checked: that sightings come from one board."""

    def __init__(self, config: StabilityConfig = StabilityConfig()) -> None:
        self.config = config
        self.reset()

    def reset(self) -> None:
        """Forget the current run and what was last reported."""
        self._key: tuple[int, ...] | None = None
        self._since = 0.0
        self._count = 0
        self._clear_since: float | None = None
        self._clear_count = 0
        self._unclear: tuple[int, ...] = ()
        self._last_t: float | None = None
        self._reported: tuple[int, ...] | None = None
        self._lasting_done = False
        self._before: tuple | None = None  # the run an excursion interrupted

    def settled(self) -> bool:
        """True unless the board now differs from the one last reported (it is changing
        and has not settled yet). True before any sighting."""
        return self._key is None or self._key == self._reported

    def push(self, s: Sighting) -> StableBoard | None:
        """Add the next sighting; return a ``StableBoard`` when one is due, else ``None``.
        A ``blind`` sighting (a burst frame) is skipped: it neither counts nor restarts."""
        if s.blind:
            return None
        cfg = self.config
        gap = self._last_t is not None and (s.t - self._last_t > cfg.max_gap_s or s.t < self._last_t)
        self._last_t = s.t
        if gap:
            self._before = None
        elif self._before is not None and (s.board == self._before[0] or self._count >= cfg.glitch_frames):
            if s.board == self._before[0]:  # back from an excursion: resume the run it interrupted
                (self._key, self._since, self._count, self._lasting_done, self._clear_since,
                 self._clear_count) = self._before
            self._before = None
        if gap or s.board != self._key:
            if not gap and self._key is not None and self._before is None:
                self._before = (self._key, self._since, self._count, self._lasting_done, self._clear_since,
                                self._clear_count)
            self._key, self._since, self._count, self._lasting_done = s.board, s.t, 0, False
            self._clear_since, self._clear_count = None, 0
        self._count += 1
        if s.uncertain:
            self._clear_since, self._clear_count, self._unclear = None, 0, s.uncertain
        else:
            if self._clear_since is None:
                self._clear_since = s.t
            self._clear_count += 1
        if (self._key != self._reported and self._clear_since is not None
                and self._clear_count >= cfg.min_frames and s.t - self._clear_since >= cfg.settle_s):
            self._reported = self._key
            return StableBoard(s.t, self._clear_since, s.board)
        if (self._key != self._reported and not self._lasting_done and self._count >= cfg.min_frames
                and s.t - self._since >= cfg.lasting_s):
            self._lasting_done = True
            self._reported = None
            return StableBoard(s.t, self._since, s.board, self._unclear, lasting=True)
        return None
