"""Reanalyse: fresh policy targets for games already played: ``python -m training.reanalyse``.

    python -m training.reanalyse --model models/gobuddy-9x9.int8.onnx \\
        --games data/improve/r15/selfplay --out data/reanalysed/r15 --visits 200 --workers 2

MuZero's *Reanalyse*, for recorded games: each game is replayed and chosen positions
are searched again by ``--model`` (PUCT, no Dirichlet noise, the tree kept from one
searched move to the next as self-play keeps it); the root visit counts become that
move's policy target (``visits``) and the root value its ``root_values`` entry. Which
moves (``--moves``):

- ``missing`` (the default): the moves that have no policy target, the fast searches
  of playout cap randomisation (self-play keeps a target for only a quarter to a third
  of its moves), or every move of a game without targets (an engine game: the one-hot
  move played becomes the search's distribution). Targets already there are kept.
- ``all``: every move, targets already there replaced.

Moves of the randomised opening (``opening``) are never searched; they teach no move.
Everything else in a game stays as it was played: moves, result, ownership, so the
value, score and ownership targets are the game's own. A note names the model, the
visits and the count of moves searched. ``root_values`` entries of searched moves are
replaced (a game without them keeps none: the rest of its moves have no value).

``OUT`` gets one shard per input shard, under the same name, written whole; a rerun
skips the shards already there, so a stopped run resumes. ``OUT/reanalysis.json``
records the settings and the model's SHA-256, and a rerun with other settings or another
model (other bytes, wherever they lie) is refused. Deterministic: the
same model, settings and games give the same shards (no noise, no temperature).

Not checked: that the games' komi is the model's (each game is searched at its own
komi, which only the terminal scoring sees).
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import hashlib
import json
import multiprocessing
import signal
import sys
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from tqdm import tqdm

from gobuddy.ai.features import History, board_array, push_history
from gobuddy.ai.mcts import Search, SearchConfig
from gobuddy.ai.native_search import NativeSearch
from gobuddy.go.coords import from_gtp
from gobuddy.go.position import Position
from training.game_shards import GameSample, read_shard, shard_paths, write_shard
from training.selfplay import ENGINES, root_visits

__all__ = ["MOVES", "ReanalyseConfig", "ReanalyseSettings", "check_record", "main", "reanalyse_game", "run", "to_search"]

MOVES = ("missing", "all")
RECORD = "reanalysis.json"


@dataclass(frozen=True)
class ReanalyseSettings:
    """How each game is searched again (see the module docstring)."""

    visits: int = 200
    moves: str = "missing"
    engine: str = "native"
    c_puct: float = 1.5
    batch_size: int = 8

    def check(self) -> None:
        """``ValueError`` naming the first setting out of range."""
        if self.visits < 1:
            raise ValueError(f"visits must be >= 1, got {self.visits}")
        if self.moves not in MOVES:
            raise ValueError(f"moves must be one of {', '.join(MOVES)}, got {self.moves!r}")
        if self.engine not in ENGINES:
            raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {self.engine!r}")
        if not 0 < self.c_puct < float("inf") or self.batch_size < 1:
            raise ValueError(f"c_puct must be > 0 and finite, batch_size >= 1, got {self.c_puct}, {self.batch_size}")


def to_search(sample: GameSample, moves: str) -> list[int]:
    """The indices of the moves of ``sample`` searched again under ``moves``."""
    return [i for i in range(sample.opening, len(sample.moves))
            if moves == "all" or sample.visits is None or sample.visits[i] is None]


def reanalyse_game(search: Search | NativeSearch, sample: GameSample, settings: ReanalyseSettings,
                   name: str) -> GameSample:
    """``sample`` with new targets from ``search`` (its evaluator named ``name`` in the
    note). ``search.config`` is replaced (no noise, the game's komi). A game with no
    move to search comes back unchanged; ``IllegalMove`` for an illegal record."""
    todo = to_search(sample, settings.moves)
    if not todo:
        return sample
    search.config = SearchConfig(komi=sample.komi, c_puct=settings.c_puct, batch_size=settings.batch_size,
                                 noise=False, pipeline=False, max_moves=3 * sample.size * sample.size)
    search.clear()  # each game from an empty tree, whichever worker searched what before
    visits = list(sample.visits) if sample.visits is not None else [None] * len(sample.moves)
    values = list(sample.root_values) if sample.root_values is not None else None
    pos = Position(sample.size, superko=True)
    history: History = ()
    wanted = set(todo)
    for i, vertex in enumerate(sample.moves):
        if i in wanted:
            search.set_position(pos, history)
            search.run(visits=settings.visits)
            visits[i] = root_visits(search)
            if values is not None:
                values[i] = round(min(1.0, max(-1.0, float(search.root.q))), 3)
        history = push_history(history, board_array(pos))
        pos.play(from_gtp(vertex, sample.size))
    note = f"reanalysed by {name} at {settings.visits} visits: {len(todo)} moves"
    return replace(sample, visits=visits, root_values=values, notes=[*sample.notes, note])


@dataclass(frozen=True)
class ReanalyseConfig:
    """A reanalysis run; built from the command line in ``main``."""

    model: Path
    games: Path
    out: Path
    settings: ReanalyseSettings = ReanalyseSettings()
    workers: int = 1
    progress: bool = True


def check_record(config: ReanalyseConfig) -> dict:
    """The settings record for ``config.out``; ``ValueError`` naming both when the
    folder already holds shards made with other settings or another model (compared by
    its SHA-256; the path is kept for people)."""
    digest = hashlib.sha256(config.model.read_bytes()).hexdigest()
    wanted = {"model": str(config.model), "model_sha256": digest, **asdict(config.settings)}
    path = config.out / RECORD
    if path.exists():
        had = json.loads(path.read_text())
        if {k: v for k, v in had.items() if k != "model"} != {k: v for k, v in wanted.items() if k != "model"}:
            raise ValueError(f"{config.out} holds games reanalysed with {had}, not {wanted}: "
                             "reanalyse into another folder")
    return wanted


_worker: tuple[Any, Search | NativeSearch] | None = None


def _make_search(model: Path, settings: ReanalyseSettings) -> tuple[Any, Search | NativeSearch]:
    from gobuddy.ai.onnx_evaluator import OnnxEvaluator

    evaluator = OnnxEvaluator(model, intra_threads=1, inter_threads=1)
    config = SearchConfig(pipeline=False, batch_size=settings.batch_size)
    search = NativeSearch(evaluator, config) if settings.engine == "native" else Search(evaluator, config)
    return evaluator, search


def _init_worker(model: Path, settings: ReanalyseSettings) -> None:
    global _worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    _worker = _make_search(model, settings)


def _shard(path: Path, out: Path, settings: ReanalyseSettings,
           made: tuple[Any, Search | NativeSearch] | None = None) -> tuple[int, int]:
    """Reanalyse one shard into ``out`` (same name); returns (games, moves searched)."""
    evaluator, search = made if made is not None else _worker
    games = read_shard(path)
    try:
        done = [reanalyse_game(search, game, settings, evaluator.name) for game in games]
    except ValueError as exc:  # an illegal record, a size the model does not play
        raise ValueError(f"{path}: {exc}") from None
    write_shard(out / path.name, done)
    return len(games), sum(len(to_search(g, settings.moves)) for g in games)


def run(config: ReanalyseConfig) -> tuple[int, int]:
    """Reanalyse every shard of ``config.games`` not yet in ``config.out``; returns
    (games, moves searched) this run. ``KeyboardInterrupt`` leaves only whole shards."""
    config.settings.check()
    if not config.model.is_file():
        raise FileNotFoundError(f"model {config.model} does not exist")
    todo_all = shard_paths(config.games)
    if not todo_all:
        raise FileNotFoundError(f"no game shards (*.jsonl.gz) in {config.games}")
    record = check_record(config)
    config.out.mkdir(parents=True, exist_ok=True)
    (config.out / RECORD).write_text(json.dumps(record, indent=1))
    todo = [p for p in todo_all if not (config.out / p.name).exists()]
    bar = tqdm(total=len(todo_all), initial=len(todo_all) - len(todo), unit="shard", disable=not config.progress,
               desc=f"reanalyse {config.games}")
    games = searched = 0

    def take(counts: tuple[int, int]) -> None:
        nonlocal games, searched
        games += counts[0]
        searched += counts[1]
        bar.update(1)
        bar.set_postfix_str(f"{games} games, {searched} moves searched")

    pool = None
    try:
        if config.workers <= 1:
            made = _make_search(config.model, config.settings)
            for path in todo:
                take(_shard(path, config.out, config.settings, made))
        else:
            pool = cf.ProcessPoolExecutor(config.workers, mp_context=multiprocessing.get_context("spawn"),
                                          initializer=_init_worker, initargs=(config.model, config.settings))
            futures = [pool.submit(_shard, path, config.out, config.settings) for path in todo]
            for future in cf.as_completed(futures):
                take(future.result())
    except BaseException:
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        bar.close()
        raise
    if pool is not None:
        pool.shutdown(wait=True)
    bar.close()
    return games, searched


def parse_args(argv: list[str] | None = None) -> ReanalyseConfig:
    """The command line -> ``ReanalyseConfig``."""
    p = argparse.ArgumentParser(prog="python -m training.reanalyse", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", type=Path, required=True, help="ONNX model that searches")
    p.add_argument("--games", type=Path, required=True, help="folder of game shards (*.jsonl.gz)")
    p.add_argument("--out", type=Path, required=True, help="folder for the reanalysed shards")
    p.add_argument("--visits", type=int, default=200, help="visits of each search (default 200)")
    p.add_argument("--moves", choices=MOVES, default="missing",
                   help="missing: only moves without a policy target (default); all: every move")
    p.add_argument("--engine", choices=ENGINES, default="native",
                   help="the PUCT search compiled (native, the default) or in Python: the same targets")
    p.add_argument("--c-puct", type=float, default=1.5)
    p.add_argument("--batch-size", type=int, default=8, help="leaves evaluated per batch (default 8)")
    p.add_argument("--workers", type=int, default=1, help="processes, one onnxruntime thread each")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    settings = ReanalyseSettings(args.visits, args.moves, args.engine, args.c_puct, args.batch_size)
    try:
        settings.check()
    except ValueError as exc:
        p.error(str(exc))
    if args.workers < 1:
        p.error(f"--workers must be >= 1, got {args.workers}")
    if not args.games.is_dir():
        p.error(f"--games: no folder {args.games}")
    if not args.model.is_file():
        p.error(f"--model: no file {args.model}")
    config = ReanalyseConfig(args.model, args.games, args.out, settings, args.workers, not args.no_progress)
    try:
        check_record(config)
    except ValueError as exc:
        p.error(str(exc))
    return config


def main(argv: list[str] | None = None) -> int:
    config = parse_args(argv)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        games, searched = run(config)
    except KeyboardInterrupt:
        print(f"\nstopped; {len(shard_paths(config.out))} shards in {config.out}", file=sys.stderr)
        return 130
    except (FileNotFoundError, ValueError) as exc:
        print(f"[reanalyse] {exc}", file=sys.stderr)
        return 2
    print(f"reanalysed {games} games ({searched} moves searched) into {config.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
