"""What a real room does to a board's readings, for the simulator: glints, bursts, faults.

A ``Transient`` spoils the frames of a time span ``[start, end)`` (board seconds):

| kind | the frames meanwhile |
|---|---|
| ``glint`` | ``points`` read bright: full scale, or 1.5 to 3 times their reading (sunlight off a stone, a phone's torch) |
| ``burst`` | every sensor reads at random, 0 to ``adcmax`` (a loose connector, interference) |
| ``stuck`` | ``points`` read full scale |
| ``dead`` | ``points`` read 0 to 3 (an open circuit) |
| ``flash`` | every reading times ``level``, clipped at full scale (a camera flash, a lamp flicker) |
| ``reboot`` | no frames at all (the board resets and boots; its first frames come after) |

``spoil`` applies a list of them to a stream of board inputs (button presses pass
untouched) and ``room_transients`` draws a list for a game at given rates: what
``bench.bench_edge_accuracy`` and the tests feed the real classifier. Not modelled:
the firmware's averaging of scans across the transient's edges (a frame half
spoiled) beyond what ``partial`` does for glints and flashes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterable, Iterator

import numpy as np

from edge.sensing.classify import BoardInput, Frame

KINDS = ("glint", "burst", "stuck", "dead", "flash", "reboot")


@dataclass(frozen=True)
class Transient:
    """One spoiled span: ``kind`` (see the module docstring), ``start``/``end`` in board
    seconds, the ``points`` concerned (glint, stuck, dead) and a ``level`` (flash
    factor)."""

    kind: str
    start: float
    end: float
    points: tuple[int, ...] = ()
    level: float = 1.8

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown transient {self.kind!r}; kinds are {', '.join(KINDS)}")

    def covers(self, t: float) -> bool:
        return self.start <= t < self.end


def spoil(inputs: Iterable[BoardInput], transients: list[Transient], seed: int = 0,
          adcmax: int = 1023) -> Iterator[BoardInput]:
    """``inputs`` with every frame inside a transient spoiled (or dropped, for a reboot)."""
    rng = np.random.default_rng(seed)
    for item in inputs:
        if not isinstance(item, Frame):
            yield item
            continue
        active = [tr for tr in transients if tr.covers(item.t)]
        if not active:
            yield item
            continue
        if any(tr.kind == "reboot" for tr in active):
            continue
        values = np.asarray(item.readings, dtype=float)
        for tr in active:
            pts = list(tr.points)
            if tr.kind == "glint":
                boost = rng.uniform(1.5, 3.0, len(pts))
                full = rng.random(len(pts)) < 0.5
                values[pts] = np.where(full, adcmax, values[pts] * boost)
            elif tr.kind == "burst":
                values = rng.uniform(0, adcmax, values.size)
            elif tr.kind == "stuck":
                values[pts] = adcmax
            elif tr.kind == "dead":
                values[pts] = rng.integers(0, 4, len(pts))
            elif tr.kind == "flash":
                values = values * tr.level
        readings = tuple(int(v) for v in np.clip(np.rint(values), 0, adcmax))
        yield Frame(item.t, readings, item.seq)


@dataclass(frozen=True)
class RoomRates:
    """How often each transient comes, per minute of play, and how long it lasts.
    ``dead_chance``: the chance that a game has a sensor die (for the rest of it);
    ``frame_s``: one frame period (glints last 1 to 5 of them)."""

    glints_per_min: float = 2.0
    bursts_per_min: float = 0.3
    stuck_per_min: float = 0.2
    flashes_per_min: float = 0.2
    reboots_per_min: float = 0.1
    dead_chance: float = 0.2
    frame_s: float = 0.04
    stuck_s: float = 2.0
    reboot_s: tuple[float, float] = (1.0, 2.0)


def room_transients(duration_s: float, size: int = 9, seed: int = 0, rates: RoomRates = RoomRates(),
                    start_s: float = 2.0) -> list[Transient]:
    """Transients for a game of ``duration_s`` board seconds, drawn at ``rates`` (Poisson
    arrivals from ``start_s``), sorted by start."""
    rng = random.Random(seed)
    n = size * size
    out: list[Transient] = []
    span = max(0.0, duration_s - start_s)

    def arrivals(per_min: float) -> list[float]:
        times, t = [], start_s
        while per_min > 0:
            t += rng.expovariate(per_min / 60.0)
            if t >= start_s + span:
                return times
            times.append(t)
        return times

    f = rates.frame_s
    for t in arrivals(rates.glints_per_min):
        out.append(Transient("glint", t, t + f * rng.randint(1, 5) - f / 2, tuple(rng.sample(range(n), rng.randint(1, 10)))))
    for t in arrivals(rates.bursts_per_min):
        out.append(Transient("burst", t, t + 2 * f - f / 2))
    for t in arrivals(rates.stuck_per_min):
        out.append(Transient("stuck", t, t + rates.stuck_s, (rng.randrange(n),)))
    for t in arrivals(rates.flashes_per_min):
        out.append(Transient("flash", t, t + f * rng.randint(1, 4) - f / 2, level=rng.uniform(1.3, 2.0)))
    for t in arrivals(rates.reboots_per_min):
        out.append(Transient("reboot", t, t + rng.uniform(*rates.reboot_s)))
    if span > 0 and rng.random() < rates.dead_chance:
        t = start_s + rng.uniform(0, span)
        out.append(Transient("dead", t, float("inf"), (rng.randrange(n),)))
    return sorted(out, key=lambda tr: tr.start)
