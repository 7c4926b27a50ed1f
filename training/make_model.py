"""Reproduce the shipped model from nothing: ``make model`` (``python -m training.make_model``).

    python -m training.make_model                 # the full recipe (days on 2 cores)
    python -m training.make_model --quick --root /tmp/mm --until export   # a smoke run

Stages, in order; each is skipped when the files it makes are present, and the
long ones resume inside themselves (games and matches are counted on disk, training
continues from ``last.pt``), so an interrupted run is simply started again:

| stage | makes (under ``--root``) |
|---|---|
| ``pachi`` | ``training/pachi/pachi`` (``training/build_pachi.sh``; only if Pachi is used) |
| ``engine-games`` | ``data/games/engine-*.jsonl.gz`` (``training.engine_games`` with the mix) |
| ``positions`` | ``data/positions/engine/`` (``training.positions``) |
| ``train`` | ``runs/make_model/supervised/last.pt`` (``training.train``) |
| ``export`` | ``runs/make_model/supervised/model.onnx`` after the parity check (and its weights ``model.pt``), copied to ``models/candidate.onnx`` |
| ``round-K-selfplay`` | ``data/selfplay/round-K/`` (``training.selfplay`` with the current best model) |
| ``round-K-engine-games`` | ``data/round-games/round-K/`` (``training.engine_games`` with the round's mix) |
| ``round-K-positions`` | ``data/positions/round-K/`` and ``data/positions/round-K-engine/`` |
| ``round-K-train`` | ``runs/make_model/round-K/last.pt``, from the previous stage's checkpoint, on the positions of the last ``window`` rounds (self-play and engine games; ``engine_shards_in_mix`` supervised shards too) |
| ``round-K-export`` | ``runs/make_model/round-K/model.onnx`` (and ``models/candidate.onnx``) |
| ``round-K-gating`` | ``runs/make_model/gating/round-K/gating.json`` (``training.gating`` against the best so far) |
| ``ship`` | ``models/gobuddy-9x9.onnx`` and its torch weights ``models/gobuddy-9x9.pt``: the best model (the last accepted round, else the supervised one); and its int8 twin ``models/gobuddy-9x9.int8.onnx`` (``training.quantize``) |
| ``strength-gnugo``, ``strength-pachi``, ``strength-policy`` | ``runs/make_model/strength/SHA/*/summary.json``: our default search vs GNU Go, vs Pachi, and the raw policy (1 visit) vs GNU Go |
| ``card`` | ``models/MODEL_CARD.md`` (``training.model_card``), rewritten every run |

The default plan is the recipe of the shipped line (models/MODEL_CARD.md, "Lineage"): a
supervised start on about 1,600 engine games, mostly GNU Go levels 1-4 (sl1), then five
rounds like r3-r5 of ``training.improve``, which counts minutes where this counts games
(1,400 self-play games of 200/50 visits and 300 engine games a round, 3,000 steps at lr
0.015 from the previous round's weights, a window of three rounds, gating at 55%). It
takes about 10 hours on two cores (rounds of about 85 minutes, the supervised start and
the strength matches); it has not been run end to end at these counts.

Wall time per stage accumulates in ``runs/make_model/stages.json``. ``--until STAGE``
stops after that stage. ``--quick`` swaps in tiny counts (a few games, a 1x8 network,
a handful of steps) for tests; its results mean nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from training.game_shards import count_games, shard_paths
from training.quantize import refresh_twin, twin_is_current
from training.positions import build as build_positions

REPO = Path(__file__).resolve().parent.parent
SHIPPED = "gobuddy-9x9.onnx"


@dataclass(frozen=True)
class Plan:
    """The recipe: counts, network size and schedules. Paths hang off ``root``."""

    root: Path = Path(".")
    size: int = 9
    komi: float = 7.0
    seed: int = 1
    workers: int = 2
    # Supervised start (sl1): 1,475 games of GNU Go levels 1-4 and 111 of GNU Go 5-10 and
    # Pachi 1,000-3,000 playouts, made as two runs; one weighted mix gives about that share.
    engine_games: int = 1_600
    engine_mix: str = "gnugo:1-4*50,gnugo:5-10,pachi:1000-3000"
    engine_max_moves: int | None = None
    val_every: int = 20
    blocks: int = 6
    channels: int = 64
    steps: int = 4_000
    batch_size: int = 128
    lr: float = 0.05
    warmup: int = 200
    train_threads: int = 2
    # Rounds (r3-r5 of training.improve, counted in games rather than minutes).
    rounds: int = 5
    selfplay_games: int = 1_400
    selfplay_visits: int = 200
    selfplay_fast_visits: int = 50
    selfplay_full_fraction: float = 0.35
    selfplay_max_moves: int | None = None
    round_engine_games: int = 300
    round_engine_mix: str = "gnugo:8-10,pachi:2000-5000*2"
    round_steps: int = 3_000
    round_lr: float = 0.015
    round_batch_size: int = 256
    window: int = 3
    engine_shards_in_mix: int = 0
    gate_games: int = 40
    gate_visits: int = 200
    gate_threshold: float = 0.55
    strength_games: int = 40
    gnugo_level: int = 10
    # Pachi's playouts a move (0 skips the Pachi match): about 1 s a move on the Intel Xeon
    # of 2026-11-25 (the card's rows); the slower AMD EPYC of 11-24 needed 20,000.
    pachi_playouts: int = 27_000
    ours_args: str = ""  # our engine at its defaults (4,000 visits or 0.9 s a move)
    match_max_moves: int | None = None
    until: str | None = None
    progress: bool = True

    def path(self, *parts: str) -> Path:
        return self.root.joinpath(*parts)

    @property
    def runs(self) -> Path:
        return self.path("runs", "make_model")

    @property
    def needs_pachi(self) -> bool:
        return ("pachi" in self.engine_mix or (self.rounds > 0 and self.round_engine_games > 0
                and "pachi" in self.round_engine_mix) or self.pachi_playouts > 0)


def quick_plan(root: Path, workers: int = 2) -> Plan:
    """Tiny counts for tests: two GNU Go level 1 games, a 1x8 network, 1 round (of two
    self-play and two GNU Go level 1 games)."""
    return Plan(root=root, workers=workers, engine_games=2, engine_mix="gnugo:1", engine_max_moves=60,
                val_every=1000, blocks=1, channels=8, steps=3, batch_size=16, warmup=1, train_threads=1,
                rounds=1, selfplay_games=2, selfplay_visits=4, selfplay_fast_visits=2, selfplay_max_moves=40,
                round_engine_games=2, round_engine_mix="gnugo:1", round_steps=2, round_batch_size=16,
                engine_shards_in_mix=1, gate_games=2, gate_visits=2, strength_games=2, gnugo_level=1,
                pachi_playouts=0, ours_args="--visits 4", match_max_moves=40)


class ReachedUntil(Exception):
    """The stage named by ``--until`` is done."""


class StageLog:
    """Runs stages, skips finished ones, and keeps their wall time in ``stages.json``."""

    def __init__(self, path: Path, until: str | None, prefix: str = "make_model") -> None:
        self.path = path
        self.until = until
        self.prefix = prefix
        self.stages: dict[str, dict] = json.loads(path.read_text()) if path.exists() else {}

    def run(self, name: str, work: Callable[[], object], done: Callable[[], bool] | None) -> None:
        """Run ``work`` unless ``done()`` says its output exists (``done=None``: always run),
        then check that ``done()`` holds."""
        entry = self.stages.setdefault(name, {"seconds": 0.0})
        if done is not None and done():
            print(f"[{self.prefix}] {name}: already done", flush=True)
        else:
            print(f"[{self.prefix}] {name}: running", flush=True)
            start = time.time()
            try:
                work()
            finally:
                entry["seconds"] = round(entry["seconds"] + time.time() - start, 1)
                entry["finished"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
                self.save()
            if done is not None and not done():
                raise RuntimeError(f"stage {name} ended without making its output")
            print(f"[{self.prefix}] {name}: done ({entry['seconds']:.0f} s in all)", flush=True)
        self.save()
        if name == self.until:
            raise ReachedUntil(name)

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(self.stages, indent=1) + "\n")


def file_digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def checkpoint_step(path: Path) -> int:
    """The step of a ``last.pt`` (-1 when there is none)."""
    if not path.exists():
        return -1
    import torch

    return int(torch.load(path, map_location="cpu", weights_only=False)["step"])


def positions_built(games: Path, out: Path) -> bool:
    manifest = out / "built.json"
    if not manifest.exists() or not shard_paths(games):
        return False
    return {str(p) for p in shard_paths(games)} <= set(json.loads(manifest.read_text()))


def run_engine_games(plan: Plan, out: Path, games: int, mix: str, seed: int) -> None:
    from training.engine_games import main

    argv = ["--out", str(out), "--games", str(games), "--mix", mix, "--workers", str(plan.workers),
            "--seed", str(seed), "--size", str(plan.size), "--komi", str(plan.komi)]
    argv += ["--max-moves", str(plan.engine_max_moves)] if plan.engine_max_moves else []
    argv += [] if plan.progress else ["--no-progress"]
    code = main(argv)
    if code == 130:
        raise KeyboardInterrupt
    if code != 0:
        raise RuntimeError(f"engine games failed (exit {code})")


def link_mix(plan: Plan, k: int) -> Path:
    """``data/positions/mix-K``: links to the shards of rounds K-window+1..K (self-play and
    the round's engine games) and the last ``engine_shards_in_mix`` training shards of the
    supervised engine games (validation: all of theirs)."""
    mix = plan.path("data", "positions", f"mix-{k}")
    if mix.exists():
        shutil.rmtree(mix)
    mix.mkdir(parents=True)
    sources = {"engine": plan.path("data", "positions", "engine")}
    for r in range(max(1, k - plan.window + 1), k + 1):
        sources[f"r{r}"] = plan.path("data", "positions", f"round-{r}")
        sources[f"r{r}engine"] = plan.path("data", "positions", f"round-{r}-engine")
    for tag, folder in sources.items():
        for split in ("train", "val"):
            shards = sorted(folder.glob(f"{split}-*.npz"))
            if tag == "engine" and split == "train":
                shards = shards[-plan.engine_shards_in_mix:] if plan.engine_shards_in_mix > 0 else []
            for shard in shards:
                (mix / f"{split}-{tag}-{shard.name.split('-', 1)[1]}").symlink_to(shard.resolve())
    return mix


def train_run(plan: Plan, data: Path, run: Path, steps: int, lr: float, warmup: int, init: Path | None,
              batch_size: int) -> None:
    from gobuddy.ai.features import NUM_PLANES
    from training.train import TrainConfig, train

    config = TrainConfig(data=data, run=run, size=plan.size, steps=steps, batch_size=batch_size, lr=lr,
                         warmup=warmup, blocks=plan.blocks, channels=plan.channels,
                         validate_every=min(1000, steps), checkpoint_every=min(500, steps),
                         threads=plan.train_threads, seed=plan.seed, init=init)
    train(config, NUM_PLANES)


def export_run(plan: Plan, run: Path, label: str, data: Path) -> None:
    """Export ``run/last.pt`` to ``run/model.onnx`` after the parity check on positions
    of ``data``, and copy it to ``models/candidate.onnx``."""
    import numpy as np
    import torch

    from training.export import export_onnx, parity_check, save_weights
    from training.network import GoNet, NetConfig, count_parameters
    from training.model_card import machine
    from training.position_shards import load_shard

    state = torch.load(run / "last.pt", map_location="cpu", weights_only=False)
    model = GoNet(NetConfig(**state["net"]))
    model.load_state_dict(state["model"])
    games = count_games(plan.path("data", "games"))
    selfplay = sum(count_games(p) for p in plan.path("data", "selfplay").glob("round-*"))
    round_games = sum(count_games(p) for p in plan.path("data", "round-games").glob("round-*"))
    provenance = {"data": f"{games} engine games ({plan.engine_mix}), {selfplay} self-play games, "
                          f"{round_games} engine games of the rounds ({plan.round_engine_mix})",
                  "stage": label, "steps": int(state["step"]),
                  "architecture": f"{plan.blocks} blocks x {plan.channels} channels",
                  "parameters": count_parameters(model), "komi": plan.komi,
                  "date": datetime.now(timezone.utc).date().isoformat(), "machine": machine()["cpu"]}
    tmp = export_onnx(model, run / "export.onnx", plan.size, provenance=provenance, komi=plan.komi,
                      model_name=f"gobuddy-{plan.size}x{plan.size}-b{plan.blocks}c{plan.channels}-{label}")
    shard = load_shard((sorted(data.glob("train-*.npz")) + sorted(data.glob("val-*.npz")))[0])
    worst = parity_check(model, tmp, shard["features"][:16].astype(np.float32))
    print(f"[make_model] parity: torch and onnxruntime agree within {worst:.1e}", flush=True)
    os.replace(tmp, run / "model.onnx")
    save_weights(model, run / "model.pt", int(state["step"]), provenance)
    plan.path("models").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(run / "model.onnx", plan.path("models", "candidate.onnx"))


def exported(run: Path) -> bool:
    model, ckpt = run / "model.onnx", run / "last.pt"
    return model.exists() and ckpt.exists() and model.stat().st_mtime >= ckpt.stat().st_mtime


def best_model(plan: Plan, before_round: int) -> Path:
    """The last round before ``before_round`` whose candidate passed gating, else the supervised model."""
    for k in range(before_round - 1, 0, -1):
        verdict = plan.runs / "gating" / f"round-{k}" / "gating.json"
        if verdict.exists() and json.loads(verdict.read_text())["accepted"]:
            return plan.runs / f"round-{k}" / "model.onnx"
    return plan.runs / "supervised" / "model.onnx"


def run_round(plan: Plan, log: StageLog, k: int) -> None:
    from training.gating import GateConfig, gate
    from training.gtp_game import GameRules
    from training.selfplay import GameSettings, SelfPlayConfig, false_resignations, generate

    best = best_model(plan, k)
    games = plan.path("data", "selfplay", f"round-{k}")
    engine_games = plan.path("data", "round-games", f"round-{k}")
    positions = plan.path("data", "positions", f"round-{k}")
    engine_positions = plan.path("data", "positions", f"round-{k}-engine")
    run = plan.runs / f"round-{k}"
    previous = plan.runs / ("supervised" if k == 1 else f"round-{k - 1}") / "last.pt"
    settings = GameSettings(size=plan.size, komi=plan.komi, visits=plan.selfplay_visits,
                            fast_visits=plan.selfplay_fast_visits, full_fraction=plan.selfplay_full_fraction,
                            max_moves=plan.selfplay_max_moves)

    def selfplay() -> None:
        added = generate(SelfPlayConfig(best, games, plan.selfplay_games, settings, plan.workers,
                                        seed=plan.seed * 1000 + k, progress=plan.progress))
        wrong, noted = false_resignations(added)
        print(f"[make_model] self-play with {best}: {len(added)} games; resignation would have been wrong "
              f"in {wrong} of {noted} games played out", flush=True)

    log.run(f"round-{k}-selfplay", selfplay,
            lambda: count_games(games, "selfplay") >= plan.selfplay_games)
    log.run(f"round-{k}-engine-games",
            lambda: run_engine_games(plan, engine_games, plan.round_engine_games, plan.round_engine_mix,
                                     plan.seed * 1000 + 500 + k),
            lambda: count_games(engine_games, "engine") >= plan.round_engine_games)

    def round_positions() -> None:
        build_positions(games, positions, plan.val_every)
        if plan.round_engine_games > 0:
            build_positions(engine_games, engine_positions, plan.val_every)

    log.run(f"round-{k}-positions", round_positions,
            lambda: positions_built(games, positions) and (
                plan.round_engine_games == 0 or positions_built(engine_games, engine_positions)))
    log.run(f"round-{k}-train",
            lambda: train_run(plan, link_mix(plan, k), run, plan.round_steps, plan.round_lr,
                              min(100, plan.round_steps), previous, plan.round_batch_size),
            lambda: checkpoint_step(run / "last.pt") >= plan.round_steps)
    log.run(f"round-{k}-export", lambda: export_run(plan, run, f"r{k}", positions), lambda: exported(run))
    rules = GameRules(size=plan.size, komi=plan.komi, max_moves=plan.match_max_moves)
    gate_out = plan.runs / "gating" / f"round-{k}"
    log.run(f"round-{k}-gating",
            lambda: print("[make_model] " + gate(GateConfig(
                run / "model.onnx", best, gate_out, plan.gate_games, plan.gate_visits, plan.gate_threshold,
                rules=rules, parallel=plan.workers, seed=plan.seed, progress=plan.progress)).line()),
            lambda: (gate_out / "gating.json").exists())


def strength_matches(plan: Plan) -> dict[str, tuple[str, str, Path]]:
    """Stage name -> (our engine text, opponent text, match folder) for the shipped model."""
    shipped = plan.path("models", SHIPPED)
    folder = plan.runs / "strength" / file_digest(shipped)[:12]
    ours = f"ours:--model {shipped.resolve()} {plan.ours_args}".strip()
    matches = {"strength-gnugo": (ours, f"gnugo:{plan.gnugo_level}", folder / "vs-gnugo")}
    if plan.pachi_playouts > 0:
        matches["strength-pachi"] = (ours, f"pachi:{plan.pachi_playouts}", folder / "vs-pachi")
    matches["strength-policy"] = (f"ours:--model {shipped.resolve()} --visits 1", f"gnugo:{plan.gnugo_level}",
                                  folder / "policy-vs-gnugo")
    return matches


def match_done(out: Path, games: int) -> bool:
    summary = out / "summary.json"
    return summary.exists() and json.loads(summary.read_text())["games"] >= games


def run_strength(plan: Plan, ours_text: str, opponent: str, out: Path, name: str) -> None:
    from training.engine_spec import parse_engine
    from training.gtp_game import GameRules
    from training.match import MatchConfig, run_match

    rules = GameRules(size=plan.size, komi=plan.komi, max_moves=plan.match_max_moves)
    config = MatchConfig(parse_engine(ours_text, name=name), parse_engine(opponent), out, plan.strength_games,
                         rules, parallel=1, seed=plan.seed, progress=plan.progress)
    run_match(config)


def write_card(plan: Plan) -> None:
    from training.model_card import collect, render

    matches = strength_matches(plan)
    labels = {"strength-gnugo": f"search vs GNU Go level {plan.gnugo_level}",
              "strength-pachi": f"search vs Pachi {plan.pachi_playouts} playouts",
              "strength-policy": f"raw policy (1 visit) vs GNU Go level {plan.gnugo_level}"}
    data = {"engine games": plan.path("data", "games")}
    for k in range(1, plan.rounds + 1):
        data[f"self-play round {k}"] = plan.path("data", "selfplay", f"round-{k}")
        data[f"engine games round {k}"] = plan.path("data", "round-games", f"round-{k}")
    checkpoints = {"supervised": plan.runs / "supervised" / "last.pt"}
    checkpoints.update({f"round {k}": plan.runs / f"round-{k}" / "last.pt" for k in range(1, plan.rounds + 1)})
    facts = collect(plan.path("models", SHIPPED), data, checkpoints, plan.runs / "stages.json",
                    {labels[name]: out / "summary.json" for name, (_, _, out) in matches.items()},
                    {k: plan.runs / "gating" / f"round-{k}" / "gating.json" for k in range(1, plan.rounds + 1)})
    plan.path("models", "MODEL_CARD.md").write_text(render(facts))


def ship(best: Path, shipped: Path) -> None:
    """Copy the best model and its torch weights (``model.pt`` beside it) to ``models/``,
    and make its int8 twin (``training.quantize``)."""
    shutil.copyfile(best.with_suffix(".pt"), shipped.with_suffix(".pt"))
    shutil.copyfile(best, shipped)
    refresh_twin(shipped)


def stage_names(plan: Plan) -> list[str]:
    """Every stage of ``plan``, in the order they run."""
    names = (["pachi"] if plan.needs_pachi else []) + ["engine-games", "positions", "train", "export"]
    for k in range(1, plan.rounds + 1):
        names += [f"round-{k}-{step}" for step in ("selfplay", "engine-games", "positions", "train", "export",
                                                   "gating")]
    pachi = ["strength-pachi"] if plan.pachi_playouts > 0 else []
    return names + ["ship", "strength-gnugo"] + pachi + ["strength-policy", "card"]


def make_model(plan: Plan) -> None:
    """Run every stage not yet done (see the module docstring)."""
    log = StageLog(plan.runs / "stages.json", plan.until)
    try:
        if plan.needs_pachi:
            log.run("pachi", lambda: subprocess.run(["bash", str(REPO / "training" / "build_pachi.sh"),
                                                     sys.executable], check=True),
                    lambda: (REPO / "training" / "pachi" / "pachi").exists())
        games = plan.path("data", "games")
        engine_positions = plan.path("data", "positions", "engine")
        supervised = plan.runs / "supervised"
        log.run("engine-games", lambda: run_engine_games(plan, games, plan.engine_games, plan.engine_mix, plan.seed),
                lambda: count_games(games, "engine") >= plan.engine_games)
        log.run("positions", lambda: build_positions(games, engine_positions, plan.val_every),
                lambda: positions_built(games, engine_positions))
        log.run("train", lambda: train_run(plan, engine_positions, supervised, plan.steps, plan.lr, plan.warmup,
                                           None, plan.batch_size),
                lambda: checkpoint_step(supervised / "last.pt") >= plan.steps)
        log.run("export", lambda: export_run(plan, supervised, "sl", engine_positions), lambda: exported(supervised))
        for k in range(1, plan.rounds + 1):
            run_round(plan, log, k)
        best, shipped = best_model(plan, plan.rounds + 1), plan.path("models", SHIPPED)
        log.run("ship", lambda: ship(best, shipped),
                lambda: shipped.exists() and file_digest(shipped) == file_digest(best)
                and shipped.with_suffix(".pt").exists() and twin_is_current(shipped))
        for name, (ours, opponent, out) in strength_matches(plan).items():
            label = "gobuddy-policy" if name == "strength-policy" else "gobuddy"
            log.run(name, lambda o=ours, b=opponent, f=out, n=label: run_strength(plan, o, b, f, n),
                    lambda f=out: match_done(f, plan.strength_games))
        log.run("card", lambda: write_card(plan), None)
    except ReachedUntil as reached:
        print(f"[make_model] stopped after {reached} (--until)", flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.make_model", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--root", type=Path, default=Path("."), help="where data/, runs/ and models/ live (default .)")
    p.add_argument("--quick", action="store_true", help="tiny counts, for tests")
    p.add_argument("--until", help="stop after this stage (e.g. export, round-1-gating)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="game processes (default: cores)")
    p.add_argument("--rounds", type=int, help="self-play rounds")
    p.add_argument("--engine-games", type=int, help="engine games to generate")
    p.add_argument("--selfplay-games", type=int, help="self-play games per round")
    p.add_argument("--steps", type=int, help="supervised training steps")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    plan = quick_plan(args.root, args.workers) if args.quick else Plan(root=args.root, workers=args.workers)
    overrides = {"rounds": args.rounds, "engine_games": args.engine_games, "selfplay_games": args.selfplay_games,
                 "steps": args.steps}
    plan = replace(plan, seed=args.seed, until=args.until, progress=not args.no_progress,
                   **{k: v for k, v in overrides.items() if v is not None})
    if plan.until is not None and plan.until not in stage_names(plan):
        p.error(f"--until {plan.until!r} is not a stage of this plan: {', '.join(stage_names(plan))}")
    try:
        make_model(plan)
    except KeyboardInterrupt:
        print("\n[make_model] stopped; run it again to continue", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
