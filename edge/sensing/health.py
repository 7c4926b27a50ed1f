"""How well each of a board's sensors reads, for people: the System page's sensor health.

``SensorHealth`` follows the classifier frame by frame and keeps, per point: the
latest reading, its noise, its drift since calibration, its margin (how far its
reading sits from the nearest threshold), and counts of transients and unclear
readings; for the board: the ambient light against its limits, the faulty sensors,
and whether the board still matches its calibration.

``details()`` packs all of it into the board's retained status (``schemas/status``
``details``: scalars of at most 255 characters), per point as fixed-width uppercase
hex digits, row-major from the top-left intersection (A9), as FRAME data is:

| key | digits a point | value |
|---|---|---|
| ``health_baseline`` | 3 | the calibrated empty-board reading (0..4095) |
| ``health_reading`` | 3 | the latest reading |
| ``health_noise`` | 2 | noise, counts (standard deviation frame to frame, capped at 255) |
| ``health_drift`` | 2 | the empty point's reading over its baseline, percent, +128 (128: none) |
| ``health_margin`` | 2 | distance to the nearest threshold, percent of the gap between levels |
| ``health_transients`` | 2 | implausible episodes (glints, dead readings), capped at 255 |
| ``health_unclear`` | 2 | unclear readings reported at the point, capped at 255 |
| ``health_levels`` | | ``black=<ratio> white=<ratio> stone=<ratio> ambient=<ratio> low=<ratio> high=<ratio> bursts=<n>`` |

plus ``ambient_alarm`` (text, only while the light nears a limit),
``calibration_mismatch`` (text, only while the board reads unlike its calibration) and
``sensor_faults`` (text, only while a sensor is faulty). The black and white levels
of a point are its baseline times the ratios (one per colour, see
``edge.calibration.levels``).

Limits of the ambient light: ``high`` makes the brightest point read full scale
(nothing above can be read); ``low`` makes the darkest one read ``2 * MIN_BASELINE``
(below, a stone and a shadow are noise apart), never below ``min_low``. The alarm
sounds within ``alarm_margin`` of a limit.

Calibration mismatch: at least ``mismatch_points`` points whose settled level lies
further than ``mismatch_tolerance`` from every calibrated level (empty, black, white)
for ``mismatch_s`` on end (another board, a sensor replaced, the lamp moved). A hand
resting that long on the board looks the same; the message says to clear the board
first. Time comes from frame timestamps. Not checked: that the margins of a point
never read with a stone (most) hold for stones too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from edge.calibration.levels import MIN_BASELINE, Calibration
from edge.sensing.classify import Classifier, Sighting
from edge.sensing.faults import FAULT_WORDS
from gobuddy.go.coords import to_gtp


@dataclass(frozen=True)
class HealthConfig:
    """See the module docstring; ``rate``: weight of a new frame in the running figures."""

    rate: float = 0.02
    alarm_margin: float = 0.15
    min_low: float = 0.3
    mismatch_points: int = 8
    mismatch_tolerance: float = 0.15
    mismatch_s: float = 8.0


def hex_digits(values: Sequence[float] | np.ndarray, digits: int) -> str:
    """Each value rounded and clipped to ``digits`` hex digits, concatenated (uppercase)."""
    top = 16 ** digits - 1
    return "".join(f"{int(v):0{digits}X}" for v in np.clip(np.rint(np.asarray(values, dtype=float)), 0, top))


class SensorHealth:
    """The sensor health of one board read with ``calibration`` (see the module docstring)."""

    def __init__(self, calibration: Calibration, config: HealthConfig = HealthConfig(), adcmax: int = 1023) -> None:
        self.calibration, self.config, self.adcmax = calibration, config, adcmax
        base = np.asarray(calibration.baseline, dtype=float)
        self.size = calibration.size
        self._base = base
        n = base.size
        self.reading = base.copy()
        self._var = np.zeros(n)
        self._drift = np.ones(n)
        self._margin = np.ones(n)
        self.unclear = np.zeros(n, dtype=np.int64)
        self._last: tuple[np.ndarray, np.ndarray] | None = None  # (ratios, usable) of the last frame
        self._off_since: float | None = None
        self.off_points: tuple[int, ...] = ()
        self.ambient = 1.0
        self.transients = np.zeros(n, dtype=np.int64)
        self.bursts = 0
        self.faults: dict[int, str] = {}
        cal = calibration
        self._levels = [1.0] + ([cal.black_level, cal.white_level] if cal.colour_sensing else [cal.stone_level])
        self.high = adcmax / float(base.max())
        self.low = max(config.min_low, 2 * MIN_BASELINE / float(base.min()))
        self.mismatch = False

    # ---- following the classifier ------------------------------------------------------------

    def update(self, readings: Sequence[int], sighting: Sighting, classifier: Classifier) -> None:
        """One frame and what ``classifier`` made of it (call after ``classify``)."""
        rate = self.config.rate
        raw = np.asarray(readings, dtype=float)
        self.reading = raw
        self.ambient = classifier.ambient
        gate = classifier.gate
        self.transients, self.bursts, self.faults = gate.transients, gate.bursts, gate.faults
        r = classifier.ratio
        board = np.asarray(sighting.board)
        usable = np.ones(raw.size, dtype=bool)
        usable[list(sighting.uncertain)] = False
        usable[list(sighting.masked)] = False
        if self._last is not None:
            last_r, last_ok = self._last
            both = usable & last_ok
            d = (r - last_r) * self._base * self.ambient
            self._var = np.where(both, self._var + rate * (d * d / 2 - self._var), self._var)
        self._last = (r.copy(), usable)
        empty = usable & (board == 0)
        self._drift = np.where(empty, self._drift + rate * (raw / self._base - self._drift), self._drift)
        self._margin = np.where(usable, self._margin + rate * (self._margins(r, board) - self._margin), self._margin)
        self._check_match(sighting.t, classifier)

    def note_unclear(self, points: Sequence[int]) -> None:
        """An unclear reading was reported at ``points`` (flat)."""
        for p in points:
            self.unclear[p] += 1

    def _margins(self, r: np.ndarray, board: np.ndarray) -> np.ndarray:
        """Distance of each ratio to the nearest threshold between calibrated levels, as a
        fraction of the gap between those levels (1: on a level, 0: on a threshold)."""
        levels = sorted(self._levels)
        best = np.zeros(r.shape)
        for lo, hi in zip(levels, levels[1:]):
            mid, half = (lo + hi) / 2, (hi - lo) / 2
            near = np.clip(np.abs(r - mid) / half, 0, 1)
            inside = (r >= lo - half) & (r <= hi + half)
            best = np.where(inside & (near > best), near, best)
        outside = (r < levels[0]) | (r > levels[-1])
        return np.where(outside, 1.0, best)

    def _check_match(self, t: float, classifier: Classifier) -> None:
        cfg = self.config
        levels = classifier.levels
        far = np.min([np.abs(levels - lv) for lv in self._levels], axis=0) > cfg.mismatch_tolerance
        off = np.flatnonzero(far & classifier.settled)
        if off.size >= cfg.mismatch_points:
            self._off_since = t if self._off_since is None else self._off_since
            self.off_points = tuple(off.tolist())
        else:
            self._off_since, self.off_points = None, ()
        self.mismatch = self._off_since is not None and t - self._off_since >= cfg.mismatch_s

    # ---- for people ------------------------------------------------------------------------------

    def noise(self) -> np.ndarray:
        """Noise per point, in counts."""
        return np.sqrt(self._var)

    def margin(self) -> np.ndarray:
        """Margin per point, 0..1."""
        return self._margin.copy()

    def ambient_alarm(self) -> str | None:
        """What is wrong with the light, when it nears a limit; else ``None``."""
        a, m = self.ambient, self.config.alarm_margin
        if a >= self.high * (1 - m):
            return (f"the room is {a:.2f} times as bright as at calibration, near the {self.high:.2f} at which "
                    "sensors read full scale: dim the light or recalibrate")
        if a <= self.low * (1 + m):
            return (f"the room is {a:.2f} times as bright as at calibration, near the {self.low:.2f} below which "
                    "stones cannot be told from shadows: more light, or recalibrate")
        return None

    def mismatch_message(self) -> str | None:
        if not self.mismatch:
            return None
        where = ", ".join(to_gtp(p, self.size) for p in self.off_points[:8])
        more = f" and {len(self.off_points) - 8} more" if len(self.off_points) > 8 else ""
        return (f"the board reads unlike its calibration at {where}{more}: clear the board and hold TURN DONE "
                "for 2 s to recalibrate")[:255]

    def faults_message(self) -> str | None:
        if not self.faults:
            return None
        return "; ".join(f"{to_gtp(p, self.size)} {FAULT_WORDS[k]}" for p, k in sorted(self.faults.items()))[:255]

    def details(self) -> dict[str, Any]:
        """The status keys of the module docstring (``None``: a fact that does not hold now)."""
        cal = self.calibration
        levels = (f"black={_opt(cal.black_level)} white={_opt(cal.white_level)} stone={cal.stone_level:.3f} "
                  f"ambient={self.ambient:.3f} low={self.low:.3f} high={self.high:.3f} bursts={self.bursts}")
        return {
            "health_levels": levels,
            "health_baseline": hex_digits(self._base, 3),
            "health_reading": hex_digits(self.reading, 3),
            "health_noise": hex_digits(self.noise(), 2),
            "health_drift": hex_digits((self._drift - 1) * 100 + 128, 2),
            "health_margin": hex_digits(self._margin * 100, 2),
            "health_transients": hex_digits(self.transients, 2),
            "health_unclear": hex_digits(self.unclear, 2),
            "ambient_alarm": self.ambient_alarm(),
            "calibration_mismatch": self.mismatch_message(),
            "sensor_faults": self.faults_message(),
        }


def _opt(value: float | None) -> str:
    return "none" if value is None else f"{value:.3f}"
