"""Self-play games with the real search: ``python -m training.selfplay``.

    python -m training.selfplay --model models/candidate.onnx --out data/selfplay \\
        --games 500 --visits 200 --workers 2

Both sides are one ``gobuddy.ai.mcts.Search`` over one ``OnnxEvaluator`` (one
onnxruntime thread per worker process), the tree reused from move to move. With
``--engine native`` (the default) the PUCT search runs compiled
(``gobuddy.ai.native_search``: the same trees, draws and games as ``Search``, without
its Python work); ``--engine python`` runs ``Search`` itself. The Gumbel root search
always runs in Python. Per move:

- Playout cap randomisation (KataGo), on when ``--fast-visits`` > 0: a move is a
  *full* search (``--visits``, Dirichlet noise at the root) with probability
  ``--full-fraction``, else a *fast* search (``--fast-visits``, no noise). Only full
  searches record a policy target; a fast move's entry in ``visits`` is null. With
  ``--fast-visits 0`` (the default) every move is a full search.
- The first ``--temperature-moves`` moves are drawn in proportion to
  ``visits ** (1 / temperature)``, later ones are the most visited move. Own eye-like
  points are never played; a pass that loses by the Tromp-Taylor count as it stands
  is replaced by the most visited other move; after the opponent's pass, a side that
  wins the count passes (ending the game).
- Root search (``--search``): ``puct`` (the default) is the PUCT search above, with
  Dirichlet noise on full searches and the root visit counts as the policy target;
  ``gumbel`` is ``gobuddy.ai.gumbel`` (Gumbel-top-k over ``--gumbel-k`` candidates, 16,
  or ``--gumbel-fast-k``, 8, on fast searches; sequential halving over exactly
  ``--visits``/``--fast-visits`` new simulations; no Dirichlet noise), which plays its
  chosen move (the Gumbel draw replaces the temperature; the rules on eyes and passes
  below still apply) and records ``softmax(logits + sigma(completed Q))`` as the target,
  in thousandths (integers, entries that round to 0 left out) in ``visits``.
- Forced playouts (``--forced-playouts K``, PUCT only, default 0: off): on full searches
  a root child with fewer than ``sqrt(K * prior * total)`` visits is searched first
  (KataGo's, K = 2 there), and the recorded target has those visits pruned back out
  (``training.target_pruning``); fast searches are unchanged.
- Score utility (``--score-utility LAMBDA``, default 0: off): KataGo's, in every
  selection of both kinds of search (``gobuddy.ai.mcts.SearchConfig.score_utility``).
- Resignation: a side resigns when its root value stays below
  ``--resign-threshold`` for ``--resign-after`` of its moves in a row, once a quarter
  of the points have been played; in ``--no-resign-fraction`` of the games it may not,
  and such a game notes when it would have (to measure false resignations).

A game ends by two passes or at the move cap (default ``3 * size * size``) and is
scored by Tromp-Taylor area (every stone alive: the players had to capture what is
dead), which gives ``margin`` and ``ownership`` (``ownership_source`` ``area``). The
games are ``training.game_shards`` samples with ``source`` ``selfplay``, the root
value after each move's search in ``root_values`` (for value targets from the search),
and the root visit counts in ``visits`` (``training.positions`` turns them into policy targets),
appended to ``OUT`` as ``PREFIX-NNNNNN.jsonl.gz`` shards. Re-running counts the games on
disk and plays the rest; Ctrl-C writes the finished games first.

Not done here: choosing which model plays (``training.gating``), position building.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import multiprocessing
import random
import signal
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from gobuddy.ai.features import History, board_array, push_history
from gobuddy.ai.gumbel import GumbelConfig, GumbelResult, gumbel_search
from gobuddy.ai.mcts import Search, SearchConfig
from gobuddy.ai.native_search import NativeSearch
from gobuddy.go.coords import BLACK, WHITE, color_to_str, to_gtp
from gobuddy.go.position import Position
from gobuddy.go.scoring import area_score, ownership, tromp_taylor_margin
from training.game_shards import GameSample, ShardAppender, count_games
from training.target_pruning import pruned_visits

__all__ = ["ENGINES", "GameSettings", "SelfPlayConfig", "choose_move", "command", "generate", "play_game", "root_visits",
           "target_counts"]

SEARCHES = ("puct", "gumbel")
ENGINES = ("native", "python")  # how the PUCT search runs: compiled (NativeSearch) or Search
TARGET_TOTAL = 1000  # a Gumbel policy target is stored as integer thousandths


@dataclass(frozen=True)
class GameSettings:
    """How one self-play game is played (see the module docstring)."""

    size: int = 9
    komi: float = 7.0
    visits: int = 200
    fast_visits: int = 0
    full_fraction: float = 0.25
    temperature: float = 1.0
    temperature_moves: int = 8
    resign_threshold: float | None = -0.9
    resign_after: int = 3
    no_resign_fraction: float = 0.2
    max_moves: int | None = None
    search: SearchConfig = field(default_factory=lambda: SearchConfig(pipeline=False))
    root_search: str = "puct"
    gumbel_k: int = 16
    gumbel_fast_k: int = 8
    engine: str = "native"
    forced_playouts: float = 0.0  # K of forced playouts and target pruning on full PUCT searches (0: off)

    @property
    def move_cap(self) -> int:
        return self.max_moves if self.max_moves is not None else 3 * self.size * self.size

    def check(self) -> None:
        """``ValueError`` naming the first setting out of range."""
        if self.visits < 1 or self.fast_visits < 0:
            raise ValueError(f"visits must be >= 1 and fast_visits >= 0, got {self.visits}, {self.fast_visits}")
        if not 0.0 < self.full_fraction <= 1.0:
            raise ValueError(f"full_fraction must be in (0, 1], got {self.full_fraction}")
        if not 0.0 <= self.no_resign_fraction <= 1.0:
            raise ValueError(f"no_resign_fraction must be in [0, 1], got {self.no_resign_fraction}")
        if self.temperature < 0 or self.temperature_moves < 0 or self.resign_after < 1:
            raise ValueError("temperature and temperature_moves must be >= 0, resign_after >= 1")
        if self.root_search not in SEARCHES:
            raise ValueError(f"root_search must be one of {', '.join(SEARCHES)}, got {self.root_search!r}")
        if self.gumbel_k < 1 or self.gumbel_fast_k < 1:
            raise ValueError(f"gumbel_k and gumbel_fast_k must be >= 1, got {self.gumbel_k}, {self.gumbel_fast_k}")
        if self.forced_playouts < 0 or (self.forced_playouts > 0 and self.root_search != "puct"):
            raise ValueError(f"forced_playouts must be >= 0, and only with the puct search, got "
                             f"{self.forced_playouts} with {self.root_search}")
        if self.engine not in ENGINES:
            raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {self.engine!r}")


def root_visits(search: Search, forced: float = 0.0) -> dict[str, int]:
    """The root's visit counts by GTP vertex (moves with at least one visit); with
    ``forced`` (the search's forced playouts' K) pruned first (``training.target_pruning``)."""
    root = search.root
    size = root.position.size
    counts = root.N if forced <= 0 else pruned_visits(root.N, root.W, root.prior, search.config.c_puct, forced)
    return {to_gtp(int(m), size): int(round(n)) for m, n in zip(root.moves, counts) if n >= 1}


def target_counts(result: GumbelResult, size: int) -> dict[str, int]:
    """A Gumbel search's policy target by GTP vertex, in integer thousandths (entries
    that round to 0 left out; ``training.positions`` normalises them)."""
    counts = np.rint(result.policy * TARGET_TOTAL).astype(int)
    return {to_gtp(int(m), size): int(c) for m, c in zip(result.moves, counts) if c >= 1}


def choose_move(search: Search, pos: Position, temperature: float, komi: float,
                gumbel: GumbelResult | None = None) -> int:
    """The move to play after a search of ``pos`` (the rules of the module docstring).
    With ``gumbel`` (that search's result) its order replaces the search's own choice
    and ``temperature`` is not used."""

    def pick(exclude: set[int], temperature: float) -> int:
        return gumbel.choose(exclude) if gumbel is not None else search.choose(temperature, exclude=exclude)
    color = pos.to_play
    margin = tromp_taylor_margin(pos, komi) * color
    if pos.last_move == pos.pass_point and pos.passes >= 1 and margin > 0:
        return pos.pass_point
    eyes = {p for p in range(pos.n) if pos.board[p] == 0 and pos.is_eye_like(p, color)}
    move = pick(eyes, temperature)
    if move == pos.pass_point and margin < 0:
        moves = {int(m) for m in search.root.moves}
        others = moves - eyes - {pos.pass_point}
        if others:
            move = pick(moves - others, 0.0)
    return move


def play_game(evaluator: Any, settings: GameSettings, seed: int) -> GameSample:
    """One self-play game; every random choice follows from ``seed``."""
    rng = random.Random(seed)
    may_resign = settings.resign_threshold is not None and rng.random() >= settings.no_resign_fraction
    base = replace(settings.search, komi=settings.komi, noise=True, max_moves=settings.move_cap,
                   seed=rng.getrandbits(32))
    gumbel = settings.root_search == "gumbel"
    native = settings.engine == "native" and not gumbel
    search = NativeSearch(evaluator, base, settings.size) if native else Search(evaluator, base)
    gumbel_rng = np.random.default_rng([base.seed, 23]) if gumbel else None
    pos = Position(settings.size, superko=True)
    history: History = ()
    moves: list[str] = []
    visits: list[dict[str, int] | None] = []
    root_values: list[float] = []  # the root's value for the mover, after each move's search
    low = {BLACK: 0, WHITE: 0}
    resigned: int | None = None
    notes: list[str] = []
    while pos.passes < 2 and pos.move_count < settings.move_cap:
        full = settings.fast_visits <= 0 or rng.random() < settings.full_fraction
        budget = settings.visits if full else settings.fast_visits
        result = None
        if gumbel:
            search.config = replace(base, noise=False)
            search.set_position(pos, history)
            k = settings.gumbel_k if full else settings.gumbel_fast_k
            result = gumbel_search(search, budget, gumbel_rng, GumbelConfig(considered=k))
        else:
            search.config = replace(base, noise=full, forced_playouts=settings.forced_playouts if full else 0.0)
            search.set_position(pos, history)
            search.run(visits=budget)
        color = pos.to_play
        root_value = float(search.root.q)
        if settings.resign_threshold is not None and pos.move_count > pos.n // 4:
            low[color] = low[color] + 1 if root_value < settings.resign_threshold else 0
            if low[color] >= settings.resign_after:
                if may_resign:
                    resigned = color
                    break
                if not notes:
                    notes.append(f"resignation disabled: {color_to_str(color)} would have resigned "
                                 f"at move {pos.move_count + 1}")
        temperature = settings.temperature if pos.move_count < settings.temperature_moves else 0.0
        move = choose_move(search, pos, temperature, settings.komi, result)
        moves.append(to_gtp(move, settings.size))
        root_values.append(round(min(1.0, max(-1.0, root_value)), 3))
        if not full:
            visits.append(None)
        else:
            visits.append(target_counts(result, settings.size) if result is not None
                          else root_visits(search, settings.forced_playouts))
        history = push_history(history, board_array(pos))
        pos.play(move)
    name = evaluator.name
    common = dict(size=settings.size, komi=settings.komi, moves=moves, source="selfplay", black=name,
                  white=name, seed=seed, notes=notes, visits=visits, root_values=root_values)
    if resigned is not None:
        winner = color_to_str(-resigned)
        return GameSample(result=f"{winner}+R", winner=winner, reason="resign", **common)
    score = area_score(pos, settings.komi)
    margin = score.margin
    return GameSample(result=score.result, winner={BLACK: "B", WHITE: "W"}.get(score.winner),
                      margin=margin, ownership=[int(v) for v in ownership(pos)],
                      reason="score" if pos.passes >= 2 else "move_cap", ownership_source="area", **common)


@dataclass(frozen=True)
class SelfPlayConfig:
    """A self-play run; built from the command line in ``main``."""

    model: Path
    out: Path
    games: int
    settings: GameSettings = GameSettings()
    workers: int = 1
    per_shard: int = 50
    prefix: str = "selfplay"
    seed: int = 0
    progress: bool = True


_worker_evaluator: Any = None


def _load_evaluator(model: Path) -> Any:
    from gobuddy.ai.onnx_evaluator import OnnxEvaluator

    return OnnxEvaluator(model, intra_threads=1, inter_threads=1)


def _init_worker(model: Path) -> None:
    global _worker_evaluator
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    _worker_evaluator = _load_evaluator(model)


def _play_in_worker(settings: GameSettings, seed: int) -> GameSample:
    return play_game(_worker_evaluator, settings, seed)


def false_resignations(samples: list[GameSample]) -> tuple[int, int]:
    """(games where the side that would have resigned won after all, games with such a note)."""
    noted = wrong = 0
    for s in samples:
        if s.notes and s.notes[0].startswith("resignation disabled:"):
            noted += 1
            wrong += s.notes[0].split(": ")[1][0] == s.winner
    return wrong, noted


def generate(config: SelfPlayConfig) -> list[GameSample]:
    """Play until ``config.out`` holds ``config.games`` games with ``config.prefix``;
    return the games this run added. ``KeyboardInterrupt`` stops cleanly (finished
    games are written first)."""
    config.settings.check()
    if not config.model.is_file():
        raise FileNotFoundError(f"model {config.model} does not exist")
    config.out.mkdir(parents=True, exist_ok=True)
    on_disk = count_games(config.out, config.prefix)
    wanted = max(0, config.games - on_disk)
    seeds = random.Random(f"{config.seed}/{on_disk}")
    added: list[GameSample] = []
    shards = ShardAppender(config.out, config.prefix, config.per_shard)
    bar = tqdm(total=config.games, initial=min(on_disk, config.games), unit="game", disable=not config.progress,
               desc=f"selfplay {config.out}", smoothing=0.05)

    def take(sample: GameSample) -> None:
        added.append(sample)
        shards.add(sample)
        black = sum(s.winner == "B" for s in added) / len(added)
        length = np.mean([len(s.moves) for s in added])
        resigned = sum(s.reason == "resign" for s in added) / len(added)
        bar.update(1)
        bar.set_postfix_str(f"B wins {black:.0%}, {length:.0f} moves/game, resigned {resigned:.0%}")

    pool = None
    try:
        if config.workers <= 1:
            evaluator = _load_evaluator(config.model)
            while len(added) < wanted:
                take(play_game(evaluator, config.settings, seeds.getrandbits(63)))
        else:
            pool = cf.ProcessPoolExecutor(config.workers, mp_context=multiprocessing.get_context("spawn"),
                                          initializer=_init_worker, initargs=(config.model,))
            running: set[cf.Future] = set()
            submitted = 0
            while len(added) < wanted:
                while len(running) < 2 * config.workers and submitted < wanted:
                    running.add(pool.submit(_play_in_worker, config.settings, seeds.getrandbits(63)))
                    submitted += 1
                finished, running = cf.wait(running, return_when=cf.FIRST_COMPLETED)
                for future in finished:
                    take(future.result())
    except BaseException:
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        shards.flush()
        bar.close()
        raise
    if pool is not None:
        pool.shutdown(wait=True)
    shards.flush()
    bar.close()
    return added


def parse_args(argv: list[str] | None = None) -> SelfPlayConfig:
    """The command line -> ``SelfPlayConfig``."""
    p = argparse.ArgumentParser(prog="python -m training.selfplay", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", type=Path, required=True, help="ONNX model that plays both sides")
    p.add_argument("--out", type=Path, default=Path("data/selfplay"), help="shard folder (default data/selfplay)")
    p.add_argument("--games", type=int, required=True, help="total games wanted in OUT (with PREFIX)")
    p.add_argument("--visits", type=int, default=200, help="visits of a full search (default 200)")
    p.add_argument("--fast-visits", type=int, default=0,
                   help="visits of a fast search; 0 = every move is a full search (default 0)")
    p.add_argument("--full-fraction", type=float, default=0.25,
                   help="share of full searches when --fast-visits > 0 (default 0.25)")
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--temperature-moves", type=int, default=8, help="moves drawn with temperature (default 8)")
    p.add_argument("--resign-threshold", type=float, default=-0.9, help="root value to resign below")
    p.add_argument("--resign-after", type=int, default=3)
    p.add_argument("--no-resign-fraction", type=float, default=0.2,
                   help="share of games played out without resignation (default 0.2)")
    p.add_argument("--never-resign", action="store_true")
    p.add_argument("--max-moves", type=int, help="move cap (default 3 x size^2)")
    p.add_argument("--size", type=int, default=9)
    p.add_argument("--komi", type=float, default=7.0)
    p.add_argument("--c-puct", type=float, default=1.5)
    p.add_argument("--dirichlet-alpha", type=float, default=0.15)
    p.add_argument("--batch-size", type=int, default=8, help="leaves evaluated per batch (default 8)")
    p.add_argument("--pipeline", action="store_true", help="evaluate on a second thread while searching")
    p.add_argument("--search", choices=SEARCHES, default="puct",
                   help="root search: puct (visit-count targets) or gumbel (Gumbel AlphaZero; default puct)")
    p.add_argument("--gumbel-k", type=int, default=16, help="Gumbel candidates of a full search (default 16)")
    p.add_argument("--gumbel-fast-k", type=int, default=8, help="Gumbel candidates of a fast search (default 8)")
    p.add_argument("--engine", choices=ENGINES, default=GameSettings.engine,
                   help="the PUCT search compiled (native, the default: the same games, faster) or in Python")
    p.add_argument("--forced-playouts", type=float, default=0.0, metavar="K",
                   help="forced playouts and policy target pruning on full PUCT searches (KataGo's K = 2; "
                        "default 0: off)")
    p.add_argument("--score-utility", type=float, default=0.0, metavar="LAMBDA",
                   help="KataGo's score utility in the search's selection (gobuddy.ai.mcts.SearchConfig; "
                        "default 0: off)")
    p.add_argument("--workers", type=int, default=1, help="processes, one onnxruntime thread each")
    p.add_argument("--per-shard", type=int, default=50)
    p.add_argument("--prefix", default="selfplay")
    p.add_argument("--seed", type=int, help="seed of the run (default: random)")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    if not 0 <= args.score_utility < float("inf"):  # before SearchConfig, which would refuse it with a traceback
        p.error(f"--score-utility must be >= 0 and finite, got {args.score_utility}")
    settings = GameSettings(
        size=args.size, komi=args.komi, visits=args.visits, fast_visits=args.fast_visits,
        full_fraction=args.full_fraction, temperature=args.temperature, temperature_moves=args.temperature_moves,
        resign_threshold=None if args.never_resign else args.resign_threshold, resign_after=args.resign_after,
        no_resign_fraction=args.no_resign_fraction, max_moves=args.max_moves, root_search=args.search,
        gumbel_k=args.gumbel_k, gumbel_fast_k=args.gumbel_fast_k, engine=args.engine,
        forced_playouts=args.forced_playouts,
        search=SearchConfig(c_puct=args.c_puct, dirichlet_alpha=args.dirichlet_alpha,
                            batch_size=args.batch_size, pipeline=args.pipeline,
                            score_utility=args.score_utility))
    try:
        settings.check()
    except ValueError as exc:
        p.error(str(exc))
    if args.games < 0 or args.workers < 1 or args.per_shard < 1:
        p.error("--games must be >= 0, --workers and --per-shard >= 1")
    seed = args.seed if args.seed is not None else random.SystemRandom().getrandbits(32)
    return SelfPlayConfig(args.model, args.out, args.games, settings, args.workers, args.per_shard,
                          args.prefix, seed, not args.no_progress)


def command(model: Path, out: Path, *, size: int, visits: int, fast_visits: int, full_fraction: float,
            search: str, workers: int, seed: int, games: int, per_shard: int = 25, progress: bool = False,
            max_moves: int | None = None, engine: str = GameSettings.engine, forced_playouts: float = 0.0,
            score_utility: float = 0.0) -> list[str]:
    """The command line of this module with these settings: the one spelling of it that
    the training rounds (``training.improve``) and the benchmark (``bench.bench_selfplay``)
    run. Not checked here: the values (``parse_args`` checks them when it runs)."""
    return ([sys.executable, "-m", "training.selfplay", "--model", str(model), "--size", str(size), "--out", str(out),
             "--visits", str(visits), "--fast-visits", str(fast_visits), "--full-fraction", str(full_fraction),
             "--search", search, "--workers", str(workers), "--seed", str(seed), "--games", str(games),
             "--per-shard", str(per_shard), "--engine", engine]
            + ([] if progress else ["--no-progress"]) + (["--max-moves", str(max_moves)] if max_moves else [])
            + (["--forced-playouts", str(forced_playouts)] if forced_playouts > 0 else [])
            + (["--score-utility", str(score_utility)] if score_utility > 0 else []))


def main(argv: list[str] | None = None) -> int:
    config = parse_args(argv)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        added = generate(config)
    except KeyboardInterrupt:
        print(f"\nstopped; {count_games(config.out, config.prefix)} games in {config.out}", file=sys.stderr)
        return 130
    wrong, noted = false_resignations(added)
    print(f"added {len(added)} games; {count_games(config.out, config.prefix)} in {config.out}"
          + (f"; false resignations {wrong}/{noted} in games played out" if noted else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
