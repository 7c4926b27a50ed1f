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
| ``round-K-selfplay`` | ``data/selfplay/round-K/`` (``training.selfplay`` with the current best model; in a late round its int8 twin) |
| ``round-K-engine-games`` | ``data/round-games/round-K/`` (``training.engine_games`` with the round's mix) |
| ``round-K-positions`` | ``data/positions/round-K/`` and ``data/positions/round-K-engine/`` |
| ``round-K-train`` | ``runs/make_model/round-K/last.pt``: an early round from the previous round's checkpoint, on the positions of the last ``window`` rounds (self-play and engine games; ``engine_shards_in_mix`` supervised shards too); a late round from the best model's weights, on its own positions (from the second late round on, written by policy surprise under the twin that played) |
| ``round-K-export`` | ``runs/make_model/round-K/model.onnx`` (and ``models/candidate.onnx``) |
| ``round-K-gating`` | ``runs/make_model/gating/round-K/gating.json`` (``training.gating`` against the best so far) |
| ``grow-selfplay``, ``grow-positions`` | ``data/selfplay/grow/`` (the best 6x64 model's twin) and ``data/positions/grow/`` (surprise-weighted) |
| ``grow-init``, ``grow-train-I``, ``grow-export`` | ``runs/make_model/grow/init.pt`` (the best grown by ``training.widen`` and ``training.deepen``), ``runs/make_model/grow-I/`` (one run per part of the schedule) and the last part's ``model.onnx`` |
| ``dagger-K-games``, ``-import``, ``-relabel``, ``-positions`` | ``data/dagger/round-K/{match,games,reanalysed,positions}`` (``training.dagger``: the grown model's raw policy against GNU Go, every move labelled by its twin's search) |
| ``dagger-K-train``, ``dagger-K-export`` | ``runs/make_model/dagger-K/`` on ``data/positions/mix-dagger-K`` (the grown positions and the batches so far) |
| ``grow-gating`` | ``runs/make_model/gating/grow/gating.json``: the grown line's twin against the best 6x64 twin, both searching the same seconds a move |
| ``ship`` | ``models/gobuddy-9x9.onnx`` and its torch weights ``models/gobuddy-9x9.pt``: the grown line's model when it passed ``grow-gating``, else the best 6x64 model (the last accepted round, else the supervised one); and its int8 twin ``models/gobuddy-9x9.int8.onnx`` (``training.quantize``) |
| ``s13-start`` | ``runs/make_model/s13-start/model.onnx``: the best 6x64 9x9 weights (the shipped ones with ``--no-grow``) exported at 13x13 (``training.export.export_weights``) |
| ``s13-round-K-*`` | the 13x13 line's rounds, as the late rounds but at 13x13 (no engine games), each on every game of the line so far, gated at 13x13 against its best |
| ``s13-ship`` | ``models/gobuddy-13x13.onnx``, its weights and its twin: the line's best |
| ``strength-gnugo``, ``strength-pachi``, ``strength-policy``, ``strength-13x13-gnugo`` | ``runs/make_model/strength/SHA/*/summary.json``: our default search vs GNU Go, vs Pachi, and the raw policy (1 visit) vs GNU Go; the 13x13 model's search vs GNU Go at 13x13 |
| ``card`` | ``models/MODEL_CARD.md`` (``training.model_card``), rewritten every run |

The default plan is the recipe of the shipped lines (models/MODEL_CARD.md, "Lineage",
"Rounds after r5" and "13x13"):

- a supervised start on about 1,600 engine games, mostly GNU Go levels 1-4 (sl1);
- five early rounds like r3-r5 of ``training.improve``, which counts minutes where this
  counts games: 1,400 self-play games of 200/50 visits and 300 engine games a round,
  3,000 steps at lr 0.015 from the previous round's weights, a window of three rounds,
  gating at 55%;
- two late rounds. The first is r12's recipe: 10,000 games of the best model (r12
  trained on about 9,400 r5 games of r6-r11 and 757 of its own) played by its int8 twin,
  and 800 engine games; 3,000 steps at lr 0.003 from the best model's weights. The second
  is r18's: 10,000 more games of the best model's twin (r18 trained on about 10,900 of
  r12's twin, r14-r18), no engine games, the positions written by policy surprise under
  that twin (``training.surprise``); 2,000 steps at lr 0.003 from the best's weights;
- the 9x96 line (shipped since the twenty-eighth session; ``--no-grow`` leaves it out): 30,000 more
  games of the best model's twin (r19-r21), the best grown to 9 blocks of 96 channels and
  trained 5,000 steps at lr 0.01 and 5,000 at 0.003 on them (r21-w96d9 and its
  continuation), then two DAgger rounds (w96d9-dagger1 and -dagger2b: 400 raw-policy games
  against GNU Go 10 a round, labelled at 400 visits, about 8% of the mix, 3,000 steps at
  lr 0.003), shipped only if it then wins gating at equal time (0.9 s a move);
- the 13x13 line, s13r1-s13r4's recipe: the best 6x64 9x9 weights exported at 13x13, then
  four rounds of 700 twin self-play games at 13x13, 600 steps at lr 0.003 from the line's
  best, each on every game of the line (s13r1 trained 1,000 steps at lr 0.01 on 297 games
  and was rejected; the recipe keeps what worked).

Where the lineage differs (r6-r11 varied the self-play search, s13r1-s13r4 counted
minutes), the recipe takes the settings of the rounds that were promoted. On two cores
the supervised start and early rounds take about 10 hours, each late round about 3 more
(the twin's 3,200 games a core-hour, the engine games, training), the 9x96 line about 7
(its 30,000 games about 2, its training about 4, the DAgger games, labels and gating 1) and
the 13x13 line about 4 (750 games a core-hour); it has not been run end to end at these counts (``tests/training/test_make_model.py`` runs every stage at
tiny counts).

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
from training.quantize import twin_is_current
from training.shipping import is_shipped, ship
from training.positions import build as build_positions

REPO = Path(__file__).resolve().parent.parent
SHIPPED = "gobuddy-9x9.onnx"
SHIPPED_13 = "gobuddy-13x13.onnx"
S13 = "s13-"  # the 13x13 line's prefix: its rounds, folders and stages
GROW = "grow"  # the grown 9x9 line's ``line`` in export_run


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
    # Late rounds (r12's recipe, after r6-r11): many games of the best model, played by its
    # int8 twin, and a gentle fine-tune from its weights on every game of the late rounds.
    # From the second on, r18's recipe: the twin's games only, written by policy surprise
    # under the twin (training.surprise), ``late_surprise_steps`` steps on that round's games.
    late_rounds: int = 2
    late_selfplay_games: int = 10_000
    late_engine_games: int = 800
    late_lr: float = 0.003
    late_surprise_steps: int = 2_000
    # The 13x13 line (s13r1-s13r4): the shipped 9x9 weights exported at 13x13, then rounds
    # of the twin's 13x13 self-play, each fine-tuned from the best on every game of the line.
    s13_rounds: int = 4
    s13_selfplay_games: int = 700
    s13_steps: int = 600
    s13_lr: float = 0.003
    # The grown line (r21-w96d9, then DAgger rounds w96d9-dagger1 and -dagger2b): more games of
    # the best 6x64 model played by its twin (r19-r21's), that network grown to ``grow_blocks``
    # x ``grow_channels`` (training.widen, training.deepen) and trained on their positions in
    # the parts of ``grow_schedule`` (steps, lr, warm-up), then ``dagger_rounds`` rounds of
    # training.dagger: the grown model's raw policy plays ``dagger_games`` against GNU Go
    # (openings of ``dagger_opening`` random moves), its twin searching ``dagger_visits``
    # labels every move, and the batches so far join the mix ``dagger_copies // K`` times
    # each in round K (about 8% of the positions), ``dagger_steps`` steps from the last
    # round. It replaces the 6x64 best only by passing gating at equal time, both twins
    # searching ``grow_gate_seconds`` a move (it costs 2.3x a visit). The 13x13 line
    # starts from the 6x64 best either way, as its shipped line did.
    grow: bool = True
    grow_selfplay_games: int = 30_000
    grow_blocks: int = 9
    grow_channels: int = 96
    grow_schedule: tuple[tuple[int, float, int], ...] = ((5_000, 0.01, 500), (5_000, 0.003, 500))
    dagger_rounds: int = 2
    dagger_games: int = 400
    dagger_opening: int = 4
    dagger_visits: int = 400
    dagger_copies: int = 10
    dagger_steps: int = 3_000
    dagger_lr: float = 0.003
    grow_gate_seconds: float = 0.9
    gate_games: int = 40
    gate_visits: int = 200
    gate_threshold: float = 0.55
    strength_games: int = 40
    gnugo_level: int = 10
    # Pachi's playouts a move (0 skips the Pachi match): about 1 s a move on the Intel Xeon
    # of 2026-11-25 (the card's rows); the slower AMD EPYC of 11-24 needed 20,000.
    pachi_playouts: int = 27_000
    ours_args: str = ""  # our engine at its defaults (8,000 visits or 0.9 s a move)
    match_max_moves: int | None = None
    until: str | None = None
    progress: bool = True

    def path(self, *parts: str) -> Path:
        return Path(self.root).joinpath(*parts)

    @property
    def runs(self) -> Path:
        return self.path("runs", "make_model")

    @property
    def needs_pachi(self) -> bool:
        return ("pachi" in self.engine_mix or (self.rounds > 0 and self.round_engine_games > 0
                and "pachi" in self.round_engine_mix) or self.pachi_playouts > 0)


def quick_plan(root: Path, workers: int = 2) -> Plan:
    """Tiny counts for tests: two GNU Go level 1 games, a 1x8 network, 1 round (of two
    self-play and two GNU Go level 1 games), 2 late rounds (r12's and r18's recipes) and
    1 round of the 13x13 line (two self-play games each); the grown line at 2x12 with two
    DAgger rounds of two games."""
    return Plan(root=root, workers=workers, engine_games=2, engine_mix="gnugo:1", engine_max_moves=60,
                val_every=1000, blocks=1, channels=8, steps=3, batch_size=16, warmup=1, train_threads=1,
                rounds=1, selfplay_games=2, selfplay_visits=4, selfplay_fast_visits=2, selfplay_max_moves=40,
                round_engine_games=2, round_engine_mix="gnugo:1", round_steps=2, round_batch_size=16,
                late_rounds=2, late_selfplay_games=2, late_engine_games=0, late_surprise_steps=2, s13_rounds=1,
                s13_selfplay_games=2, s13_steps=2, grow=True, grow_selfplay_games=2, grow_blocks=2,
                grow_channels=12, grow_schedule=((2, 0.01, 1), (2, 0.003, 1)), dagger_games=2, dagger_visits=4,
                dagger_copies=2, dagger_steps=2, grow_gate_seconds=0.02,
                engine_shards_in_mix=1, gate_games=2, gate_visits=2, strength_games=2, gnugo_level=1,
                pachi_playouts=0, ours_args="--visits 4", match_max_moves=40)


@dataclass(frozen=True)
class RoundSpec:
    """One round of a line: ``line`` "" (the 9x9 line, rounds ``round-K``) or ``"s13-"``
    (13x13, ``s13-round-K``); its games, training, and the rounds of its line whose
    positions it trains on (``window``, itself last)."""

    line: str
    k: int
    size: int
    selfplay_games: int
    engine_games: int
    steps: int
    lr: float
    window: tuple[int, ...]
    supervised_shards: int  # the supervised engine games' last training shards in its mix
    late: bool  # trains from the best model's weights (not the previous round's), self-play by its twin
    surprise: bool = False  # its self-play positions written by policy surprise under the model that played

    @property
    def name(self) -> str:
        return f"{self.line}round-{self.k}"


def round_specs(plan: Plan) -> list[RoundSpec]:
    """Every round of ``plan``, in order: the 9x9 rounds (``rounds`` early ones, then
    ``late_rounds``), then the 13x13 line's."""
    specs = [RoundSpec("", k, plan.size, plan.selfplay_games, plan.round_engine_games, plan.round_steps,
                       plan.round_lr, tuple(range(max(1, k - plan.window + 1), k + 1)), plan.engine_shards_in_mix,
                       False) for k in range(1, plan.rounds + 1)]
    first_late = plan.rounds + 1
    for k in range(first_late, first_late + plan.late_rounds):
        if k == first_late:  # r12's: with engine games, on every late round's positions so far
            specs.append(RoundSpec("", k, plan.size, plan.late_selfplay_games, plan.late_engine_games,
                                   plan.round_steps, plan.late_lr, (k,), 0, True))
        else:  # r18's: the twin's games only, surprise-weighted, on this round's positions
            specs.append(RoundSpec("", k, plan.size, plan.late_selfplay_games, 0, plan.late_surprise_steps,
                                   plan.late_lr, (k,), 0, True, surprise=True))
    specs += [RoundSpec(S13, k, 13, plan.s13_selfplay_games, 0, plan.s13_steps, plan.s13_lr, tuple(range(1, k + 1)),
                        0, True) for k in range(1, plan.s13_rounds + 1)]
    return specs


class ReachedUntil(Exception):
    """The stage named by ``--until`` is done."""


class StageLog:
    """Runs stages, skips finished ones, and keeps their wall time in ``stages.json``.
    A long stage may call ``checkpoint()`` as it goes, so that the time it spent is
    kept even when the process is killed (a session's end) before the stage returns."""

    def __init__(self, path: Path, until: str | None, prefix: str = "make_model") -> None:
        self.path = path
        self.until = until
        self.prefix = prefix
        self.stages: dict[str, dict] = json.loads(path.read_text()) if path.exists() else {}
        self._running: tuple[str, float] | None = None  # the stage running and when its time was last kept

    def run(self, name: str, work: Callable[[], object], done: Callable[[], bool] | None) -> None:
        """Run ``work`` unless ``done()`` says its output exists (``done=None``: always run),
        then check that ``done()`` holds."""
        entry = self.stages.setdefault(name, {"seconds": 0.0})
        if done is not None and done():
            print(f"[{self.prefix}] {name}: already done", flush=True)
        else:
            print(f"[{self.prefix}] {name}: running", flush=True)
            self._running = (name, time.time())
            try:
                work()
            finally:
                self.checkpoint()
                self._running = None
            if done is not None and not done():
                raise RuntimeError(f"stage {name} ended without making its output")
            print(f"[{self.prefix}] {name}: done ({entry['seconds']:.0f} s in all)", flush=True)
        self.save()
        if name == self.until:
            raise ReachedUntil(name)

    def checkpoint(self) -> None:
        """Add the time the running stage spent since the last checkpoint to its entry
        and save (nothing when no stage is running)."""
        if self._running is None:
            return
        name, since = self._running
        now = time.time()
        entry = self.stages.setdefault(name, {"seconds": 0.0})
        entry["seconds"] = round(entry["seconds"] + now - since, 1)
        entry["finished"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
        self._running = (name, now)
        self.save()

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(self.stages, indent=1) + "\n")
        tmp.replace(self.path)


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


def link_mix(plan: Plan, spec: RoundSpec) -> Path:
    """``data/positions/mix-NAME``: links to the shards of the rounds of ``spec.window``
    (self-play and the rounds' engine games) and the last ``spec.supervised_shards``
    training shards of the supervised engine games (validation: all of theirs, on the
    9x9 line)."""
    mix = plan.path("data", "positions", f"mix-{spec.name}")
    if mix.exists():
        shutil.rmtree(mix)
    mix.mkdir(parents=True)
    sources = {} if spec.line else {"engine": plan.path("data", "positions", "engine")}
    for r in spec.window:
        sources[f"{spec.line}r{r}"] = plan.path("data", "positions", f"{spec.line}round-{r}")
        sources[f"{spec.line}r{r}engine"] = plan.path("data", "positions", f"{spec.line}round-{r}-engine")
    for tag, folder in sources.items():
        for split in ("train", "val"):
            shards = sorted(folder.glob(f"{split}-*.npz"))
            if tag == "engine" and split == "train":
                shards = shards[-spec.supervised_shards:] if spec.supervised_shards > 0 else []
            for shard in shards:
                (mix / f"{split}-{tag}-{shard.name.split('-', 1)[1]}").symlink_to(shard.resolve())
    return mix


def train_run(plan: Plan, data: Path, run: Path, steps: int, lr: float, warmup: int, init: Path | None,
              batch_size: int, size: int | None = None) -> None:
    from gobuddy.ai.features import NUM_PLANES
    from training.train import TrainConfig, train

    config = TrainConfig(data=data, run=run, size=size or plan.size, steps=steps, batch_size=batch_size, lr=lr,
                         warmup=warmup, blocks=plan.blocks, channels=plan.channels,
                         validate_every=min(1000, steps), checkpoint_every=min(500, steps),
                         threads=plan.train_threads, seed=plan.seed, init=init)
    train(config, NUM_PLANES)


def export_run(plan: Plan, run: Path, label: str, data: Path, size: int | None = None, line: str = "") -> None:
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
    rounds = "" if line == GROW else line
    selfplay = sum(count_games(p) for p in plan.path("data", "selfplay").glob(f"{rounds}round-*"))
    round_games = sum(count_games(p) for p in plan.path("data", "round-games").glob(f"{rounds}round-*"))
    supervised = f"{games} engine games ({plan.engine_mix})"
    what = (f"{supervised}, {selfplay} self-play games, {round_games} engine games of the rounds "
            f"({plan.round_engine_mix})")
    if line == S13:
        what = f"{selfplay} 13x13 self-play games, from the best 6x64 9x9 weights ({supervised} and the 9x9 rounds)"
    net = state["net"]
    if line == GROW:
        grown = count_games(plan.path("data", "selfplay", "grow"))
        dagger = sum(count_games(p) for p in plan.path("data", "dagger").glob("round-*/games"))
        what = (f"{what}; grown from the 6x64 line's best and trained on {grown} more games of its twin, "
                f"then DAgger on {dagger} games of its own raw policy against GNU Go")
    provenance = {"data": what,
                  "stage": label, "steps": int(state["step"]),
                  "architecture": f"{net['blocks']} blocks x {net['channels']} channels",
                  "parameters": count_parameters(model), "komi": plan.komi,
                  "date": datetime.now(timezone.utc).date().isoformat(), "machine": machine()["cpu"]}
    size = size or plan.size
    tmp = export_onnx(model, run / "export.onnx", size, provenance=provenance, komi=plan.komi,
                      model_name=f"gobuddy-{size}x{size}-b{net['blocks']}c{net['channels']}-{label}")
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


def line_start(plan: Plan, line: str) -> Path:
    """The model a line starts from: the supervised one (9x9), or the shipped 9x9
    weights exported at 13x13 (``s13-start``)."""
    return plan.runs / ("s13-start" if line == S13 else "supervised") / "model.onnx"


def best_model(plan: Plan, before_round: int, line: str = "") -> Path:
    """The last round of ``line`` before ``before_round`` whose candidate passed gating,
    else the line's start."""
    for k in range(before_round - 1, 0, -1):
        verdict = plan.runs / "gating" / f"{line}round-{k}" / "gating.json"
        if verdict.exists() and json.loads(verdict.read_text())["accepted"]:
            return plan.runs / f"{line}round-{k}" / "model.onnx"
    return line_start(plan, line)


def selfplay_model(best: Path, twin: bool) -> Path:
    """The model that plays a round's self-play: ``best``, or its int8 twin (made here
    when missing; the float model plays when no twin agrees well enough with it)."""
    if not twin:
        return best
    from training.quantize import QuantizeError, make_twin, twin_path

    if twin_path(best).exists() and twin_is_current(best):
        return twin_path(best)
    try:
        make_twin(best)
    except QuantizeError as exc:
        print(f"[make_model] self-play with the float model: {exc}", flush=True)
        return best
    return twin_path(best)


def selfplay_settings(plan: Plan, size: int):
    """The self-play search and game limits of every round (and the grown line) at ``size``."""
    from training.selfplay import GameSettings

    return GameSettings(size=size, komi=plan.komi, visits=plan.selfplay_visits, fast_visits=plan.selfplay_fast_visits,
                        full_fraction=plan.selfplay_full_fraction, max_moves=plan.selfplay_max_moves)


def run_round(plan: Plan, log: StageLog, spec: RoundSpec) -> None:
    from training.gating import GateConfig, gate
    from training.gtp_game import GameRules
    from training.selfplay import SelfPlayConfig, false_resignations, generate

    name, line, k = spec.name, spec.line, spec.k
    best = best_model(plan, k, line)
    games = plan.path("data", "selfplay", name)
    engine_games = plan.path("data", "round-games", name)
    positions = plan.path("data", "positions", name)
    engine_positions = plan.path("data", "positions", f"{name}-engine")
    run = plan.runs / name
    if spec.late:  # from the best model's weights
        init = best.with_suffix(".pt")
    else:
        init = plan.runs / ("supervised" if k == 1 else f"{line}round-{k - 1}") / "last.pt"
    settings = selfplay_settings(plan, spec.size)

    def selfplay() -> None:
        player = selfplay_model(best, spec.late)
        added = generate(SelfPlayConfig(player, games, spec.selfplay_games, settings, plan.workers,
                                        seed=plan.seed * 1000 + (500_000 if line else 0) + k,
                                        progress=plan.progress))
        wrong, noted = false_resignations(added)
        print(f"[make_model] self-play with {player}: {len(added)} games; resignation would have been wrong "
              f"in {wrong} of {noted} games played out", flush=True)

    log.run(f"{name}-selfplay", selfplay, lambda: count_games(games, "selfplay") >= spec.selfplay_games)
    if spec.engine_games > 0:
        log.run(f"{name}-engine-games",
                lambda: run_engine_games(plan, engine_games, spec.engine_games, plan.round_engine_mix,
                                         plan.seed * 1000 + 500 + k),
                lambda: count_games(engine_games, "engine") >= spec.engine_games)

    def round_positions() -> None:
        surprise = None
        if spec.surprise:  # judged by the model that played: its prior is what the search overruled
            from training.surprise import SurpriseWeighting

            surprise = SurpriseWeighting(selfplay_model(best, spec.late))
        build_positions(games, positions, plan.val_every, surprise=surprise)
        if spec.engine_games > 0:
            build_positions(engine_games, engine_positions, plan.val_every)

    log.run(f"{name}-positions", round_positions,
            lambda: positions_built(games, positions) and (
                spec.engine_games == 0 or positions_built(engine_games, engine_positions)))
    log.run(f"{name}-train",
            lambda: train_run(plan, link_mix(plan, spec), run, spec.steps, spec.lr, min(100, spec.steps), init,
                              plan.round_batch_size, spec.size),
            lambda: checkpoint_step(run / "last.pt") >= spec.steps)
    log.run(f"{name}-export", lambda: export_run(plan, run, f"{line}r{k}", positions, spec.size, line),
            lambda: exported(run))
    rules = GameRules(size=spec.size, komi=plan.komi, max_moves=plan.match_max_moves)
    gate_out = plan.runs / "gating" / name
    log.run(f"{name}-gating",
            lambda: print("[make_model] " + gate(GateConfig(
                run / "model.onnx", best, gate_out, plan.gate_games, plan.gate_visits, plan.gate_threshold,
                rules=rules, parallel=plan.workers, seed=plan.seed, progress=plan.progress)).line()),
            lambda: (gate_out / "gating.json").exists())


GATE_VISITS_CAP = 1_000_000  # gating at equal time: the seconds end every search first


def grown_runs(plan: Plan) -> list[Path]:
    """The grown line's training runs in order: the parts of ``grow_schedule``, then
    the DAgger rounds (empty when ``plan.grow`` is off)."""
    if not plan.grow:
        return []
    return ([plan.runs / f"grow-{i}" for i in range(1, len(plan.grow_schedule) + 1)]
            + [plan.runs / f"dagger-{k}" for k in range(1, plan.dagger_rounds + 1)])


def grow_stage_names(plan: Plan) -> list[str]:
    """The grown line's stages, in the order they run (none when ``plan.grow`` is off)."""
    if not plan.grow:
        return []
    names = ["grow-selfplay", "grow-positions", "grow-init"]
    names += [f"grow-train-{i}" for i in range(1, len(plan.grow_schedule) + 1)] + ["grow-export"]
    for k in range(1, plan.dagger_rounds + 1):
        names += [f"dagger-{k}-{step}" for step in ("games", "import", "relabel", "positions", "train", "export")]
    return names + ["grow-gating"]


def ship_source(plan: Plan, best: Path) -> Path:
    """What ``ship`` ships: the grown line's last model when it passed its gating at equal
    time, else ``best`` (the 6x64 line's)."""
    verdict = plan.runs / "gating" / "grow" / "gating.json"
    if plan.grow and verdict.exists() and json.loads(verdict.read_text())["accepted"]:
        return grown_runs(plan)[-1] / "model.onnx"
    return best


def run_grow(plan: Plan, log: StageLog, best: Path) -> None:
    """The grown line's stages (see ``Plan``), from the 6x64 line's best model ``best``."""
    from training.deepen import deepen_checkpoint
    from training.gating import GateConfig, gate
    from training.gtp_game import GameRules
    from training.selfplay import SelfPlayConfig, generate
    from training.surprise import SurpriseWeighting
    from training.widen import widen_checkpoint

    games, positions = plan.path("data", "selfplay", "grow"), plan.path("data", "positions", "grow")
    settings = selfplay_settings(plan, plan.size)
    log.run("grow-selfplay",
            lambda: generate(SelfPlayConfig(selfplay_model(best, True), games, plan.grow_selfplay_games, settings,
                                            plan.workers, seed=plan.seed * 1000 + 300, progress=plan.progress)),
            lambda: count_games(games, "selfplay") >= plan.grow_selfplay_games)
    log.run("grow-positions", lambda: build_positions(games, positions, plan.val_every,
                                                      surprise=SurpriseWeighting(selfplay_model(best, True))),
            lambda: positions_built(games, positions))
    start = plan.runs / "grow" / "init.pt"

    def grow_init() -> None:
        wide = start.with_name("wide.pt")
        widen_checkpoint(best.with_suffix(".pt"), wide, plan.grow_channels, seed=plan.seed)
        deepen_checkpoint(wide, start, plan.grow_blocks, seed=plan.seed)

    log.run("grow-init", grow_init, start.exists)
    runs, init = grown_runs(plan), start
    for i, (steps, lr, warmup) in enumerate(plan.grow_schedule, 1):
        run = runs[i - 1]
        log.run(f"grow-train-{i}", lambda r=run, n=steps, a=lr, w=warmup, s=init: train_run(
            plan, positions, r, n, a, w, s, plan.round_batch_size),
            lambda r=run, n=steps: checkpoint_step(r / "last.pt") >= n)
        init = run / "last.pt"
    last = runs[len(plan.grow_schedule) - 1]
    log.run("grow-export", lambda: export_run(plan, last, "grown", positions, line=GROW), lambda: exported(last))
    rules = GameRules(size=plan.size, komi=plan.komi, max_moves=plan.match_max_moves)
    batches: list[Path] = []
    for k in range(1, plan.dagger_rounds + 1):
        run_dagger_round(plan, log, k, last, runs[len(plan.grow_schedule) + k - 1], positions, batches, rules)
        last = runs[len(plan.grow_schedule) + k - 1]
    grown, gate_out = last / "model.onnx", plan.runs / "gating" / "grow"
    log.run("grow-gating", lambda: print("[make_model] " + gate(GateConfig(
        selfplay_model(grown, True), selfplay_model(best, True), gate_out, plan.gate_games, GATE_VISITS_CAP,
        plan.gate_threshold, rules=rules, parallel=1, seed=plan.seed,
        engine_args=f"--time {plan.grow_gate_seconds}", progress=plan.progress)).line()),
        lambda: (gate_out / "gating.json").exists())


def run_dagger_round(plan: Plan, log: StageLog, k: int, player_run: Path, run: Path, base: Path,
                     batches: list[Path], rules) -> None:
    """DAgger round ``k`` (training.dagger): ``player_run``'s raw policy plays, its twin
    labels, and ``run`` trains from ``player_run`` on ``base`` and every batch so far
    (``batches``, to which this round's is appended)."""
    from training.dagger import import_games, imported, link_mix as dagger_mix, play, relabel, relabelled
    from training.surprise import SurpriseWeighting

    folder = plan.path("data", "dagger", f"round-{k}")
    match, games, relabels, positions = folder / "match", folder / "games", folder / "reanalysed", folder / "positions"

    def twin() -> Path:
        return selfplay_model(player_run / "model.onnx", True)

    log.run(f"dagger-{k}-games", lambda: play(
        twin(), f"gnugo:{plan.gnugo_level}", match, plan.dagger_games, rules, seed=plan.seed * 1000 + 700 + k,
        opening=(plan.dagger_opening, plan.dagger_opening), parallel=plan.workers, progress=plan.progress),
        lambda: match_done(match, plan.dagger_games))
    log.run(f"dagger-{k}-import", lambda: import_games(match, games, plan.size, prefix=f"dagger{k}"),
            lambda: imported(games, plan.dagger_games))
    log.run(f"dagger-{k}-relabel",
            lambda: relabel(twin(), games, relabels, plan.dagger_visits, plan.workers, plan.progress),
            lambda: relabelled(games, relabels))
    log.run(f"dagger-{k}-positions", lambda: build_positions(relabels, positions, plan.val_every, per_shard=2000,
                                                             surprise=SurpriseWeighting(twin())),
            lambda: positions_built(relabels, positions))
    batches.append(positions)
    mix = plan.path("data", "positions", f"mix-dagger-{k}")
    log.run(f"dagger-{k}-train", lambda: train_run(
        plan, dagger_mix(base, batches, max(1, plan.dagger_copies // k), mix), run, plan.dagger_steps,
        plan.dagger_lr, min(100, plan.dagger_steps), player_run / "last.pt", plan.round_batch_size),
        lambda: checkpoint_step(run / "last.pt") >= plan.dagger_steps)
    log.run(f"dagger-{k}-export", lambda: export_run(plan, run, f"dagger{k}", base, line=GROW),
            lambda: exported(run))


def start_13x13(plan: Plan, weights: Path) -> None:
    """``s13-start``: the 9x9 ``weights`` (the 6x64 line's best), copied as ``model.pt``
    and exported at 13x13."""
    from training.export import export_weights

    start = plan.runs / "s13-start"
    start.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(weights, start / "model.pt")
    export_weights(start / "model.pt", start / "model.onnx", 13)


def strength_matches(plan: Plan) -> dict[str, tuple[str, str, Path, int]]:
    """Stage name -> (our engine text, opponent text, match folder, board size) for the
    shipped models (a match's folder is named by its model's checksum, ``not-shipped``
    before the model is there: the stage names are known before any model is)."""
    shipped = plan.path("models", SHIPPED)
    folder = plan.runs / "strength" / _short_digest(shipped)
    ours = f"ours:--model {shipped.resolve()} {plan.ours_args}".strip()
    matches = {"strength-gnugo": (ours, f"gnugo:{plan.gnugo_level}", folder / "vs-gnugo", plan.size)}
    if plan.pachi_playouts > 0:
        matches["strength-pachi"] = (ours, f"pachi:{plan.pachi_playouts}", folder / "vs-pachi", plan.size)
    matches["strength-policy"] = (f"ours:--model {shipped.resolve()} --visits 1", f"gnugo:{plan.gnugo_level}",
                                  folder / "policy-vs-gnugo", plan.size)
    if plan.s13_rounds > 0:
        shipped_13 = plan.path("models", SHIPPED_13)
        ours_13 = f"ours:--model {shipped_13.resolve()} {plan.ours_args}".strip()
        out = plan.runs / "strength" / f"13x13-{_short_digest(shipped_13)}" / "vs-gnugo"
        matches["strength-13x13-gnugo"] = (ours_13, f"gnugo:{plan.gnugo_level}", out, 13)
    return matches


def _short_digest(path: Path) -> str:
    return file_digest(path)[:12] if path.exists() else "not-shipped"


def match_done(out: Path, games: int) -> bool:
    summary = out / "summary.json"
    return summary.exists() and json.loads(summary.read_text())["games"] >= games


def run_strength(plan: Plan, ours_text: str, opponent: str, out: Path, name: str, size: int) -> None:
    from training.engine_spec import parse_engine
    from training.gtp_game import GameRules
    from training.match import MatchConfig, run_match

    rules = GameRules(size=size, komi=plan.komi, max_moves=plan.match_max_moves)
    config = MatchConfig(parse_engine(ours_text, name=name), parse_engine(opponent), out, plan.strength_games,
                         rules, parallel=1, seed=plan.seed, progress=plan.progress)
    run_match(config)


def write_card(plan: Plan) -> None:
    from training.model_card import collect, render

    labels = {"strength-gnugo": f"search vs GNU Go level {plan.gnugo_level}",
              "strength-pachi": f"search vs Pachi {plan.pachi_playouts} playouts",
              "strength-policy": f"raw policy (1 visit) vs GNU Go level {plan.gnugo_level}",
              "strength-13x13-gnugo": f"13x13: search vs GNU Go level {plan.gnugo_level}"}
    data = {"engine games": plan.path("data", "games")}
    specs = round_specs(plan)
    for spec in specs:
        label = f"round {spec.k}" if not spec.line else f"13x13 round {spec.k}"
        data[f"self-play {label}"] = plan.path("data", "selfplay", spec.name)
        data[f"engine games {label}"] = plan.path("data", "round-games", spec.name)
    if plan.grow:
        data["self-play grown line"] = plan.path("data", "selfplay", "grow")
        for k in range(1, plan.dagger_rounds + 1):
            data[f"DAgger round {k}"] = plan.path("data", "dagger", f"round-{k}", "games")
    checkpoints = {"supervised": plan.runs / "supervised" / "last.pt"}
    checkpoints.update({spec.name.replace("-", " "): plan.runs / spec.name / "last.pt" for spec in specs})
    checkpoints.update({run.name.replace("-", " "): run / "last.pt" for run in grown_runs(plan)})
    facts = collect(plan.path("models", SHIPPED), data, checkpoints, plan.runs / "stages.json",
                    {labels[name]: m[2] / "summary.json" for name, m in strength_matches(plan).items()},
                    {spec.name: plan.runs / "gating" / spec.name / "gating.json" for spec in specs}
                    | ({"grown line (equal time)": plan.runs / "gating" / "grow" / "gating.json"} if plan.grow else {}))
    plan.path("models", "MODEL_CARD.md").write_text(render(facts))


def stage_names(plan: Plan) -> list[str]:
    """Every stage of ``plan``, in the order they run."""
    names = (["pachi"] if plan.needs_pachi else []) + ["engine-games", "positions", "train", "export"]
    specs = round_specs(plan)

    def rounds_of(line: str) -> list[str]:
        out = []
        for spec in (s for s in specs if s.line == line):
            steps = ["selfplay"] + (["engine-games"] if spec.engine_games > 0 else []) + [
                "positions", "train", "export", "gating"]
            out += [f"{spec.name}-{step}" for step in steps]
        return out

    names += rounds_of("") + grow_stage_names(plan) + ["ship"]
    if plan.s13_rounds > 0:
        names += ["s13-start"] + rounds_of(S13) + ["s13-ship"]
    return names + list(strength_matches(plan)) + ["card"]


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
        specs = round_specs(plan)
        nine = [spec for spec in specs if not spec.line]
        for spec in nine:
            run_round(plan, log, spec)
        best, shipped = best_model(plan, len(nine) + 1), plan.path("models", SHIPPED)
        if plan.grow:
            run_grow(plan, log, best)
        source = ship_source(plan, best)
        log.run("ship", lambda: ship(source, shipped), lambda: is_shipped(shipped, source))
        thirteen = [spec for spec in specs if spec.line == S13]
        if thirteen:
            start = line_start(plan, S13)
            log.run("s13-start", lambda: start_13x13(plan, best.with_suffix(".pt")),
                    lambda: start.exists() and start.with_suffix(".pt").exists())
            for spec in thirteen:
                run_round(plan, log, spec)
            best_13, shipped_13 = best_model(plan, len(thirteen) + 1, S13), plan.path("models", SHIPPED_13)
            log.run("s13-ship", lambda: ship(best_13, shipped_13), lambda: is_shipped(shipped_13, best_13))
        for name, (ours, opponent, out, size) in strength_matches(plan).items():
            label = "gobuddy-policy" if name == "strength-policy" else "gobuddy"
            log.run(name, lambda o=ours, b=opponent, f=out, n=label, z=size: run_strength(plan, o, b, f, n, z),
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
    p.add_argument("--rounds", type=int, help="self-play rounds of the 9x9 line before the late ones")
    p.add_argument("--late-rounds", type=int, help="late rounds of the 9x9 line (r12's recipe)")
    p.add_argument("--s13-rounds", type=int, help="rounds of the 13x13 line (0: no 13x13 model)")
    p.add_argument("--grow", action=argparse.BooleanOptionalAction, default=None,
                   help="the grown 9x9 line (9x96 and DAgger) after the 6x64 one (default: the plan's)")
    p.add_argument("--engine-games", type=int, help="engine games to generate")
    p.add_argument("--selfplay-games", type=int, help="self-play games per round")
    p.add_argument("--steps", type=int, help="supervised training steps")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    plan = quick_plan(args.root, args.workers) if args.quick else Plan(root=args.root, workers=args.workers)
    overrides = {"rounds": args.rounds, "engine_games": args.engine_games, "selfplay_games": args.selfplay_games,
                 "steps": args.steps, "late_rounds": args.late_rounds, "s13_rounds": args.s13_rounds,
                 "grow": args.grow}
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
