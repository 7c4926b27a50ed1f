"""From raw sensor frames to classified boards.

What the board sends is a ``Frame``: a timestamp, 81 raw readings (0..1023, row-major
from the top-left intersection, A9 on 9x9) and the firmware's sequence number; button
presses arrive as ``ButtonPress`` (from the serial link or the simulator, in time order).

``Classifier`` turns a frame into a ``Sighting``: per point ``EMPTY``, ``BLACK``,
``WHITE`` (colour sensing) or ``STONE`` (occupancy sensing: a stone of unknown colour),
plus the points whose reading lies too close to a threshold to be sure (*uncertain*).
It works on ``reading / baseline / ambient`` where ``ambient`` tracks the light level
relative to calibration, mainly from the points it last saw empty (which read 1).
Each point keeps its class until its ratio crosses the threshold by the hysteresis
margin; the same margin either side of a threshold is the uncertain band, and a point
reading noticeably darker than its own settled level (shaded by a hand) is uncertain
too (see ``ClassifierConfig``).

Transients are sat out, not learnt from (``edge.sensing.faults``): a burst frame leaves
every point as it was (all uncertain); a glint or a dead reading leaves that point as
it was and *masks* it: it keeps its class, is not uncertain, and is listed in
``Sighting.masked`` so that the board is read without it (a sensor that stays so is
reported faulty). So the board reads as before the moment the light is normal again.

Stable boards come from ``edge.sensing.stability``; what they mean for the game from
``edge.reading.reconcile``. Time comes only from the frames' timestamps.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import isqrt
from typing import Sequence, Union

import numpy as np

from edge.calibration.levels import Calibration
from edge.sensing.faults import GateConfig, SensorGate
from gobuddy.go.coords import BLACK, EMPTY, WHITE

STONE = 2  # occupancy sensing: a stone whose colour the sensor cannot tell

_ROW_CHARS = {EMPTY: ".", BLACK: "X", WHITE: "O", STONE: "#"}


@dataclass(frozen=True)
class Frame:
    """One scan of the board: ``t`` seconds (any monotonic origin), raw ``readings``
    row-major from the top left, and the firmware's ``seq`` (``None`` if unknown)."""

    t: float
    readings: Sequence[int]
    seq: int | None = None


@dataclass(frozen=True)
class ButtonPress:
    """A board button pressed at ``t``: ``"pass"``, ``"undo"``, ``"hint"``, ... (the
    names of ``schemas/button_event.schema.json``)."""

    t: float
    button: str


BoardInput = Union[Frame, ButtonPress]


@dataclass(frozen=True)
class Sighting:
    """A classified frame: ``board`` per flat point (``EMPTY``/``BLACK``/``WHITE``/``STONE``),
    the ``uncertain`` points and the ``masked`` ones (sensors read implausibly: their
    class is the last one read, not what lies there now), sorted flat indices, at time
    ``t``. ``blind``: a burst frame, which says nothing of the board (every point but
    the masked ones uncertain); stability counts skip it."""

    t: float
    board: tuple[int, ...]
    uncertain: tuple[int, ...] = ()
    seq: int | None = None
    masked: tuple[int, ...] = ()
    blind: bool = False

    @property
    def size(self) -> int:
        return isqrt(len(self.board))

    def rows(self) -> list[str]:
        """Top row first: ``.`` empty, ``X`` black, ``O`` white, ``#`` a stone of unknown
        colour, ``?`` uncertain, ``!`` masked (the ``board_frame`` message's rows, plus
        ``#`` and ``!``)."""
        size = self.size
        chars = [_ROW_CHARS[v] for v in self.board]
        for p in self.uncertain:
            chars[p] = "?"
        for p in self.masked:
            chars[p] = "!"
        return ["".join(chars[r * size:(r + 1) * size]) for r in range(size)]


@dataclass(frozen=True)
class ClassifierConfig:
    """``colour_threshold_at``: where the black/white threshold sits between the two
    levels (0.5 would be midway): light leaking past a stone set off-centre only ever
    raises its reading, which spreads dark black readings up towards white, so the
    threshold sits above the middle. The empty/stone threshold is midway: shadows
    darken empty points, and a lower threshold keeps them out of the stone classes.
    ``hysteresis``: margin either side of the empty/stone threshold, as a fraction of
    the gap between the two levels; ``colour_hysteresis`` the same for the
    black/white threshold (narrower: stones set off-centre read lighter, and shaded
    white stones are caught by the shade test below). In the black/white band only a
    stone new for less than ``colour_settle_frames`` frames, or a settled one read on
    the other colour's side, is uncertain: a black stone set off-centre may sit near
    the threshold for good. A settled
    white stone that turns black without the point reading empty in between stays
    uncertain until it settles as black (a hand's shadow turns white stones black; a
    real swap of stones shows the empty point while the stone is in the hand).

    Shade: a point reading darker than its own settled level by more than ``shade`` of
    that level, and at least ``shade_min``, is *shaded* (a hand is over it) and
    uncertain; so is an empty point without a settled level yet that reads ``shade``
    below the ambient. A hand's shadow darkens a patch of points, stones included; a
    stone darkens one point; so a "new stone" whose neighbours went dim is not trusted.
    The shade test reads a smoothed ratio (weight ``smoothing`` per frame) so that the
    small drop of a shaded black stone stands out of the noise. A point's level is
    the reading itself until the point has kept its class ``settle_frames`` frames;
    from then on it is checked, and follows the reading up quickly (``rise_rate`` per
    frame), down at ``fall_rate``, and down only at ``shaded_fall_rate`` while shaded,
    so a hand held still is noticed for seconds but a level learned from a bad moment
    cannot stay wrong for ever.

    Ambient light: the first frame's 90th percentile ratio, then, per frame with weight
    ``ambient_rate`` (0.1 at 25 Hz follows a change in about half a second), the median
    ratio of the points empty and certain in the previous frame (empty reads 1 by
    definition); with fewer than ``min_empty`` of those (a hand over the few empty
    points late in a game, or the light changed so much that all read dim), the median
    of reading over settled level of all settled points (``min_steady`` at least: a
    hand shades some of them, a change of light all); else the estimate stays. When
    both medians agree on a change of more than ``jump`` at once (a lamp switched),
    the estimate takes it in one step: otherwise every empty point would cross into a
    "stone" before the estimate caught up, and lose the settled level it is judged by;
    so it does when at least ``uniform`` of the points changed by the same factor
    (within ``jump / 2``) since the last frame (a flash, its end).
    Points at full scale, held or masked (``gate``) take no part in the estimate.

    A gap: frames more than ``gap_s`` apart (a reboot, the link down). Nobody saw the
    board meanwhile, so the first frame after it is read as the board is now, not as a
    change from the frame before: no stone counts as *turned* across it (whether the
    point went empty in between is unknown; a stone that turned before it is read as
    it reads now), and the frames missed count as frames read as the first one after
    it, for the points whose class held: their ages grow by that many frames and their
    settled levels move towards that reading as far as that many frames move them (a
    hand that came before the gap has been there that long; a reader that missed the
    gap reads as one that saw it all). A point whose class changed across the gap
    starts afresh (age 0, its level the reading)."""

    colour_threshold_at: float = 0.55
    hysteresis: float = 0.12
    colour_hysteresis: float = 0.06
    colour_settle_frames: int = 15
    shade: float = 0.07
    shade_min: float = 0.03
    smoothing: float = 0.5
    settle_frames: int = 50
    rise_rate: float = 0.2
    rise_window: int = 6
    empty_cap: float = 0.04
    fall_rate: float = 0.05
    shaded_fall_rate: float = 0.01
    ambient_rate: float = 0.1
    jump: float = 0.1
    min_empty: int = 4
    min_steady: int = 10
    uniform: float = 0.7
    sure_frames: int = 5
    gap_s: float = 0.25
    gate: GateConfig = GateConfig()


class Classifier:
    """Stateful reader of one board's frames (hysteresis and ambient need the past).

    Thresholds sit between levels: empty (1.0) and white, white and black (see
    ``colour_threshold_at``) in colour sensing; empty and ``stone_level`` in occupancy
    sensing. Not checked: that the calibration belongs to this board."""

    def __init__(self, calibration: Calibration, config: ClassifierConfig = ClassifierConfig()) -> None:
        self.calibration = calibration
        self.config = config
        self.colour_sensing = calibration.colour_sensing
        self._base = np.asarray(calibration.baseline, dtype=float)
        hf = config.hysteresis
        if self.colour_sensing:
            b, w = calibration.black_level, calibration.white_level
            assert b is not None and w is not None
            self._t_occ, self._h_occ = (1.0 + w) / 2, hf * (1.0 - w)
            self._t_col = b + config.colour_threshold_at * (w - b)
            self._h_col = config.colour_hysteresis * (w - b)
        else:
            s = calibration.stone_level
            self._t_occ, self._h_occ = (1.0 + s) / 2, hf * (1.0 - s)
            self._t_col = self._h_col = 0.0
        self.reset()

    def reset(self) -> None:
        """Forget the past (after a recalibration or a long interruption)."""
        n = self._base.shape
        self._state: np.ndarray | None = None
        self._clear = np.zeros(n, dtype=bool)  # empty and certain last frame
        self._steady = np.zeros(n, dtype=bool)  # settled in their class last frame
        self._turned = np.zeros(n, dtype=bool)  # went from white to black directly
        self._reference = np.ones_like(self._base)
        self._smooth: np.ndarray | None = None
        self._recent: list[np.ndarray] = []  # the last rise_window smoothed ratios
        self._age = np.zeros(n, dtype=np.int32)
        self._frozen = np.zeros(n, dtype=bool)  # masked last frame
        self._sure = np.zeros(n, dtype=np.int8)  # each point's class when last read surely (see _held)
        self._certain = np.zeros(n, dtype=np.int32)  # frames on end read certain in the same class
        self.ambient = 1.0
        self.gate = SensorGate(self._base.size, self.config.gate)
        self.ratio = np.ones_like(self._base)  # the last frame's ratios (for sensor health)
        self._last_t: float | None = None
        self._interval = 0.04  # seconds between frames, smoothed (what a gap missed)

    @property
    def levels(self) -> np.ndarray:
        """Each point's settled level (ratio), as the shade test knows it."""
        return self._reference.copy()

    @property
    def settled(self) -> np.ndarray:
        """Points that kept their class ``settle_frames`` frames (their level is checked)."""
        return self._steady.copy()

    def _track_ambient(self, r0: np.ndarray, saturated: np.ndarray) -> None:
        cfg, a = self.config, self.ambient
        if self._smooth is not None and np.count_nonzero(~saturated) >= cfg.min_steady:
            change = r0[~saturated] / (a * self._smooth[~saturated])  # each point against its own last level
            factor = float(np.median(change))
            if abs(factor - 1) > cfg.jump and np.mean(np.abs(change / factor - 1) < cfg.jump / 2) >= cfg.uniform:
                self.ambient = a * factor  # the light changed at once, everywhere: follow at once
                return
        skip = saturated | self._frozen
        clear, steady = self._clear & ~skip, self._steady & ~skip
        empties = float(np.median(r0[clear])) if clear.sum() >= cfg.min_empty else None
        settled = (float(np.median(r0[steady] / self._reference[steady]))
                   if steady.sum() >= cfg.min_steady else None)
        if (empties is not None and settled is not None and abs(empties / a - 1) > cfg.jump
                and abs(settled / empties - 1) < cfg.jump / 2):
            self.ambient = empties  # the light changed at once, everywhere: follow at once
        elif empties is not None:
            self.ambient = a + cfg.ambient_rate * (empties - a)
        elif settled is not None:
            self.ambient = a + cfg.ambient_rate * (settled - a)

    def ratios(self, readings: Sequence[int]) -> np.ndarray:
        """Readings relative to the baseline and the current ambient estimate."""
        return np.asarray(readings, dtype=float) / self._base / self.ambient

    def classify(self, frame: Frame) -> Sighting:
        """Classify one frame (in time order) and update the ambient estimate."""
        raw = np.asarray(frame.readings, dtype=float)
        if raw.shape != self._base.shape:
            raise ValueError(f"a frame has {raw.size} readings, expected {self._base.size}")
        r0 = raw / self._base
        state = self._state
        cfg = self.config
        missed = self._missed(frame.t)
        ambient = self.ambient
        saturated = self.gate.saturated(raw)
        if state is None:
            usable = r0[~saturated]
            self.ambient = float(np.quantile(usable if usable.size else r0, 0.9))
        else:
            self._track_ambient(r0, saturated)
        r = r0 / self.ambient
        verdict = self.gate.check(frame.t, raw, r, self._smooth)
        masked = tuple(np.flatnonzero(verdict.masked).tolist())
        if verdict.burst and state is not None:
            self.ambient = ambient  # learn nothing from a burst
            uncertain = tuple(np.flatnonzero(~verdict.masked).tolist())
            return Sighting(frame.t, tuple(state.tolist()), uncertain, frame.seq, masked, blind=True)
        self.ratio = r
        frozen = verdict.masked if state is not None else np.zeros(r.shape, dtype=bool)
        t_occ, h_occ = self._t_occ, self._h_occ
        if state is None:
            occupied = r < t_occ
        else:
            occupied = r < np.where(state == EMPTY, t_occ - h_occ, t_occ + h_occ)
        uncertain = np.abs(r - t_occ) < h_occ
        if self.colour_sensing:
            t_col, h_col = self._t_col, self._h_col
            was_settled = self._age >= cfg.settle_frames
            if state is None:
                black = r < t_col
            else:
                black = r < np.where(state == WHITE, t_col - h_col,
                                     np.where(state == BLACK, t_col + h_col, t_col))
            new = np.where(occupied, np.where(black, BLACK, WHITE), EMPTY).astype(np.int8)
        else:
            new = np.where(occupied, STONE, EMPTY).astype(np.int8)
        if state is not None:
            new = np.where(frozen, self._held(state), new).astype(np.int8)
        shaded, settled = self._shaded(r, new, frozen, missed)
        if self.colour_sensing:
            # The colour is in doubt for a new stone reading near the threshold, or for a
            # settled one whose reading has crossed to the other colour's side; and for a
            # settled white stone that turned black without the point reading empty in
            # between (a shadow: a swap of stones shows the empty point).
            crossed = np.where(new == BLACK, r > t_col, r < t_col)
            young = self._age < cfg.colour_settle_frames
            uncertain |= occupied & (np.abs(r - t_col) < h_col) & (young | (settled & crossed))
            if state is not None and missed:  # nobody saw the points in between: no turn is known
                self._turned = np.zeros(r.shape, dtype=bool)
            elif state is not None:
                turned = was_settled & (state == WHITE) & (new == BLACK)
                self._turned = np.where(new != state, turned, self._turned)
            uncertain |= self._turned & ~settled
        uncertain = (uncertain | shaded) & ~frozen
        certain = ~uncertain & ~frozen & ~_near(uncertain)  # a hand's shadow leaves some point near it unsure
        kept = certain & (new == state) if state is not None else certain
        self._certain = np.where(kept, self._certain + 1, np.where(certain, 1, 0)).astype(np.int32)
        sure = self._certain >= cfg.sure_frames
        self._sure = np.where(sure, new, self._sure).astype(np.int8)
        self._state = new
        self._frozen = frozen
        self._clear = (new == EMPTY) & ~uncertain & ~frozen
        self._steady = settled & ~frozen
        return Sighting(frame.t, tuple(new.tolist()), tuple(np.flatnonzero(uncertain).tolist()), frame.seq, masked)

    def _missed(self, t: float) -> int:
        """Frames missed before a frame at ``t`` (0 unless it ends a gap of more than
        ``gap_s``); learns the usual interval between frames."""
        last, self._last_t = self._last_t, t
        if last is None or t <= last:
            return 0
        dt = t - last
        if dt <= self.config.gap_s:
            self._interval += 0.05 * (min(dt, 4 * self._interval) - self._interval)
            return 0
        return max(1, round(dt / self._interval) - 1)

    def _held(self, state: np.ndarray) -> np.ndarray:
        """The class a masked point keeps: the last one it was read with certainty, with no
        point next to it uncertain, for ``sure_frames`` frames on end (a hand's shadow may
        have made it read as a stone the moment before, and a hand held still reads as
        a stone; its shadow's edge leaves points next to it unsure)."""
        return np.where(self._frozen, state, self._sure)

    def _shaded(self, r: np.ndarray, new: np.ndarray, frozen: np.ndarray,
                missed: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """(shaded, settled): points darker than their settled level (or, for young empty
        points, than the ambient), and points settled in their class; updates the
        settled levels, except those of ``frozen`` points, which stay as they were.
        ``missed``: frames a gap missed, counted as frames read as this one."""
        cfg = self.config
        same = new == self._state if self._state is not None else np.zeros(new.shape, dtype=bool)
        smooth = r if self._smooth is None else self._smooth + cfg.smoothing * (r - self._smooth)
        smooth = np.where(same, smooth, r)
        age = np.where(same, self._age + 1 + missed, 0)
        ref = self._reference
        settled = age >= cfg.settle_frames
        shaded = np.where(settled, smooth < ref - np.maximum(cfg.shade * ref, cfg.shade_min),
                          (new == EMPTY) & (smooth < 1.0 - cfg.shade))
        kept = self._recent[max(0, len(self._recent) + 1 - cfg.rise_window):]
        recent = [np.where(same, old, smooth) for old in kept] + [smooth]
        floor = np.min(recent, axis=0)
        rate = np.where(smooth > ref, cfg.rise_rate, np.where(shaded, cfg.shaded_fall_rate, cfg.fall_rate))
        target = np.where(smooth > ref, np.maximum(ref, floor), smooth)
        if missed:
            rate = 1.0 - (1.0 - rate) ** (1 + missed)
        level = ref + rate * (target - ref)
        level = np.where(new == EMPTY, np.minimum(level, 1.0 + cfg.empty_cap), level)
        reference = np.where(settled, level, smooth)
        if self._smooth is not None and frozen.any():  # a transient: these points stay as they were
            smooth = np.where(frozen, self._smooth, smooth)
            age = np.where(frozen, self._age, age)
            reference = np.where(frozen, ref, reference)
            recent[-1] = smooth
        self._reference, self._smooth, self._age, self._recent = reference, smooth, age, recent
        return shaded & ~frozen, settled


def _near(points: np.ndarray) -> np.ndarray:
    """Points next to (or diagonally next to) any of ``points`` (a flat square board)."""
    size = isqrt(points.size)
    grid = np.pad(points.reshape(size, size), 1)
    out = np.zeros((size, size), dtype=bool)
    for dr in (0, 1, 2):
        for dc in (0, 1, 2):
            if dr != 1 or dc != 1:
                out |= grid[dr:dr + size, dc:dc + size]
    return out.reshape(-1)
