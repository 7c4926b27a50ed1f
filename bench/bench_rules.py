"""Rules-core speed: legal moves played per second in random 9x9 playouts, one core.

Each playout starts from an empty board and plays uniformly random legal moves that do
not fill the mover's own eye-like points (the legal-move player of ``gobuddy.go``),
with capture handling and positional-superko hashing on every move, until both sides
pass. ``python -m bench.bench_rules [--seconds S] [--size N]`` prints a markdown section.
"""

from __future__ import annotations

import argparse
import random
import time

from gobuddy.go.position import Position


def playout(pos: Position, rng: random.Random, cap: int) -> int:
    """Play random legal non-eye-filling moves until two passes; return moves played."""
    played = 0
    n = pos.n
    while pos.passes < 2 and pos.move_count < cap:
        color = pos.to_play
        empties = [p for p in range(n) if pos.board[p] == 0]
        rng.shuffle(empties)
        for p in empties:
            if not pos.is_eye_like(p, color) and pos.illegal_reason(p) is None:
                pos.play(p, check=False)
                played += 1
                break
        else:
            pos.play(pos.pass_point)
    return played


def measure(size: int, seconds: float, seed: int = 1) -> dict[str, float]:
    rng = random.Random(seed)
    moves = games = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        moves += playout(Position(size, superko=True), rng, 3 * size * size)
        games += 1
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    return {"games": games, "moves": moves, "seconds": elapsed, "cpu_seconds": cpu,
            "moves_per_second": moves / elapsed, "moves_per_cpu_second": moves / cpu}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--size", type=int, default=9)
    args = parser.parse_args(argv)
    r = measure(args.size, args.seconds)
    print(f"## Rules core: random playouts on {args.size}x{args.size} (one core, pure Python)\n")
    print("| games | legal moves played | wall s | CPU s | moves per wall second | moves per CPU second |")
    print("|---|---|---|---|---|---|")
    print(f"| {r['games']} | {r['moves']} | {r['seconds']:.1f} | {r['cpu_seconds']:.1f} | "
          f"{r['moves_per_second']:,.0f} | **{r['moves_per_cpu_second']:,.0f}** |")
    print("\nEvery move: legality with suicide and positional-superko check (Zobrist), capture "
          "handling through incremental chain/liberty tracking. Target: 20,000 moves/s. The CPU-second "
          "figure is the one to compare when the machine is shared (wall time counts other processes' turns).\n")


if __name__ == "__main__":
    main()
