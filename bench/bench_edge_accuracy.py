"""Record accuracy of the edge agent on the simulated board. Writes a markdown section.

    python -m bench.bench_edge_accuracy [--games 500] [--occupancy 100] [--no-references 50]
                                        [--gnugo 20] [--jobs 1]

Every game is played by hand on ``edge.simulator.BoardSimulator`` (per-point gains,
ambient drift, noise, hand shadows on the way in and out, stones off-centre, captures
taken off late, idle hands over the board, lost frames, passes as button presses) and
read by the real ``Classifier`` and ``Reconciler``. Each game gets its own sensor model
and calibration (seed = game number). Sets: random games of 60 to 90 moves read with
colour sensing; the same on occupancy-only hardware (both colours take about the same
light, so calibration picks occupancy sensing and colours follow the turn); the same
calibrated with no reference stones (occupancy sensing at the assumed stone level); GNU
Go self-play games when ``/usr/games/gnugo`` is installed (however long GNU Go plays).

Counted per set: false moves (recorded but not played) and missed moves (played but
not recorded), from an alignment of the record with the true game; games whose record
differs; moves recorded then taken back automatically (a phantom that vanished);
problems raised (none is needed in these games: each is a false alarm).
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

from edge.classify import Classifier, Frame
from edge.game import Game, Undone
from edge.problems import ProblemRaised
from edge.reconcile import Reconciler
from edge.sensor_model import SensorModel, SensorModelConfig
from edge.simulator import BoardSimulator, calibrate, game_inputs, gnugo_game, random_game

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

    def add(self, other: "Tally") -> None:
        for name in ("games", "moves", "false_moves", "missed_moves", "wrong_games", "taken_back",
                     "frames", "sim_s", "cpu_s"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.problems.update(other.problems)
        self.wrong_seeds += other.wrong_seeds


def play(job: tuple[str, int]) -> Tally:
    """One game of set ``kind`` (random, occupancy, gnugo) with ``seed``."""
    kind, seed = job
    started = time.process_time()
    model = SensorModel(OCCUPANCY_HARDWARE if kind == "occupancy" else SensorModelConfig(), seed=seed)
    cal = calibrate(model, colour=kind != "no-references")
    assert cal.colour_sensing == (kind in ("random", "gnugo")), f"{kind} {seed}: unexpected calibration"
    moves = gnugo_game(seed=seed) if kind == "gnugo" else random_game(seed=seed, min_moves=60, max_moves=90)
    sim = BoardSimulator(model, seed=seed)
    rec = Reconciler(Game(), Classifier(cal))
    tally = Tally(games=1, moves=len(moves))
    for item in game_inputs(sim, moves):
        tally.frames += isinstance(item, Frame)
        for event in rec.feed(item):
            if isinstance(event, Undone):
                tally.taken_back += 1
            elif isinstance(event, ProblemRaised):
                tally.problems[event.kind] += 1
    recorded = [point for _, point in rec.game.moves]
    matched = sum(b.size for b in difflib.SequenceMatcher(a=moves, b=recorded, autojunk=False).get_matching_blocks())
    tally.false_moves = len(recorded) - matched
    tally.missed_moves = len(moves) - matched
    if recorded != moves:
        tally.wrong_games, tally.wrong_seeds = 1, [seed]
    tally.sim_s = sim.t
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
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    args = parser.parse_args(argv)
    sets = [("random", "random games, colour sensing", range(args.games)),
            ("occupancy", "random games, occupancy-only hardware", range(10_000, 10_000 + args.occupancy)),
            ("no-references", "random games, no reference stones at calibration",
             range(30_000, 30_000 + args.no_references))]
    if args.gnugo and os.path.exists(GNUGO):
        sets.append(("gnugo", "GNU Go self-play, colour sensing", range(20_000, 20_000 + args.gnugo)))
    rows, problems, wrong = [], Counter(), []
    for kind, title, seeds in sets:
        if not len(seeds):
            continue
        print(f"  {title}: {len(seeds)} games ...", file=sys.stderr, flush=True)
        t, wall = run_set(kind, seeds, args.jobs)
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


if __name__ == "__main__":
    main()
