"""Readings no stone, shadow or lamp can produce: transients to sit out, sensors that failed.

The classifier reads a point as ``reading / baseline / ambient`` (its *ratio*: 1 for an
empty point, lower under a stone or a shadow). ``SensorGate.check`` looks at each frame
before the classifier learns from it and sorts out what it must not learn from:

| what | test | the classifier then |
|---|---|---|
| a *burst* frame | ``burst_points`` or more points jump by ``burst_jump`` from their smoothed ratio at once (two frames of random readings; a hand shades at most ~13 points so deeply) | keeps every class and level as they were; the whole board is uncertain |
| an *implausible* point | at full scale (``adcmax - 1`` or more), a ratio above ``1 + bright`` (a glint: nothing is brighter than an empty point) or below ``dead`` (darker than a black stone under a hand: no light, a broken sensor) | keeps that point's class and level and *masks* it: the board is read without it (``edge.reading.reconcile``) until it has read plausibly for ``settle_frames`` frames |
| a *faulty* point | masked for ``fault_s`` on end (stuck at full scale, too bright, dead) | the same, reported in ``faults``; it must read plausibly for ``recover_frames`` frames to count again |

Nothing learnt from a transient, the board reads as before as soon as the light is
normal again, and no single sensor can keep the board from being read. Burst frames
in a row beyond ``burst_frames`` are taken as they come (the light did change that
much: a lamp switched unevenly). Counters: ``transients`` per point (implausible
episodes), ``bursts`` (burst frames), ``faults`` now (point -> ``stuck`` / ``bright``
/ ``dead``). Time comes from frame timestamps only.

Not checked here: a sensor stuck at a plausible value (it reads as a point that never
changes; ``edge.sensing.health`` shows such points by their noise of zero).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

STUCK, BRIGHT, DEAD = "stuck", "bright", "dead"
_KINDS = ("", STUCK, BRIGHT, DEAD)
FAULT_WORDS = {STUCK: "stuck at full scale", BRIGHT: "reads brighter than the empty board", DEAD: "reads no light"}


@dataclass(frozen=True)
class GateConfig:
    """Thresholds of ``SensorGate`` (see the module docstring); ratios are relative to
    the calibrated empty level and the ambient light, ``fault_s`` in board seconds."""

    bright: float = 0.2
    dead: float = 0.03
    burst_points: int = 20
    burst_jump: float = 0.3
    burst_frames: int = 4
    fault_s: float = 1.0
    settle_frames: int = 2
    recover_frames: int = 10
    adcmax: int = 1023


@dataclass(frozen=True)
class GateResult:
    """One frame's verdict: ``burst`` (learn nothing from it; every point but the masked
    ones uncertain), ``masked`` (points kept as they were and read around)."""

    burst: bool
    masked: np.ndarray


class SensorGate:
    """Per-point plausibility and faults of one board's ``n`` sensors."""

    def __init__(self, n: int, config: GateConfig = GateConfig()) -> None:
        self.n = n
        self.config = config
        self.transients = np.zeros(n, dtype=np.int64)
        self.bursts = 0
        self.reset()

    def reset(self) -> None:
        """Forget episodes and faults (counters stay)."""
        self._since = np.full(self.n, np.nan)  # board time the current masked episode began
        self._good = np.zeros(self.n, dtype=np.int32)  # plausible frames in a row
        self._masked = np.zeros(self.n, dtype=bool)
        self._failed = np.zeros(self.n, dtype=bool)
        self._kind = np.zeros(self.n, dtype=np.int8)  # index into _KINDS
        self._burst_run = 0

    @property
    def faults(self) -> dict[int, str]:
        """Faulty points now: flat point -> ``stuck``, ``bright`` or ``dead``."""
        return {int(p): _KINDS[self._kind[p]] for p in np.flatnonzero(self._failed)}

    def saturated(self, raw: np.ndarray) -> np.ndarray:
        """Points at full scale (no ratio can be trusted there)."""
        return raw >= self.config.adcmax - 1

    def check(self, t: float, raw: np.ndarray, r: np.ndarray, smooth: np.ndarray | None) -> GateResult:
        """Judge one frame: ``raw`` readings, ``r`` ratios, ``smooth`` the classifier's
        smoothed ratios before this frame (``None`` on the first frame)."""
        cfg = self.config
        sat = self.saturated(raw)
        bright = ~sat & (r > 1.0 + cfg.bright)
        dead = r < cfg.dead
        odd = sat | bright | dead
        if smooth is not None:
            jumped = int(np.count_nonzero(np.abs(r - smooth) > cfg.burst_jump))
            if jumped >= cfg.burst_points and self._burst_run < cfg.burst_frames:
                self._burst_run += 1
                self.bursts += 1
                return GateResult(True, self._masked.copy())
        self._burst_run = 0
        starting = odd & ~self._masked
        self.transients += starting
        self._since = np.where(starting, t, self._since)
        self._good = np.where(odd, 0, self._good + 1)
        failed = self._masked & odd & (t - self._since >= cfg.fault_s)
        kind = np.where(sat, 1, np.where(bright, 2, 3)).astype(np.int8)
        self._kind = np.where(failed, kind, self._kind)
        self._failed |= failed
        needed = np.where(self._failed, cfg.recover_frames, cfg.settle_frames)
        over = self._masked & ~odd & (self._good >= needed)
        self._masked = (self._masked | odd) & ~over
        self._failed &= self._masked
        self._since = np.where(self._masked, self._since, np.nan)
        return GateResult(False, self._masked.copy())
