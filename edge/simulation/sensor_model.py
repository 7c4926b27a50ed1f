"""A physical model of the board's light sensors: what each LDR reads, for the simulator.

For a point ``p`` at time ``t``::

    reading = dark[p] + gain[p] * ambient(t) * shadow(p, t) * transmission(p) + noise

| term            | model                                                                   |
|-----------------|-------------------------------------------------------------------------|
| ``gain[p]``     | ``base`` counts, log-normal spread per point, times a lamp tilt (one    |
|                 | side of the board brighter): the empty board is far from uniform        |
| ``dark[p]``     | a few counts even in the dark                                           |
| ``ambient(t)``  | 1 at calibration time, drifting slowly (two slow sines, +-``drift``)    |
| ``shadow``      | 1, or less under a hand: a soft-edged disc of ``radius`` points taking  |
|                 | up to ``depth`` of the light at its centre (``Hand``, ``shadow``)       |
| transmission    | 1 for an empty point; for a stone, its colour's level (black 0.20,      |
|                 | white 0.55: white stones are translucent and reflect light back down)   |
|                 | varied per stone, plus light leaking past a stone set off-centre:       |
|                 | ``t * (1 - leak) + leak`` with ``leak`` up to ``max_leak``              |
| noise           | Gaussian, ``noise_counts`` plus ``noise_fraction`` of the signal        |

Readings are rounded and clipped to 0..1023. The classifier divides by a calibrated
baseline (``dark + gain`` at ambient 1), so gain and tilt cancel, drift is tracked, and
what is left to tell apart are the three levels with the leak, spread and noise.
Not modelled: LDR lag (the firmware averages scans anyway), light from LEDs, and the
non-linear response of a real LDR divider (calibrated levels absorb it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gobuddy.go.coords import BLACK, WHITE, check_size


@dataclass(frozen=True)
class SensorModelConfig:
    size: int = 9
    base: float = 520.0
    gain_spread: float = 0.12
    lamp_tilt: float = 0.15
    dark: float = 6.0
    black: float = 0.20
    white: float = 0.55
    stone_spread: float = 0.02
    max_leak: float = 0.12
    noise_counts: float = 2.5
    noise_fraction: float = 0.01
    drift: float = 0.10
    drift_period_s: float = 300.0
    full_scale: int = 1023


@dataclass(frozen=True)
class Hand:
    """A hand over the board: its centre at (``x`` column, ``y`` row) in points from the
    top-left intersection (may lie off the board), its shadow's ``radius`` in points,
    and ``depth``, the share of light it takes at its centre (0..1)."""

    x: float
    y: float
    radius: float
    depth: float


class SensorModel:
    """The sensors of one simulated board; ``seed`` fixes gains, drift and noise."""

    SOFTNESS = 0.35  # width of a shadow's soft edge, in points

    def __init__(self, config: SensorModelConfig = SensorModelConfig(), seed: int = 0) -> None:
        self.config = config
        self.size = check_size(config.size)
        self.n = self.size * self.size
        self.rng = np.random.default_rng(seed)
        rng, size = self.rng, self.size
        rows, cols = np.divmod(np.arange(self.n), size)
        self._xs, self._ys = cols.astype(float), rows.astype(float)
        angle = rng.uniform(0, 2 * math.pi)
        tilt = config.lamp_tilt * (np.cos(angle) * (cols / (size - 1) - 0.5)
                                   + np.sin(angle) * (rows / (size - 1) - 0.5)) * 2
        self.gain = config.base * np.exp(rng.normal(0.0, config.gain_spread, self.n)) * (1 + tilt)
        self.dark = rng.uniform(0.5, 1.5, self.n) * config.dark
        self._phase = rng.uniform(0, 2 * math.pi, 2)

    def baseline(self) -> np.ndarray:
        """The noiseless empty-board reading at ambient 1 (what calibration measures)."""
        return self.dark + self.gain

    def ambient(self, t: float) -> float:
        """Ambient light relative to calibration time."""
        c = self.config
        w = 2 * math.pi / c.drift_period_s
        return 1.0 + c.drift * (0.7 * math.sin(w * t + self._phase[0])
                                + 0.3 * math.sin(2.7 * w * t + self._phase[1]))

    def stone(self, color: int, leak: float | None = None) -> float:
        """The transmission of one stone as placed: its colour's level, varied per stone,
        with off-centre ``leak`` (drawn, mostly small, when not given)."""
        c = self.config
        if color not in (BLACK, WHITE):
            raise ValueError(f"{color!r} is not a colour")
        level = c.black if color == BLACK else c.white
        t = float(np.clip(self.rng.normal(level, c.stone_spread), 0.02, 0.95))
        if leak is None:
            leak = c.max_leak * float(self.rng.uniform()) ** 2
        return t * (1 - leak) + leak

    def shadow(self, hand: Hand | None) -> np.ndarray:
        """Per point, the share of light left under ``hand`` (all ones without a hand)."""
        if hand is None or hand.depth <= 0:
            return np.ones(self.n)
        d = np.hypot(self._xs - hand.x, self._ys - hand.y)
        return 1.0 - hand.depth / (1.0 + np.exp((d - hand.radius) / self.SOFTNESS))

    def read(self, t: float, transmission: np.ndarray, hand: Hand | None = None) -> np.ndarray:
        """One frame of raw readings (int, 0..full scale) at time ``t``."""
        c = self.config
        signal = self.gain * (self.ambient(t) * transmission * self.shadow(hand))
        noise = self.rng.standard_normal(self.n) * (c.noise_counts + c.noise_fraction * signal)
        return np.clip(np.rint(self.dark + signal + noise), 0, c.full_scale).astype(np.int16)
