"""One round of improvement of the shipped model, sized to fit a session: ``python -m training.improve``.

    python -m training.improve --round r2 --minutes 60        # then ~30 min more to train and gate

A session's machine keeps nothing, so the loop that makes the engine stronger runs one
round per session, from the model in ``models/`` to a gated candidate that replaces it:

| stage | makes (under ``--root``) |
|---|---|
| ``games`` | ``data/improve/ROUND/selfplay/`` (``training.selfplay`` with the shipped model) and ``data/improve/ROUND/games/`` (``training.engine_games`` with ``--mix``), side by side for ``--minutes`` |
| ``positions`` | ``data/improve/ROUND/positions/{selfplay,games,mix}`` (``training.positions``; ``mix`` links both, and the positions of the ``--earlier`` rounds; with ``--surprise-weighting`` the training split is weighted by policy surprise under the model that played, ``training.surprise``; with ``--reanalyse-visits V`` the self-play games are first reanalysed into ``data/improve/ROUND/reanalysed/`` by the model that played, so their fast moves get policy targets too, ``training.reanalyse``) |
| ``init`` | ``runs/improve/ROUND/init.pt``: ``models/gobuddy-9x9.pt``, or the ONNX file read back (``training.onnx_import``) when the weights are missing; with ``--deepen N`` grown to N residual blocks by identity blocks (``training.deepen``) |
| ``train`` | ``runs/improve/ROUND/last.pt`` (``training.train --init``) |
| ``export`` | ``runs/improve/ROUND/model.onnx`` after the parity check, and its weights ``model.pt`` |
| ``gating`` | ``runs/improve/ROUND/gating/gating.json`` (``training.gating``, candidate against the shipped model) |
| ``promote`` | only if the candidate passed: ``models/gobuddy-9x9.onnx``, its ``.pt`` and its int8 twin ``.int8.onnx`` replaced by the candidate's (``training.shipping``: the twin is made first; when none agrees with the candidate, nothing is replaced and the stage fails) |

Every stage is skipped when its output exists; games are counted on disk and the time
already spent generating is kept in ``runs/improve/ROUND/stages.json`` (every 30 s, so
even a run killed without warning, at a session's end, keeps it), so a run that was
stopped is simply started again. The strength matches of the model card are left to
``training.match`` (they take an hour or more; the end of the run prints them).

Other board sizes (``--size 13``) are their own line: the shipped model of that size is
``models/gobuddy-13x13.onnx``. A size with no model yet starts from another model's
weights (``--base-weights models/gobuddy-9x9.pt``: the network is fully convolutional),
exported at the new size as the round's ``base.onnx``, which then plays the self-play
games and is the gating opponent. Earlier rounds must be of the same size.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from training.game_shards import count_games, shard_paths
from training.match import MatchSetupError
from training.make_model import SHIPPED, Plan, ReachedUntil, StageLog, checkpoint_step, file_digest
from training.selfplay import command as selfplay_command
from training.quantize import make_twin, twin_is_current, twin_path
from training.shipping import is_shipped, ship

STAGES = ("base", "games", "positions", "init", "train", "export", "gating", "promote")


@dataclass(frozen=True)
class RoundPlan:
    """What one round does; paths hang off ``root``."""

    name: str
    root: Path = Path(".")
    minutes: float = 60.0
    selfplay_workers: int = 1
    engine_workers: int = 1
    # The round's games and batch size are make model's rounds' (one recipe, one place).
    visits: int = Plan.selfplay_visits
    fast_visits: int = Plan.selfplay_fast_visits
    full_fraction: float = Plan.selfplay_full_fraction
    selfplay_search: str = "puct"  # training.selfplay --search: puct or gumbel
    selfplay_model: str = "float"  # float: the base model plays self-play; int8: its twin (training.quantize)
    forced_playouts: float = 0.0  # training.selfplay --forced-playouts (0: off)
    score_utility: float = 0.0  # training.selfplay --score-utility (0: off)
    mix: str = Plan.round_engine_mix
    max_moves: int | None = None
    steps: int = 2500
    batch_size: int = Plan.round_batch_size
    lr: float = 0.02
    warmup: int = 100
    value_weight: float = 1.0
    soft_policy_weight: float = 0.0  # training.train's auxiliary targets (0: off)
    reply_policy_weight: float = 0.0
    short_value_weight: float = 0.0  # training.train's short-term value target (0: off)
    threads: int = 2
    device: str = "cpu"  # training's device: cpu, cuda or auto (training.train.resolve_device)
    gate_games: int = Plan.gate_games
    gate_visits: int = Plan.gate_visits
    gate_parallel: int = 2
    seed: int = 1
    earlier: tuple[str, ...] = ()  # earlier rounds whose positions join the training mix
    size: int = 9
    base_weights: Path | None = None  # torch weights to start from where the size has no shipped model
    surprise_weighting: bool = False  # the training split weighted by policy surprise under ``player``
    surprise_value: str = "copies"  # with it: every copy trains the value, or "even" (training.surprise)
    deepen: int | None = None  # grow the starting weights to this many residual blocks (training.deepen)
    reanalyse_visits: int = 0  # fill the self-play games' missing policy targets at these visits (0: off)
    until: str | None = None
    progress: bool = True

    def data(self, *parts: str) -> Path:
        return self.root.joinpath("data", "improve", self.name, *parts)

    def run(self, *parts: str) -> Path:
        return self.root.joinpath("runs", "improve", self.name, *parts)

    @property
    def shipped(self) -> Path:
        """The shipped model of this board size (the one a promotion replaces)."""
        return self.root / "models" / (SHIPPED if self.size == 9 else f"gobuddy-{self.size}x{self.size}.onnx")

    @property
    def base(self) -> Path:
        """The model the round starts from, plays self-play with and gates against: the
        shipped one, or ``base_weights`` exported at this size."""
        return self.run("base.onnx") if self.base_weights is not None else self.shipped

    @property
    def player(self) -> Path:
        """The model that plays the self-play games: ``base``, or its int8 twin."""
        return self.base if self.selfplay_model == "float" else twin_path(self.base)


def generator_commands(plan: RoundPlan) -> list[list[str]]:
    """The self-play and engine-game commands (each resumes from what is on disk)."""
    common = ["--games", "1000000", "--per-shard", "25"] + ([] if plan.progress else ["--no-progress"])
    cap = ["--max-moves", str(plan.max_moves)] if plan.max_moves else []
    commands = []
    if plan.selfplay_workers > 0:
        commands.append(selfplay_command(plan.player, plan.data("selfplay"), size=plan.size, visits=plan.visits,
                                         fast_visits=plan.fast_visits, full_fraction=plan.full_fraction,
                                         search=plan.selfplay_search, workers=plan.selfplay_workers, seed=plan.seed,
                                         games=1000000, progress=plan.progress, max_moves=plan.max_moves,
                                         forced_playouts=plan.forced_playouts, score_utility=plan.score_utility))
    if plan.engine_workers > 0:
        commands.append([sys.executable, "-m", "training.engine_games", "--out", str(plan.data("games")),
                         "--mix", plan.mix, "--workers", str(plan.engine_workers), "--size", str(plan.size),
                         "--seed", str(plan.seed + 1)] + common + cap)
    return commands


CHECKPOINT_S = 30.0  # how often the games stage keeps the time it has spent (``StageLog.checkpoint``)


def generate(plan: RoundPlan, seconds: float, tick: Callable[[], None] | None = None) -> None:
    """Run the generators side by side for ``seconds``, then stop them (SIGTERM: each
    writes its finished games first). A generator that dies is an error. The int8 twin
    that is to play is made first when there is none of the base (``training.quantize``).
    ``tick`` is called every ``CHECKPOINT_S`` (the stage log keeps the time spent, so a
    killed run resumes with what is left; the games of a shard not yet written are
    lost with it, at most ``--per-shard`` games a generator)."""
    if plan.selfplay_model == "int8" and not (twin_path(plan.base).exists() and twin_is_current(plan.base)):
        make_twin(plan.base)
    procs = [subprocess.Popen(cmd, cwd=Path(__file__).resolve().parent.parent) for cmd in generator_commands(plan)]
    deadline = time.monotonic() + seconds
    next_tick = time.monotonic() + CHECKPOINT_S
    try:
        while time.monotonic() < deadline and all(p.poll() is None for p in procs):
            time.sleep(1.0)
            if tick is not None and time.monotonic() >= next_tick:
                tick()
                next_tick = time.monotonic() + CHECKPOINT_S
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            p.wait(timeout=120)
    failed = [p.args[2] for p in procs if p.returncode not in (0, 130, -signal.SIGTERM)]
    if failed:
        raise RuntimeError(f"generator(s) failed: {', '.join(failed)}")


def link_mix(sources: dict[str, Path], mix: Path) -> Path:
    """``mix``: symbolic links ``SPLIT-TAG-NNNNN.npz`` to every shard of ``sources``."""
    if mix.exists():
        shutil.rmtree(mix)
    mix.mkdir(parents=True)
    for tag, folder in sources.items():
        for shard in sorted(folder.glob("*.npz")):
            split, rest = shard.name.split("-", 1)
            (mix / f"{split}-{tag}-{rest}").symlink_to(shard.resolve())
    return mix


def build_positions(plan: RoundPlan) -> None:
    from training.positions import build
    from training.surprise import SurpriseWeighting

    # the judge is the model that played the self-play games (its prior is what the search overruled)
    surprise = (SurpriseWeighting(plan.player, even_value=plan.surprise_value == "even")
                if plan.surprise_weighting else None)
    games = {tag: plan.data(tag) for tag in ("selfplay", "games")}
    if plan.reanalyse_visits > 0 and shard_paths(games["selfplay"]):
        from training.reanalyse import ReanalyseConfig, ReanalyseSettings, run as reanalyse

        # resumable by itself (one output shard per input shard); the stage is done only with the mix
        reanalyse(ReanalyseConfig(plan.player, games["selfplay"], plan.data("reanalysed"),
                                  ReanalyseSettings(visits=plan.reanalyse_visits), workers=max(1, plan.threads),
                                  progress=plan.progress))
        games["selfplay"] = plan.data("reanalysed")
    sources = {}
    for tag, folder in games.items():
        if count_games(folder) > 0:
            build(folder, plan.data("positions", tag), val_every=20, per_shard=5000, progress=plan.progress,
                  surprise=surprise)
            sources[tag] = plan.data("positions", tag)
    if not sources:
        raise RuntimeError(f"no games in {plan.data()}: run the games stage with --minutes > 0")
    for name in plan.earlier:
        folders = {tag: plan.root.joinpath("data", "improve", name, "positions", tag) for tag in ("selfplay", "games")}
        found = {tag: folder for tag, folder in folders.items() if any(folder.glob("train-*.npz"))}
        if not found:
            raise RuntimeError(f"--earlier {name}: no positions in {folders['selfplay'].parent}")
        sources.update({f"{name}{tag}": folder for tag, folder in found.items()})
    link_mix(sources, plan.data("positions", "mix"))


def make_init(plan: RoundPlan) -> None:
    """The starting checkpoint: ``base_weights``, or the shipped weights (read back from
    ONNX if need be); with ``deepen``, grown to that many blocks (weights that have as
    many already are kept; more is an error)."""
    weights = plan.base_weights or plan.shipped.with_suffix(".pt")
    out = plan.run("init.pt")
    out.parent.mkdir(parents=True, exist_ok=True)
    staged = out.with_name("init-source.pt")  # init.pt appears only when complete (the stage's done check)
    if weights.exists():
        shutil.copyfile(weights, staged)
    else:
        from training.onnx_import import main as import_main

        import_main(["--model", str(plan.shipped), "--data", str(plan.data("positions", "mix")),
                     "--out", str(staged)])
    if plan.deepen is not None:
        import torch

        from training.deepen import deepen_checkpoint

        blocks = torch.load(staged, map_location="cpu", weights_only=False)["net"]["blocks"]
        if blocks > plan.deepen:
            raise RuntimeError(f"--deepen {plan.deepen}: the starting weights have {blocks} blocks already")
        if blocks < plan.deepen:
            deepen_checkpoint(staged, staged, plan.deepen, seed=plan.seed)
    staged.replace(out)


def make_base(plan: RoundPlan) -> None:
    """``base.onnx``: ``base_weights`` exported at the round's size (``training.export.export_weights``)."""
    from training.export import export_weights

    assert plan.base_weights is not None
    plan.run().mkdir(parents=True, exist_ok=True)
    export_weights(plan.base_weights, plan.base, plan.size)


def train(plan: RoundPlan) -> None:
    from gobuddy.ai.features import NUM_PLANES
    from training.network import NetConfig
    from training.train import TrainConfig, train as train_loop

    import torch

    net = NetConfig(**torch.load(plan.run("init.pt"), map_location="cpu", weights_only=False)["net"])
    config = TrainConfig(data=plan.data("positions", "mix"), run=plan.run(), steps=plan.steps,
                         batch_size=plan.batch_size, lr=plan.lr, warmup=plan.warmup, blocks=net.blocks,
                         channels=net.channels, validate_every=min(500, plan.steps),
                         checkpoint_every=min(500, plan.steps), threads=plan.threads, seed=plan.seed,
                         init=plan.run("init.pt"), value_weight=plan.value_weight, progress=plan.progress,
                         soft_policy_weight=plan.soft_policy_weight, reply_policy_weight=plan.reply_policy_weight,
                         short_value_weight=plan.short_value_weight, device=plan.device, size=plan.size)
    train_loop(config, NUM_PLANES)


def export(plan: RoundPlan) -> None:
    import onnx
    import torch

    from gobuddy.ai.contract import META_MODEL_NAME
    from training.export import main as export_main

    init = torch.load(plan.run("init.pt"), map_location="cpu", weights_only=False)
    name = f"gobuddy-{plan.size}x{plan.size}-b{init['net']['blocks']}c{init['net']['channels']}-{plan.name}"
    shipped_name = {p.key: p.value for p in onnx.load(str(plan.base)).metadata_props}.get(META_MODEL_NAME, "?")
    provenance = {"round": plan.name, "init": shipped_name, "steps_in_round": plan.steps,
                  "data": f"{count_games(plan.data('selfplay'))} self-play games of the shipped model, "
                          f"{count_games(plan.data('games'))} engine games ({plan.mix})"}
    export_main(["--checkpoint", str(plan.run("last.pt")), "--out", str(plan.run("model.onnx")),
                 "--data", str(plan.data("positions", "mix")), "--name", name,
                 "--torch-out", str(plan.run("model.pt")), "--provenance", json.dumps(provenance),
                 "--size", str(plan.size)])


def gating(plan: RoundPlan) -> None:
    from training.gating import GateConfig, gate
    from training.gtp_game import GameRules

    result = gate(GateConfig(plan.run("model.onnx"), plan.base, plan.run("gating"), plan.gate_games,
                             plan.gate_visits, rules=GameRules(size=plan.size), parallel=plan.gate_parallel,
                             seed=plan.seed, progress=plan.progress))
    print(f"[improve] gating: {result.line()}", flush=True)


def accepted(plan: RoundPlan) -> bool:
    verdict = plan.run("gating", "gating.json")
    return verdict.exists() and bool(json.loads(verdict.read_text())["accepted"])


def improve(plan: RoundPlan) -> bool:
    """Run the stages not yet done; True when the candidate replaced the shipped model."""
    log = StageLog(plan.run("stages.json"), plan.until, prefix="improve")
    seconds = plan.minutes * 60

    def spent() -> float:
        return log.stages.get("games", {}).get("seconds", 0.0)

    try:
        if plan.base_weights is not None:
            log.run("base", lambda: make_base(plan), lambda: plan.base.exists())
        log.run("games", lambda: generate(plan, max(0.0, seconds - spent()), log.checkpoint),
                lambda: spent() >= seconds - 1)
        log.run("positions", lambda: build_positions(plan), lambda: (plan.data("positions", "mix")).exists())
        log.run("init", lambda: make_init(plan), lambda: plan.run("init.pt").exists())
        log.run("train", lambda: train(plan), lambda: checkpoint_step(plan.run("last.pt")) >= plan.steps)
        log.run("export", lambda: export(plan), lambda: plan.run("model.pt").exists())
        log.run("gating", lambda: gating(plan), lambda: plan.run("gating", "gating.json").exists())
        if accepted(plan):
            log.run("promote", lambda: ship(plan.run("model.onnx"), plan.shipped),
                    lambda: is_shipped(plan.shipped, plan.run("model.onnx")))
    except ReachedUntil as reached:
        print(f"[improve] stopped after {reached} (--until)", flush=True)
        return False
    promoted = accepted(plan)
    kept = plan.shipped if plan.shipped.exists() else f"{plan.base} (no {plan.shipped.name} shipped yet)"
    print(f"[improve] round {plan.name}: candidate {f'promoted to {plan.shipped}' if promoted else f'rejected; kept {kept}'}",
          flush=True)
    return promoted


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.improve", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--round", required=True, help="name of the round (folder names, model name)")
    p.add_argument("--root", type=Path, default=Path("."), help="where data/, runs/ and models/ live (default .)")
    p.add_argument("--minutes", type=float, default=60.0, help="minutes of game generation (default 60)")
    p.add_argument("--selfplay-workers", type=int, default=1)
    p.add_argument("--engine-workers", type=int, default=max(0, (os.cpu_count() or 2) - 1))
    p.add_argument("--mix", default=RoundPlan.mix, help=f"engine games (default {RoundPlan.mix})")
    p.add_argument("--visits", type=int, default=RoundPlan.visits, help="self-play full-search visits")
    p.add_argument("--fast-visits", type=int, default=RoundPlan.fast_visits, help="self-play fast-search visits")
    p.add_argument("--full-fraction", type=float, default=RoundPlan.full_fraction, help="share of full searches")
    p.add_argument("--selfplay-search", choices=("puct", "gumbel"), default=RoundPlan.selfplay_search,
                   help="self-play root search (training.selfplay --search; default puct)")
    p.add_argument("--selfplay-model", choices=("float", "int8"), default=RoundPlan.selfplay_model,
                   help="self-play with the base model or its int8 twin (about twice the games; default float)")
    p.add_argument("--score-utility", type=float, default=RoundPlan.score_utility, metavar="LAMBDA",
                   help="self-play with KataGo's score utility in the search (training.selfplay; default 0: off)")
    p.add_argument("--forced-playouts", type=float, default=RoundPlan.forced_playouts, metavar="K",
                   help="self-play forced playouts and policy target pruning (training.selfplay; default 0: off)")
    p.add_argument("--max-moves", type=int, help="move cap of the generated games")
    p.add_argument("--steps", type=int, default=RoundPlan.steps)
    p.add_argument("--lr", type=float, default=RoundPlan.lr)
    p.add_argument("--value-weight", type=float, default=RoundPlan.value_weight,
                   help="weight of the value loss in training (default 1)")
    p.add_argument("--soft-policy-weight", type=float, default=RoundPlan.soft_policy_weight,
                   help="weight of training's auxiliary soft policy target (default 0: off)")
    p.add_argument("--reply-policy-weight", type=float, default=RoundPlan.reply_policy_weight,
                   help="weight of training's auxiliary opponent's-reply target (default 0: off)")
    p.add_argument("--short-value-weight", type=float, default=RoundPlan.short_value_weight,
                   help="share of the short-term value target in training's value target (default 0: off)")
    p.add_argument("--threads", type=int, default=RoundPlan.threads, help="training threads")
    p.add_argument("--device", default=RoundPlan.device, choices=("cpu", "cuda", "auto"),
                   help="where the network trains (default cpu; cuda on a lent GPU machine)")
    p.add_argument("--gate-games", type=int, default=RoundPlan.gate_games)
    p.add_argument("--gate-visits", type=int, default=RoundPlan.gate_visits)
    p.add_argument("--gate-parallel", type=int, default=RoundPlan.gate_parallel)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--earlier", nargs="*", default=[], metavar="ROUND",
                   help="earlier rounds (on this machine) whose positions also train this round")
    p.add_argument("--size", type=int, default=RoundPlan.size, help="board size of the round (default 9)")
    p.add_argument("--base-weights", type=Path,
                   help="torch weights to start from, exported at --size (for a size with no shipped model)")
    p.add_argument("--surprise-weighting", action="store_true",
                   help="write the training positions by policy surprise under the model that played "
                        "(training.surprise; default: every position once)")
    p.add_argument("--surprise-value", choices=("copies", "even"), default=RoundPlan.surprise_value,
                   help="with --surprise-weighting: every copy trains the value (copies, default) or each "
                        "weighs 1/w there (even)")
    p.add_argument("--deepen", type=int, metavar="BLOCKS",
                   help="grow the starting weights to BLOCKS residual blocks by identity blocks (training.deepen)")
    p.add_argument("--reanalyse-visits", type=int, default=0, metavar="V",
                   help="before the positions, search the self-play moves that have no policy target again at V "
                        "visits with the model that played (training.reanalyse; default 0: off)")
    p.add_argument("--until", choices=STAGES, help="stop after this stage")
    p.add_argument("--no-progress", action="store_true")
    a = p.parse_args(argv)
    if a.minutes < 0 or a.steps < 1 or a.selfplay_workers < 0 or a.engine_workers < 0:
        p.error("--minutes must be >= 0, --steps >= 1, worker counts >= 0")
    if not 0.0 <= a.short_value_weight <= 1.0:
        p.error(f"--short-value-weight must be in [0, 1], got {a.short_value_weight}")
    if not 0 <= a.score_utility < float("inf"):
        p.error(f"--score-utility must be >= 0 and finite, got {a.score_utility}")
    if a.reanalyse_visits < 0:
        p.error(f"--reanalyse-visits must be >= 0, got {a.reanalyse_visits}")
    if a.deepen is not None and a.deepen < 1:
        p.error(f"--deepen must be >= 1, got {a.deepen}")
    for flag in ("value_weight", "soft_policy_weight", "reply_policy_weight"):
        if getattr(a, flag) < 0:
            p.error(f"--{flag.replace('_', '-')} must be >= 0, got {getattr(a, flag)}")
    plan = RoundPlan(a.round, a.root.resolve(), a.minutes, a.selfplay_workers, a.engine_workers, a.visits,
                     fast_visits=a.fast_visits, full_fraction=a.full_fraction, selfplay_search=a.selfplay_search,
                     selfplay_model=a.selfplay_model, mix=a.mix, forced_playouts=a.forced_playouts,
                     score_utility=a.score_utility,
                     max_moves=a.max_moves, steps=a.steps, lr=a.lr, value_weight=a.value_weight,
                     soft_policy_weight=a.soft_policy_weight, reply_policy_weight=a.reply_policy_weight,
                     short_value_weight=a.short_value_weight, threads=a.threads, device=a.device, gate_games=a.gate_games, gate_visits=a.gate_visits,
                     gate_parallel=a.gate_parallel, seed=a.seed, earlier=tuple(a.earlier), until=a.until,
                     progress=not a.no_progress, size=a.size,
                     base_weights=a.base_weights.resolve() if a.base_weights else None,
                     surprise_weighting=a.surprise_weighting, surprise_value=a.surprise_value, deepen=a.deepen,
                     reanalyse_visits=a.reanalyse_visits)
    if plan.base_weights is None and not plan.shipped.exists():
        p.error(f"no shipped model at {plan.shipped} (a new size starts from --base-weights)")
    if plan.base_weights is not None and not plan.base_weights.is_file():
        p.error(f"--base-weights: no file {plan.base_weights}")
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # a stopped session: stop the generators, keep the time spent
    try:
        improve(plan)
    except KeyboardInterrupt:
        print("\n[improve] stopped; run it again to continue", file=sys.stderr)
        return 130
    except MatchSetupError as exc:  # gating could not start an engine: nothing was recorded
        print(f"[improve] gating: {exc}", file=sys.stderr)
        return 2
    print(strength_commands(plan), flush=True)
    return 0


def strength_commands(plan: RoundPlan) -> str:
    """What to measure next: nothing for a candidate not (yet) accepted; the bars before
    promotion for one accepted and not promoted (its twin, as it would ship); the model
    card's rows for one promoted (the shipped twin)."""
    candidate = plan.run("model.onnx")
    if not accepted(plan):
        return f"[improve] round {plan.name}: no candidate accepted by gating, so no strength matches to play"
    promoted = plan.shipped.exists() and candidate.exists() and file_digest(plan.shipped) == file_digest(candidate)
    model = plan.shipped.resolve() if promoted else candidate
    if twin_path(model).exists() and twin_is_current(model):
        model = twin_path(model)  # what the engines play: the int8 twin
    size = "" if plan.size == 9 else f" --size {plan.size}"  # the match's board is 9x9 unless told

    def match(ours: str, rest: str, out: str) -> str:
        return (f"python -m training.match --engine-a 'ours:--model {model}{ours}' {rest}{size}"
                f" --out runs/strength/{out}")

    games = 40 if promoted else 80  # a bar is measured over at least 80 games; the card's rows add to it
    matches = [match("", f"--engine-b gnugo:10 --games {games} --seed 100", f"{plan.name}-gnugo")]
    matches += [match("", f"--engine-b pachi:27000 --games 40 --seed {seed}", f"{plan.name}-pachi-s{seed}")
                for seed in (100, 200)]
    matches.append(match(" --visits 1 --threads 1", f"--engine-b gnugo:10 --games {games} --seed 100 --parallel 2",
                         f"{plan.name}-policy"))
    if promoted:
        head = "[improve] strength for the model card"
    else:
        head = (f"[improve] round {plan.name} was accepted and not promoted (--until): its bars before promotion,"
                f" then this command without --until promotes it"
                + ("" if model != candidate else f" (make its twin first: python -m training.quantize --model "
                                                   f"{candidate})"))
    minutes = "15, 2 x 35 and 4" if promoted else "30, 2 x 35 and 8"
    return (head + f" (about {minutes} minutes on 2 cores; pick Pachi's playouts\n"
            "  so that its s/move in the summary is about 1: 27,000 on the Intel Xeon of 2026-11-25; two seeds, since\n"
            "  two 40-game Pachi matches of r4 differed by 10 points):\n  " + "\n  ".join(matches))

if __name__ == "__main__":
    sys.exit(main())
