"""Record accuracy of the edge agent on the simulated board. Writes a markdown section.

    python -m bench.bench_edge_accuracy [--games 500] [--occupancy 100] [--no-references 50]
                                        [--gnugo 20] [--transients 500] [--jobs 1]

Every game is played by hand on ``edge.simulation.simulator.BoardSimulator`` (per-point gains,
ambient drift, noise, hand shadows on the way in and out, stones off-centre, captures
taken off late, idle hands over the board, lost frames, passes as button presses) and
read by the real ``Classifier`` and ``Reconciler``. Each game gets its own sensor model
and calibration (seed = game number). Sets: random games of 60 to 90 moves read with
colour sensing; the same on occupancy-only hardware (both colours take about the same
light, so calibration picks occupancy sensing and colours follow the turn); the same
calibrated with no reference stones (occupancy sensing at the assumed stone level); GNU
Go self-play games when ``/usr/games/gnugo`` is installed (however long GNU Go plays);
random games in a real room (``edge.simulation.transients.room_transients`` at its default
rates: glints on 1 to 10 points for 1 to 5 frames, two-frame bursts of random readings,
a sensor stuck at full scale for 2 s, whole-board flashes, reboots of 1 to 2 s, and in
one game of five a sensor that dies for good), a third of them ended by END pressed as
the last stone lands (0 to 0.2 s after its hand left) instead of two passes.

Counted per set: false moves (recorded but not played) and missed moves (played but
not recorded), from an alignment of the record with the true game; games whose record
differs; moves recorded then taken back automatically (a phantom that vanished);
problems raised (none is needed in these games: each is a false alarm). For the room
set also, per transient, the time the board is unreadable after it: from the end of the
transient (the start, for a sensor that dies; the end of another transient that
covers the whole board at that moment, if later: a flash during a reboot) until the
classifier fed the spoiled
frames reads as one fed the clean frames does (no point uncertain that the clean one
reads clearly, and the same class at every point the clean one reads clearly, masked
points aside); a transient followed by another before that is counted as cut short.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from multiprocessing import Pool

from bench.bench_engine import percentile
from edge.sensing.classify import ButtonPress, Classifier, Frame, Sighting
from gobuddy.go.game import Game, Undone
from edge.reading.problems import ProblemRaised
from edge.reading.reconcile import Reconciler
from edge.simulation.sensor_model import SensorModel, SensorModelConfig
from edge.simulation.simulator import BoardSimulator, calibrate, game_inputs, gnugo_game, random_game
from edge.simulation.transients import Transient, room_transients, spoil
from gobuddy.go.position import Position

GNUGO = "/usr/games/gnugo"
# Occupancy-only hardware: both stone colours take about the same light.
OCCUPANCY_HARDWARE = SensorModelConfig(black=0.30, white=0.36)


@dataclass
class Tally:
    games: int = 0
    moves: int = 0
    false_moves: int = 0
    missed_moves: int = 0
    wrong_games: int = 0
    taken_back: int = 0
    problems: Counter = field(default_factory=Counter)
    frames: int = 0
    sim_s: float = 0.0
    cpu_s: float = 0.0
    wrong_seeds: list[int] = field(default_factory=list)
    recovery: dict[str, list[float]] = field(default_factory=dict)  # transient kind -> unreadable seconds
    cut_short: Counter = field(default_factory=Counter)
    fast_ends: int = 0

    def add(self, other: "Tally") -> None:
        for name in ("games", "moves", "false_moves", "missed_moves", "wrong_games", "taken_back",
                     "frames", "sim_s", "cpu_s", "fast_ends"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.problems.update(other.problems)
        self.cut_short.update(other.cut_short)
        self.wrong_seeds += other.wrong_seeds
        for kind, values in other.recovery.items():
            self.recovery.setdefault(kind, []).extend(values)


def until_last_stone(moves: list[int], size: int = 9) -> list[int]:
    """The game up to its last stone (the passes that ended it dropped)."""
    last = max(i for i, m in enumerate(moves) if m != size * size)
    return moves[:last + 1]


def fast_end_inputs(sim: BoardSimulator, moves: list[int]) -> list:
    """The game up to its last stone, then END pressed as that stone's hand leaves."""
    played = until_last_stone(moves, sim.size)
    pos = Position(sim.size)
    for m in played[:-1]:
        pos.play(m)
    inputs = list(game_inputs(sim, played[:-1]))
    color = pos.to_play
    inputs += sim.play(played[-1], color, pos.play(played[-1]))
    inputs.append(ButtonPress(sim.t + sim.rng.uniform(0.0, 0.2), "end_game"))
    inputs += sim.idle(4.0)
    return inputs


def _reads_as(spoiled: Sighting, clean: Sighting) -> bool:
    """``spoiled`` reads the board as ``clean`` does: no point uncertain that ``clean``
    reads clearly, and the same class at every point ``clean`` reads clearly, masked
    points aside (an uncertain point's class is no reading: under a hand's shadow one
    classifier may call it empty, the other a white stone)."""
    skip = set(spoiled.masked) | set(clean.uncertain)
    return (all(a == b for p, (a, b) in enumerate(zip(spoiled.board, clean.board)) if p not in skip)
            and set(spoiled.uncertain) <= set(clean.uncertain))


def _light_normal(tr: Transient, transients: list[Transient]) -> float:
    """When the light is normal again after ``tr``: its end (its start, for a sensor
    that dies), or later if a transient of the whole board (a reboot, a flash, random
    readings) that began before then lasts beyond it (a flash during a reboot is not
    seen until the frames return)."""
    since = tr.start if tr.kind == "dead" else tr.end
    for other in transients:
        if other.kind in ("reboot", "flash", "burst") and other.start <= since < other.end:
            since = max(since, other.end)
    return since


def play_room(seed: int, tally: Tally) -> list[int]:
    """One game in a real room; the moves as recorded (fills ``tally``'s room figures)."""
    model = SensorModel(seed=seed)
    cal = calibrate(model)
    moves = random_game(seed=seed, min_moves=60, max_moves=90)
    sim = BoardSimulator(model, seed=seed)
    fast_end = seed % 3 == 0
    inputs = fast_end_inputs(sim, moves) if fast_end else list(game_inputs(sim, moves))
    tally.fast_ends += fast_end
    transients = room_transients(inputs[-1].t - 4.0, seed=seed)
    spoiled = {item.seq: item for item in spoil(inputs, transients, seed) if isinstance(item, Frame)}
    clean, reader = Classifier(cal), Classifier(cal)
    rec = Reconciler(Game(), reader)
    waiting: list[Transient] = []  # transients whose end passed, not yet read through
    upcoming = list(transients)
    for item in inputs:
        if isinstance(item, ButtonPress):
            _count(rec.feed(item), tally)
            continue
        tally.frames += 1
        reference = clean.classify(item)
        while upcoming and upcoming[0].start <= item.t:
            for tr in waiting:
                tally.cut_short[tr.kind] += 1
            waiting = []
            tr = upcoming.pop(0)
            waiting.append(tr)
        if item.seq not in spoiled:
            continue
        sighting = reader.classify(spoiled[item.seq])
        _count(rec.observe(sighting), tally)
        for tr in list(waiting):
            since = _light_normal(tr, transients)
            if item.t >= since and _reads_as(sighting, reference):
                tally.recovery.setdefault(tr.kind, []).append(item.t - since)
                waiting.remove(tr)
    tally.sim_s = sim.t
    if fast_end:
        return [p for _, p in rec.game.moves] if rec.game.ended else [-1]
    return [p for _, p in rec.game.moves]


def _count(events: list, tally: Tally) -> None:
    for event in events:
        if isinstance(event, Undone):
            tally.taken_back += 1
        elif isinstance(event, ProblemRaised):
            tally.problems[event.kind] += 1


def play(job: tuple[str, int]) -> Tally:
    """One game of set ``kind`` (random, occupancy, no-references, gnugo, room) with ``seed``."""
    kind, seed = job
    started = time.process_time()
    if kind == "room":
        tally = Tally(games=1)
        recorded = play_room(seed, tally)
        truth = random_game(seed=seed, min_moves=60, max_moves=90)
        if seed % 3 == 0:
            truth = until_last_stone(truth)
        return _score(tally, truth, recorded, seed, started)
    model = SensorModel(OCCUPANCY_HARDWARE if kind == "occupancy" else SensorModelConfig(), seed=seed)
    cal = calibrate(model, colour=kind != "no-references")
    assert cal.colour_sensing == (kind in ("random", "gnugo")), f"{kind} {seed}: unexpected calibration"
    moves = gnugo_game(seed=seed) if kind == "gnugo" else random_game(seed=seed, min_moves=60, max_moves=90)
    sim = BoardSimulator(model, seed=seed)
    rec = Reconciler(Game(), Classifier(cal))
    tally = Tally(games=1, moves=len(moves))
    for item in game_inputs(sim, moves):
        tally.frames += isinstance(item, Frame)
        _count(rec.feed(item), tally)
    recorded = [point for _, point in rec.game.moves]
    tally.sim_s = sim.t
    return _score(tally, moves, recorded, seed, started)


def _score(tally: Tally, moves: list[int], recorded: list[int], seed: int, started: float) -> Tally:
    """False and missed moves from an alignment of ``recorded`` with the true ``moves``."""
    tally.moves = len(moves)
    matched = sum(b.size for b in difflib.SequenceMatcher(a=moves, b=recorded, autojunk=False).get_matching_blocks())
    tally.false_moves = len(recorded) - matched
    tally.missed_moves = len(moves) - matched
    if recorded != moves:
        tally.wrong_games, tally.wrong_seeds = 1, [seed]
    tally.cpu_s = time.process_time() - started
    return tally


def run_set(kind: str, seeds: range, jobs: int) -> tuple[Tally, float]:
    started = time.perf_counter()
    total = Tally()
    work = [(kind, s) for s in seeds]
    if jobs > 1:
        with Pool(jobs) as pool:
            for t in pool.imap_unordered(play, work, chunksize=4):
                total.add(t)
    else:
        for job in work:
            total.add(play(job))
    return total, time.perf_counter() - started


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500, help="random games, colour sensing")
    parser.add_argument("--occupancy", type=int, default=100, help="random games, occupancy-only hardware")
    parser.add_argument("--no-references", type=int, default=50,
                        help="random games, calibrated without reference stones (occupancy sensing)")
    parser.add_argument("--gnugo", type=int, default=20, help="GNU Go self-play games (when installed)")
    parser.add_argument("--transients", type=int, default=500,
                        help="random games in a real room (glints, bursts, stuck and dead sensors, reboots, fast END)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    args = parser.parse_args(argv)
    sets = [("random", "random games, colour sensing", range(args.games)),
            ("occupancy", "random games, occupancy-only hardware", range(10_000, 10_000 + args.occupancy)),
            ("no-references", "random games, no reference stones at calibration",
             range(30_000, 30_000 + args.no_references))]
    if args.gnugo and os.path.exists(GNUGO):
        sets.append(("gnugo", "GNU Go self-play, colour sensing", range(20_000, 20_000 + args.gnugo)))
    sets.append(("room", "random games in a real room (transients, faults, fast END), colour sensing",
                 range(40_000, 40_000 + args.transients)))
    rows, problems, wrong, room = [], Counter(), [], None
    for kind, title, seeds in sets:
        if not len(seeds):
            continue
        print(f"  {title}: {len(seeds)} games ...", file=sys.stderr, flush=True)
        t, wall = run_set(kind, seeds, args.jobs)
        if kind == "room":
            room = t
        problems.update(t.problems)
        wrong += [f"{kind} {s}" for s in t.wrong_seeds]
        rows.append(f"| {title} | {t.games} | {t.moves} | {t.moves / t.games:.0f} | {t.false_moves} | "
                    f"{t.missed_moves} | {t.wrong_games} | {t.taken_back} | {sum(t.problems.values())} | "
                    f"{t.sim_s / 3600:.1f} h | {wall:.0f} s | {1e6 * t.cpu_s / max(t.frames, 1):.0f} µs |")
    print("## Edge agent: record accuracy on the simulated board\n")
    print("Games played by hand on the simulated board (noise, drift, hand shadows, off-centre stones, "
          "late captures, idle hands, lost frames) and read by the real classifier and reconciler, "
          "time simulated at 25 frames a second. `python -m bench.bench_edge_accuracy`.\n")
    print("| set | games | moves | moves/game | false moves | missed moves | games wrong | moves taken back "
          "| problems raised | simulated time | wall time | CPU per frame |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print()
    print(f"Problems raised, by kind: {dict(problems) or 'none'}.")
    print(f"Games whose record differs: {', '.join(wrong) or 'none'}.")
    if room is not None and room.games:
        print_room(room)


def print_room(t: Tally) -> None:
    """The room set's transients and how long each left the board unreadable."""
    print(f"\n### In a real room: the board unreadable after each transient ({t.games} games, "
          f"{t.fast_ends} ended by a fast END)\n")
    print("| transient | count | p50 (s) | p99 (s) | max (s) | cut short by the next |")
    print("|---|---|---|---|---|---|")
    words = {"glint": "glint, 1-10 points, 1-5 frames", "burst": "random readings, 2 frames",
             "stuck": "sensor at full scale, 2 s", "flash": "whole-board flash, 1-4 frames, 1.3-2x",
             "reboot": "reboot, 1-2 s without frames", "dead": "sensor dies (from its death: masked, read around)"}
    everything: list[float] = []
    for kind in ("glint", "burst", "stuck", "flash", "reboot", "dead"):
        values = sorted(t.recovery.get(kind, []))
        everything += values
        if values:
            print(f"| {words[kind]} | {len(values)} | {percentile(values, 0.5):.2f} | {percentile(values, 0.99):.2f} | "
                  f"{values[-1]:.2f} | {t.cut_short[kind]} |")
    everything.sort()
    if everything:
        print(f"| **all** | {len(everything)} | {percentile(everything, 0.5):.2f} | **{percentile(everything, 0.99):.2f}** | "
              f"{everything[-1]:.2f} | {sum(t.cut_short.values())} |")


if __name__ == "__main__":
    main()
