"""Self-play games per core-hour: the float model and its int8 twin, each with the
Python search and the compiled one, at the self-play settings the training rounds use.

    python -m bench.bench_selfplay [--games 100] [--model models/gobuddy-9x9.onnx]

Four ``python -m training.selfplay`` processes (float and twin, ``--engine python``
and ``--engine native``), two at a time side by side at the same niceness, with
``make_model``'s self-play settings (PUCT, ``--visits`` 200 on a full search, 50 on a
fast one, 35% full; resignation on), one worker each, the same seed. Each plays
``--games`` games into a scratch folder. The figure is each process's own CPU time
(``os.wait4``), so two processes sharing the cores do not inflate it the way wall time
would; a game's cost also depends on how long the game is, so the mean moves and full
searches per game are printed beside it. The baseline is the float model with the
Python search (issue 23's "today"). Prints a markdown section.

The two engines play the same games for the same model and seed
(``tests/ai/test_native_search.py``), so their data is the same; the twin's games are
its own (its agreement with its source is ``training.quantize``'s, its data's worth the
gating matches').
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
from pathlib import Path

from training.game_shards import iter_samples
from training.make_model import Plan
from training.selfplay import command as selfplay_command

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "models" / "gobuddy-9x9.onnx"


def command(model: Path, out: Path, games: int, seed: int, engine: str = "native") -> list[str]:
    """The self-play command of a training round (``training.improve``) for ``games`` games."""
    plan = Plan()
    return selfplay_command(model, out, size=9, visits=plan.selfplay_visits, fast_visits=plan.selfplay_fast_visits,
                            full_fraction=plan.selfplay_full_fraction, search="puct", workers=1, seed=seed, games=games,
                            engine=engine)


def game_shape(folder: Path) -> tuple[int, float, float]:
    """(games, mean moves a game, mean full searches a game) of the shards in ``folder``."""
    games = list(iter_samples(folder))
    count = max(len(games), 1)
    return (len(games), sum(len(g.moves) for g in games) / count,
            sum(sum(1 for v in g.visits or [] if v) for g in games) / count)


def measure(arms: dict[str, tuple[Path, str]], games: int, seed: int, together: int = 2
            ) -> dict[str, dict[str, float]]:
    """Run one self-play process per arm (name -> (model, engine)), ``together`` at a
    time; per arm: CPU seconds, games, shape."""
    results = {}
    names = list(arms)
    with tempfile.TemporaryDirectory(prefix="bench-selfplay-") as scratch:
        for start in range(0, len(names), together):
            procs = {}
            for name in names[start:start + together]:
                model, engine = arms[name]
                out = Path(scratch) / name.replace(" ", "-").replace(",", "")
                procs[name] = (subprocess.Popen(command(model, out, games, seed, engine), cwd=ROOT,
                                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE), out)
            for name, (proc, out) in procs.items():
                _, status, usage = os.wait4(proc.pid, 0)
                proc.returncode = os.waitstatus_to_exitcode(status)
                if proc.returncode != 0:
                    raise RuntimeError(f"self-play {name} failed ({proc.returncode}): "
                                       f"{proc.stderr.read().decode()[-2000:] if proc.stderr else ''}")
                played, moves, full = game_shape(out)
                cpu = usage.ru_utime + usage.ru_stime
                results[name] = {"cpu_s": cpu, "games": played, "moves": moves, "full": full}
    return {name: results[name] for name in names}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games per model (default 100)")
    parser.add_argument("--model", type=Path, default=SHIPPED, help="the float model; its twin beside it")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    from training.quantize import twin_path

    twin = twin_path(args.model)
    print("## Self-play games per core-hour: float model and int8 twin, Python and compiled search "
          "(`bench.bench_selfplay`)\n")
    if not twin.is_file():
        print(f"No int8 twin of {args.model} (`python -m training.quantize --model {args.model}` makes it).")
        return
    # paired so that each pair has one Python and one compiled search
    arms = {"float, Python search": (args.model, "python"), "int8 twin, compiled search": (twin, "native"),
            "int8 twin, Python search": (twin, "python"), "float, compiled search": (args.model, "native")}
    results = measure(arms, args.games, args.seed)
    plan = Plan()
    print(f"`training.selfplay` as a training round runs it (PUCT {plan.selfplay_visits}/{plan.selfplay_fast_visits} "
          f"visits, {plan.selfplay_full_fraction:.0%} full, resignation on, one worker), {args.games} games per "
          f"arm, two processes at a time side by side (the first two rows, then the last two), the same seed; "
          f"{args.model.name} and its twin.\n")
    print("| model, search | games | moves a game | full searches a game | CPU ms a move | CPU s a game "
          "| games per core-hour | x the float model's with the Python search |")
    print("|---|---|---|---|---|---|---|---|")
    per_game = {name: r["cpu_s"] / max(r["games"], 1) for name, r in results.items()}
    per_move = {name: r["cpu_s"] / max(r["games"] * r["moves"], 1) for name, r in results.items()}
    per_hour = {name: 3600 / seconds for name, seconds in per_game.items()}
    base = "float, Python search"
    for name, r in results.items():
        print(f"| {name} | {r['games']:.0f} | {r['moves']:.1f} | {r['full']:.1f} | {1000 * per_move[name]:.1f} | "
              f"{per_game[name]:.2f} | {per_hour[name]:,.0f} | {per_hour[name] / per_hour[base]:.1f}x |")
    best = "int8 twin, compiled search"
    print(f"\nThe twin with the compiled search makes **{per_hour[best] / per_hour[base]:.1f}x** the games per "
          f"core-hour of the float model with the Python search ({per_move[base] / per_move[best]:.1f}x the moves); "
          f"the compiled search alone gains {per_move['int8 twin, Python search'] / per_move[best]:.2f}x on the twin "
          f"and {per_move[base] / per_move['float, compiled search']:.2f}x on the float model, per move "
          "(CPU time of each process, start-up included; the games differ in length, the moves a game say how much).")


if __name__ == "__main__":
    main()
