"""The model card: how the shipped model was made and how strong and fast it is.

``collect`` gathers the facts from files a ``training.make_model`` run leaves behind
and from the model itself; ``render`` writes them as Markdown:

- data: games by source (engine pairings such as ``gnugo vs pachi``, self-play by
  round), read from the game shards;
- training: steps per stage, from the checkpoints' step counts;
- network: blocks x channels and parameters (from the model's provenance metadata),
  file size;
- speed: network evaluations per second at batch 1 and 16 with onnxruntime (one
  thread), measured on this machine when the card is written;
- wall time per stage (``stages.json``) and the machine (cores, CPU model from
  ``/proc/cpuinfo``);
- strength: one row per match summary (``training.match``'s ``summary.json``) with
  W-L(-jigo), win rate, Wilson 95% interval and our seconds per move;
- gating: the verdict of each round.

Not checked: that the files belong to the same run (the caller passes the paths).
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from training.game_shards import iter_samples, shard_paths
from training.make_model import checkpoint_step

__all__ = ["CardFacts", "collect", "engine_kind", "games_by_source", "machine", "measure_speed", "render",
           "strength_row"]


@dataclass
class CardFacts:
    """Everything the card shows; each field is plain data."""

    model: str
    model_name: str
    file_bytes: int
    provenance: dict[str, Any]
    data: list[tuple[str, int]]
    steps: list[tuple[str, int]]
    speed: dict[int, float]
    stages: dict[str, dict[str, Any]]
    machine: dict[str, Any]
    strength: list[dict[str, Any]]
    gating: list[dict[str, Any]] = field(default_factory=list)


def engine_kind(name: str) -> str:
    """``gnugo-7`` -> ``gnugo``, ``pachi-2000`` -> ``pachi``; other names unchanged."""
    head, _, tail = name.rpartition("-")
    return head if head and tail.isdigit() else name


def games_by_source(folders: dict[str, Path]) -> list[tuple[str, int]]:
    """Game counts per label: engine games split by pairing (``gnugo vs pachi``, the two
    kinds sorted), any other source under its folder label."""
    counts: Counter[str] = Counter()
    for label, folder in folders.items():
        if not Path(folder).is_dir() or not shard_paths(folder):
            continue
        for sample in iter_samples(folder):
            if sample.source == "engine":
                kinds = sorted((engine_kind(sample.black), engine_kind(sample.white)))
                counts[f"{label}: {kinds[0]} vs {kinds[1]}"] += 1
            else:
                counts[label] += 1
    return sorted(counts.items())


def measure_speed(model: Path, batch_sizes: tuple[int, ...] = (1, 16), seconds: float = 1.0) -> dict[int, float]:
    """Evaluations per second of ``model`` with onnxruntime (one intra-op thread) on
    random 0/1 planes, per batch size, each timed for about ``seconds``."""
    from gobuddy.ai.onnx_evaluator import OnnxEvaluator

    evaluator = OnnxEvaluator(model, intra_threads=1, max_batch=max(batch_sizes))
    size = evaluator.board_sizes[0]
    planes = evaluator.session.get_inputs()[0].shape[1]
    rng = np.random.default_rng(0)
    out = {}
    for batch in batch_sizes:
        x = (rng.random((batch, planes, size, size)) < 0.3).astype(np.float32)
        evaluator.run_planes(x)  # warm-up
        runs, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            evaluator.run_planes(x)
            runs += 1
        out[batch] = runs * batch / (time.perf_counter() - start)
    return out


def machine(cpuinfo: Path = Path("/proc/cpuinfo")) -> dict[str, Any]:
    """Core count and CPU model name (``unknown`` where ``cpuinfo`` does not say)."""
    cpu = "unknown"
    if cpuinfo.exists():
        for line in cpuinfo.read_text(errors="replace").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return {"nproc": os.cpu_count(), "cpu": cpu}


def strength_row(label: str, summary_path: Path) -> dict[str, Any]:
    """One strength-table row from a match ``summary.json`` (engine A is ours)."""
    s = json.loads(Path(summary_path).read_text())
    ours = s["seconds_per_move"].get(s["engine_a"], {})
    return {"label": label, "opponent": s["engine_b"], "games": s["games"], "wins": s["a_wins"],
            "losses": s["a_losses"], "jigo": s["jigo"], "void": s["void"], "win_rate": s["a_win_rate"],
            "wilson95": s["a_win_rate_wilson95"], "seconds_per_move": ours.get("mean_s"),
            "settings": s.get("config", {}).get("argv_a", "")}


def collect(model: Path, data: dict[str, Path], checkpoints: dict[str, Path], stages_json: Path,
            strength: dict[str, Path], gating: dict[str, Path], speed_seconds: float = 1.0) -> CardFacts:
    """Gather the card's facts. ``data``: label -> game shard folder; ``checkpoints``:
    stage -> ``last.pt``; ``strength``: row label -> ``summary.json``; ``gating``: round
    -> ``gating.json``. Missing files are left out (a card of a partial run)."""
    import onnx

    proto = onnx.load(str(model), load_external_data=False)
    meta = {p.key: p.value for p in proto.metadata_props}
    steps = [(stage, checkpoint_step(Path(path))) for stage, path in checkpoints.items() if Path(path).exists()]
    stages = json.loads(stages_json.read_text()) if stages_json.exists() else {}
    rows = [strength_row(label, p) for label, p in strength.items() if Path(p).exists()]
    gates = [{"round": r, **json.loads(Path(p).read_text())} for r, p in gating.items() if Path(p).exists()]
    return CardFacts(model=str(model), model_name=meta.get("gobuddy.model_name", "?"),
                     file_bytes=Path(model).stat().st_size,
                     provenance=json.loads(meta.get("gobuddy.provenance", "{}")),
                     data=games_by_source(data), steps=steps, speed=measure_speed(model, seconds=speed_seconds),
                     stages=stages, machine=machine(), strength=rows, gating=gates)


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}h {rest // 60:02d}m" if hours else f"{rest // 60}m {rest % 60:02d}s"


def _rate(row: dict[str, Any]) -> str:
    if row["win_rate"] is None:
        return "- | -"
    low, high = row["wilson95"]
    return f"{row['win_rate']:.1%} | {low:.1%} – {high:.1%}"


def render(facts: CardFacts) -> str:
    """The card as Markdown."""
    prov = facts.provenance
    lines = [f"# Model card: {facts.model_name}", "",
             f"File `{facts.model}` ({facts.file_bytes / 1e6:.2f} MB), a policy/value network with score and "
             "ownership heads for 9x9 Go, served by onnxruntime under MCTS (`gobuddy.ai`). "
             "Made by `make model` (`python -m training.make_model`); this card is written by it.", "",
             "## Network", "",
             f"- architecture: {prov.get('architecture', '?')}",
             f"- parameters: {prov.get('parameters', '?'):,}" if isinstance(prov.get("parameters"), int)
             else "- parameters: ?",
             f"- komi it was trained for: {prov.get('komi', '?')}",
             "- speed (onnxruntime, 1 thread): " + ", ".join(f"{v:,.0f} evals/s at batch {b}"
                                                            for b, v in facts.speed.items()), "",
             "## Data", "", "| source | games |", "|---|---|"]
    lines += [f"| {label} | {count:,} |" for label, count in facts.data] or ["| - | 0 |"]
    lines += ["", "## Training", "", "| stage | steps |", "|---|---|"]
    lines += [f"| {stage} | {steps:,} |" for stage, steps in facts.steps] or ["| - | 0 |"]
    if facts.gating:
        lines += ["", "## Gating (candidate vs current best, same visits)", "",
                  "| round | W-L(-jigo) | win rate | needed | games | distinct | verdict |", "|---|---|---|---|---|---|---|"]
        for g in facts.gating:
            rate = "-" if g["win_rate"] is None else f"{g['win_rate']:.1%}"
            record = f"{g['wins']}-{g['losses']}" + (f"-{g['jigo']}" if g["jigo"] else "")
            lines.append(f"| {g['round']} | {record} | {rate} | {g['threshold']:.0%} "
                         f"| {g['games']}/{g['planned']} | {g['distinct_games']} "
                         f"| {'accepted' if g['accepted'] else 'rejected'} |")
    lines += ["", "## Strength", "",
              "| match | opponent | W-L(-jigo) | win rate | Wilson 95% | our s/move | our settings |",
              "|---|---|---|---|---|---|---|"]
    for r in facts.strength:
        record = f"{r['wins']}-{r['losses']}" + (f"-{r['jigo']}" if r["jigo"] else "")
        spm = "-" if r["seconds_per_move"] is None else f"{r['seconds_per_move']:.2f}"
        settings = r["settings"].split("engine_worker.gtp", 1)[-1].strip() or "defaults"
        lines.append(f"| {r['label']} | {r['opponent']} | {record} | {_rate(r)} | {spm} | `{settings}` |")
    if not facts.strength:
        lines.append("| not measured yet | | | | | | |")
    total = sum(s.get("seconds", 0.0) for s in facts.stages.values())
    lines += ["", "## Wall time", "",
              f"Machine: {facts.machine['nproc']} cores, {facts.machine['cpu']}.", "",
              "| stage | wall time |", "|---|---|"]
    lines += [f"| {name} | {_duration(s.get('seconds', 0.0))} |" for name, s in facts.stages.items()]
    lines += [f"| total | {_duration(total)} |", ""]
    return "\n".join(lines)
