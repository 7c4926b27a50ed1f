"""``make bench``: run every benchmark and write ``bench/RESULTS.md``.

Each benchmark is a module under ``bench/`` that prints one markdown section on stdout.
They run one after another (never in parallel, so they do not disturb each other), and
the file records the machine they ran on. A benchmark that fails is reported in the
file with its error output instead of silently missing.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from training import model_card

BENCHMARKS = (
    ("bench.bench_rules", ["--seconds", "10"]),
    ("bench.bench_engine", []),
    ("bench.bench_tree_reuse", []),
    ("bench.bench_lcb", []),
    ("bench.bench_selfplay", []),
    ("bench.bench_bus", []),
    ("bench.bench_overload", []),
    ("bench.bench_rejections", []),
    ("bench.bench_edge_accuracy", []),
    ("bench.bench_edge_latency", []),
    ("bench.bench_live_latency", []),
    ("bench.bench_play_latency", []),
    ("bench.bench_replay_step", []),
    ("bench.bench_player_page", []),
)


def machine() -> str:
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (f"{os.cpu_count()} cores ({model_card.machine()['cpu']}), {mem:.0f} GiB, {platform.system()} "
            f"{platform.release()}, Python {platform.python_version()}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("bench/RESULTS.md"))
    parser.add_argument("--only", nargs="*", help="module names to run (default: all)")
    args = parser.parse_args(argv)
    root = Path(__file__).resolve().parent.parent
    sections = [
        "# Benchmark results\n",
        f"Recorded by `make bench` on {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC.\n",
        f"Machine: {machine()}.\n",
    ]
    for module, extra in BENCHMARKS:
        if args.only and module not in args.only:
            continue
        if not (root / (module.replace(".", "/") + ".py")).exists():
            sections.append(f"## {module}\n\nnot present in this checkout.\n")
            continue
        print(f"running {module} ...", flush=True)
        started = time.time()
        proc = subprocess.run([sys.executable, "-m", module, *extra], cwd=root, capture_output=True, text=True)
        took = time.time() - started
        if proc.returncode == 0:
            sections.append(proc.stdout.strip() + f"\n\n_({module}, {took:.0f} s)_\n")
        else:
            sections.append(f"## {module}\n\nFAILED (exit {proc.returncode}):\n\n```\n{proc.stderr[-3000:]}\n```\n")
        print(f"  done in {took:.0f} s (exit {proc.returncode})", flush=True)
    args.out.write_text("\n".join(sections))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
