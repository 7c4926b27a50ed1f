"""Engine figures: raw onnxruntime throughput, search throughput and overhead, analysis
latency. Writes a markdown section to stdout or to ``--out``.

    python -m bench.bench_engine [--out FILE] [--model PATH] [--quick]

The model is ``models/gobuddy-9x9.onnx`` when present, else a random-weight 6 blocks x
64 channels model from ``tests.tiny_model`` (a test fixture) (speed does not depend on the weights).
Positions are 9x9 middle-game positions from seeded random games. Throughput runs are
interleaved and repeated and the median is reported, because the machine is shared.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gobuddy.ai.analysis import DEFAULT_TOP_K, DEFAULT_VISITS, analyse
from gobuddy.ai.evaluator import UniformEvaluator
from gobuddy.ai.features import History, board_array, encode, encode_batch, push_history
from gobuddy.ai.mcts import Search, SearchConfig
from gobuddy.ai.onnx_evaluator import OnnxEvaluator
from gobuddy.ai.search_engines import make_search
from gobuddy.go.playout import random_move
from gobuddy.go.position import Position

SHIPPED = Path("models/gobuddy-9x9.onnx")


@dataclass(frozen=True)
class BenchConfig:
    """What to measure and for how long."""

    model: Path | None
    out: Path | None
    quick: bool = False

    @property
    def seconds(self) -> float:
        return 0.15 if self.quick else 0.7

    @property
    def repeats(self) -> int:
        return 1 if self.quick else 3


def positions(count: int, seed: int = 0, size: int = 9) -> list[tuple[Position, History]]:
    """Middle-game positions (10 to 50 random moves) with their histories."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        pos, history = Position(size), ()
        for _ in range(rng.randrange(10, 50)):
            history = push_history(history, board_array(pos))
            pos.play(random_move(pos, rng))
        out.append((pos, history))
    return out


def rate(fn, items_per_call: int, seconds: float) -> tuple[float, float]:
    """Items per second of ``fn()`` over about ``seconds`` (after one warm-up call), by
    the wall clock and by this process's CPU time (less sensitive to other load)."""
    fn()
    done, start, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        fn()
        done += items_per_call
    return done / (time.perf_counter() - start), done / max(time.process_time() - cpu, 1e-9)


def percentile(values: list[float], q: float) -> float:
    """The value at rank ``q * (n - 1)`` (rounded) of ``values`` sorted, ``q`` in 0..1."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def model_path(model: Path | None, tmp: Path) -> tuple[Path, str]:
    """``model``, else the shipped one, else a random-weight 6x64 model written in ``tmp``;
    with its description for the report."""
    if model is not None:
        return model, f"`{model}`"
    if SHIPPED.is_file():
        return SHIPPED, f"shipped `{SHIPPED}`"
    from tests.tiny_model import build_tiny_model

    path = build_tiny_model(9, blocks=6, channels=64, name="random-b6c64").save(tmp / "b6c64.onnx")
    return path, "random-weight 6 blocks x 64 channels (`tiny_model`; no shipped model yet)"


def bench_features(config: BenchConfig, sample: list[tuple[Position, History]]) -> list[str]:
    pos, history = sample[0]
    n = 200 if config.quick else 2000
    start = time.perf_counter()
    for _ in range(n):
        encode(pos, history)
    single = (time.perf_counter() - start) / n
    start = time.perf_counter()
    for _ in range(n):
        pos.legal_mask()
    mask = (time.perf_counter() - start) / n
    start = time.perf_counter()
    for _ in range(n):
        pos.copy()
    copy = (time.perf_counter() - start) / n
    batch = [p for p, _ in sample[:64]]
    hist = [h for _, h in sample[:64]]
    legals = [p.legal_mask() for p in batch]
    per_batch = 1.0 / rate(lambda: encode_batch(batch, hist, legals), len(batch), config.seconds)[0]
    return [
        "| feature extraction (9x9) | time per position |",
        "|---|---|",
        f"| `encode(position, history)` incl. legal mask | {single * 1e6:.0f} us |",
        f"| of which `Position.legal_mask()` | {mask * 1e6:.1f} us |",
        f"| `Position.copy()` (a search makes one per new node) | {copy * 1e6:.1f} us |",
        f"| `encode_batch` of 64, legal masks given | {per_batch * 1e6:.1f} us |",
    ]


def bench_raw(config: BenchConfig, path: Path, planes: np.ndarray) -> list[str]:
    sizes = [1, 2, 4, 8, 16, 32, 64]
    evaluators = {t: OnnxEvaluator(path, intra_threads=t) for t in (1, 2)}
    results: dict[int, dict[int, list[float]]] = {t: {b: [] for b in sizes} for t in evaluators}
    for _ in range(config.repeats):
        for b in sizes:
            for t, ev in evaluators.items():
                x = planes[:b]
                results[t][b].append(rate(lambda: ev.run_planes(x), b, config.seconds)[0])
    lines = ["| batch | 1 thread (evals/s) | 2 threads (evals/s) |", "|---|---|---|"]
    for b in sizes:
        lines.append(f"| {b} | {statistics.median(results[1][b]):,.0f} | {statistics.median(results[2][b]):,.0f} |")
    return lines


def search_rate(evaluator, sample: list[tuple[Position, History]], batch: int, pipeline: bool,
                visits: int, engine: str = "python") -> tuple[float, float]:
    """Visits per second over fresh searches of the sample positions (wall, CPU), by
    ``engine`` (``gobuddy.ai.search_engines``; the native search ignores ``pipeline``)."""
    done, spent, cpu = 0, 0.0, time.process_time()
    for pos, history in sample:
        search, _ = make_search(evaluator, SearchConfig(batch_size=batch, pipeline=pipeline), engine)
        search.set_position(pos, history)
        stats = search.run(visits=visits)
        done += stats.visits
        spent += stats.elapsed
    return done / spent, done / max(time.process_time() - cpu, 1e-9)


def bench_search(config: BenchConfig, path: Path, planes: np.ndarray,
                 sample: list[tuple[Position, History]]) -> list[str]:
    evaluators = {t: OnnxEvaluator(path, intra_threads=t) for t in (1, 2)}
    visits = 150 if config.quick else 800
    few = sample[:2] if config.quick else sample[:3]
    lines = ["| inference threads | search batch | pipeline | visits/s | raw evals/s, same moment | "
             "search / raw (wall) | search / raw (CPU time) |", "|---|---|---|---|---|---|---|"]
    cases = [(1, 8, False), (1, 8, True), (1, 16, False), (1, 16, True), (2, 8, True), (2, 16, True)]
    for threads, batch, pipeline in cases:
        ev = evaluators[threads]
        speeds, raws, ratios, cpu_ratios = [], [], [], []
        for _ in range(config.repeats):
            raw, raw_cpu = rate(lambda: ev.run_planes(planes[:batch]), batch, config.seconds)
            speed, speed_cpu = search_rate(ev, few, batch, pipeline, visits)
            raws.append(raw)
            speeds.append(speed)
            ratios.append(speed / raw)
            cpu_ratios.append(speed_cpu / raw_cpu)
        lines.append(f"| {threads} | {batch} | {'on' if pipeline else 'off'} | {statistics.median(speeds):,.0f} | "
                     f"{statistics.median(raws):,.0f} | {statistics.median(ratios):.0%} | "
                     f"{statistics.median(cpu_ratios):.0%} |")
    lines += ["", "Defaults: batch 8 with the pipeline; the engine worker runs 1 inference thread, "
              "`python -m engine_worker.gtp` 2. With the pipeline the network runs on a worker thread "
              "(`StagedEvaluator.infer`) while this thread walks the tree, makes features and backs up: "
              "with a free core the search keeps onnxruntime busy, and the ratio can pass 100% "
              "(the raw figure is taken on other positions)."]
    free = UniformEvaluator()
    lines += ["", "| search overhead (evaluator that costs nothing, batch 8) | wall per visit | CPU per visit |",
              "|---|---|---|"]
    for pipeline in (False, True):
        runs = [search_rate(free, few, 8, pipeline, 4 * visits) for _ in range(config.repeats)]
        wall = statistics.median(1e6 / r[0] for r in runs)
        cpu = statistics.median(1e6 / r[1] for r in runs)
        lines.append(f"| pipeline {'on' if pipeline else 'off'} | {wall:.0f} us | {cpu:.0f} us |")
    lines += ["", "CPU time counts both threads of this process, so with the pipeline on it shows the work, "
              "not the overlap; the wall-clock ratio shows the overlap only when a core is free."]
    return lines


def bench_latency(config: BenchConfig, path: Path, sample: list[tuple[Position, History]]) -> list[str]:
    ev = OnnxEvaluator(path, intra_threads=1)
    budgets = [DEFAULT_VISITS] if config.quick else sorted({100, DEFAULT_VISITS, 400})
    lines = ["| visits | requests | p50 (ms) | p99 (ms) | max (ms) |", "|---|---|---|---|---|"]
    for visits in budgets:
        times = []
        for pos, history in sample:
            search = Search(ev, SearchConfig())  # a stateless worker: no tree to reuse
            start = time.perf_counter()
            result = analyse(search, pos, history, visits=visits, top_k=DEFAULT_TOP_K)
            times.append((time.perf_counter() - start) * 1000.0)
            assert result.moves, "an analysis without moves"
        mark = " (default)" if visits == DEFAULT_VISITS else ""
        lines.append(f"| {visits}{mark} | {len(times)} | {statistics.median(times):.0f} | "
                     f"{percentile(times, 0.99):.0f} | {max(times):.0f} |")
    return lines


def bench_twin(config: BenchConfig, path: Path, planes: np.ndarray,
               sample: list[tuple[Position, History]]) -> list[str]:
    """The model against its int8 twin (``training.quantize``), one inference thread:
    raw throughput at batch 8 and search visits per second, interleaved repeats."""
    from training.quantize import twin_path

    models = {"float": path, "int8 twin": twin_path(path)}
    if not models["int8 twin"].is_file():
        return [f"No int8 twin of {path} (`python -m training.quantize --model {path}` makes it)."]
    evaluators = {name: OnnxEvaluator(p, intra_threads=1) for name, p in models.items()}
    visits = 150 if config.quick else 800
    few = sample[:2] if config.quick else sample[:3]
    raws: dict[str, list[float]] = {name: [] for name in models}
    searches: dict[str, list[float]] = {name: [] for name in models}
    for _ in range(config.repeats):
        for name, ev in evaluators.items():
            raws[name].append(rate(lambda: ev.run_planes(planes[:8]), 8, config.seconds)[0])
            searches[name].append(search_rate(ev, few, 8, True, visits)[0])
    lines = ["| model | file | raw evals/s (batch 8) | search visits/s (batch 8, pipeline) |", "|---|---|---|---|"]
    for name, p in models.items():
        lines.append(f"| {name} | {p.stat().st_size / 1e6:.1f} MB | {statistics.median(raws[name]):,.0f} | "
                     f"{statistics.median(searches[name]):,.0f} |")
    ratio = statistics.median(searches["int8 twin"]) / statistics.median(searches["float"])
    return lines + ["", f"The twin searches {ratio:.1f}x the visits a second of the float model on this CPU."]


def bench_native(config: BenchConfig, path: Path, sample: list[tuple[Position, History]]) -> list[str]:
    """The play-time search in Python against the compiled one (both with the pipeline:
    the same trees), on the int8 twin: visits a second with 1 and 2 inference threads, and the latency of a
    default analysis (fresh tree, 1 thread, as the engine worker runs it); interleaved
    repeats."""
    from training.quantize import twin_path

    twin = twin_path(path)
    if not twin.is_file():
        return [f"No int8 twin of {path} (`python -m training.quantize --model {path}` makes it)."]
    evaluators = {t: OnnxEvaluator(twin, intra_threads=t) for t in (1, 2)}
    visits = 150 if config.quick else 1600
    few = sample[:2] if config.quick else sample[:3]
    speeds: dict[tuple[int, str], list[float]] = {(t, e): [] for t in evaluators for e in ("python", "native")}
    for _ in range(config.repeats):
        for (threads, engine), found in speeds.items():
            found.append(search_rate(evaluators[threads], few, 8, True, visits, engine)[0])
    lines = ["| inference threads | Python search, pipeline (visits/s) | compiled search (visits/s) | ratio |",
             "|---|---|---|---|"]
    for threads in evaluators:
        py, native = (statistics.median(speeds[(threads, e)]) for e in ("python", "native"))
        lines.append(f"| {threads} | {py:,.0f} | {native:,.0f} | **{native / py:.2f}x** |")
    latency = {"python": [], "native": []}
    for pos, history in (sample[:4] if config.quick else sample[:30]):
        for engine, times in latency.items():
            search, _ = make_search(evaluators[1], SearchConfig(), engine)
            start = time.perf_counter()
            analyse(search, pos, history, visits=DEFAULT_VISITS, top_k=DEFAULT_TOP_K)
            times.append((time.perf_counter() - start) * 1000.0)
    lines += ["", f"| analysis of {DEFAULT_VISITS} visits, 1 thread | requests | p50 (ms) | p99 (ms) |",
              "|---|---|---|---|"]
    for engine, times in latency.items():
        lines.append(f"| {'Python search' if engine == 'python' else 'compiled search'} | {len(times)} | "
                     f"{statistics.median(times):.0f} | {percentile(times, 0.99):.0f} |")
    return lines + ["", f"Fresh trees of {visits} visits on 9x9 middle games, batch 8. The compiled search "
                        "(`gobuddy.ai.native_search`) makes the same trees as the Python one, both with the pipeline; "
                        "`python -m engine_worker.gtp` and the engine workers use it (`--search auto`)."]


def run(config: BenchConfig) -> str:
    """All engine figures as one markdown section."""
    with tempfile.TemporaryDirectory() as tmp:
        path, described = model_path(config.model, Path(tmp))
        sample = positions(4 if config.quick else 60)
        planes = encode_batch([p for p, _ in sample[:64]] * 2, [h for _, h in sample[:64]] * 2)[:64]
        if len(planes) < 64:
            planes = np.concatenate([planes] * (64 // len(planes) + 1))[:64]
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        started = time.perf_counter()
        out = ["## Engine", "",
               f"Model: {described}, {path.stat().st_size / 1e6:.1f} MB. Machine: {platform.machine()}, "
               f"{os.cpu_count()} cores, Python {platform.python_version()}, load average {load:.2f} at start "
               "(the machine is shared: figures are medians of interleaved repeats). onnxruntime intra-op "
               "threads as stated, inter-op 1, sequential execution.", ""]
        out += ["### Feature extraction", ""] + bench_features(config, sample) + [""]
        out += ["### Raw onnxruntime throughput", ""] + bench_raw(config, path, planes) + [""]
        out += ["### Search throughput (fresh trees, 9x9 middle games)", ""]
        out += bench_search(config, path, planes, sample) + [""]
        out += ["### The int8 twin (1 inference thread)", ""] + bench_twin(config, path, planes, sample) + [""]
        out += ["### The compiled search at play time (the int8 twin)", ""] + bench_native(config, path, sample) + [""]
        out += [f"### Analysis latency (request to ranked top {DEFAULT_TOP_K}, fresh tree per request, "
                "1 inference thread)", ""]
        out += bench_latency(config, path, sample[:8] if config.quick else sample) + [""]
        out += [f"Default analysis budget: `gobuddy.ai.analysis.DEFAULT_VISITS` = {DEFAULT_VISITS} visits. "
                f"Bench time {time.perf_counter() - started:.0f} s.", ""]
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description="Engine benchmarks (markdown).")
    parser.add_argument("--out", type=Path, default=None, help="write the section here instead of stdout")
    parser.add_argument("--model", type=Path, default=None, help=f"ONNX model (default {SHIPPED} if present)")
    parser.add_argument("--quick", action="store_true", help="a few seconds, for smoke tests")
    args = parser.parse_args()
    config = BenchConfig(model=args.model, out=args.out, quick=args.quick)
    text = run(config)
    if config.out is not None:
        config.out.parent.mkdir(parents=True, exist_ok=True)
        config.out.write_text(text + "\n", encoding="utf-8")
    else:
        print(text)


if __name__ == "__main__":
    main()
