"""The GTP front end: ``python -m engine_worker.gtp`` speaks GTP 2 on stdin/stdout.

Options (``--help`` says what each does) build a ``GtpConfig``; ``make_player`` turns it
into the object that answers ``genmove``: the MCTS player of ``gobuddy.ai.player`` with
the shipped models (one per board size: 9x9 and 13x13; or ``--model``, once per size) and
its budget per move, a named level of
``gobuddy.ai.levels`` (``--level``), or with ``--random`` the random legal-move player of
``gobuddy.go.playout`` (for protocol and rules tests). Beside the standard commands it
registers ``kgs-genmove_cleanup`` and ``lz-analyze`` (``engine_worker.gtp_manners``),
``gobuddy-explain COLOR VERTEX`` (``engine_worker.gtp_explain``), and ``final_score`` and
``final_status_list`` from ``gobuddy.ai.final_status.judge`` (the Play page counts with
the same). Heavy imports belong inside ``make_player`` so the front end starts fast.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass

from engine_worker.shipped import level_models, shipped_twins

# The budget per move when neither --visits nor --time is given, whichever comes first.
# The time decides on the 2-core project machines (the shipped int8 twin searches about
# 5,000 visits a second with the native search on the AMD one; bench/RESULTS.md); 0.9 s rather than 1 s
# because a move's wall time adds the last batch and the GTP exchange (a 1 s budget
# measured up to 1.08 s a move), and the bar in models/MODEL_CARD.md is 1 s a move.
# The visit cap keeps a faster machine from spending time the play does not need.
DEFAULT_PLAY_VISITS = 8000
DEFAULT_PLAY_SECONDS = 0.9
# onnxruntime threads when --threads is not given: two where the machine has them (with
# the search's pipeline about 1,500 visits a second on the 2-core project machine, against
# about 1,000 with one; bench/RESULTS.md). A GTP engine thinks while its opponent waits.
DEFAULT_THREADS = min(2, os.cpu_count() or 1)
# The models played without --model: the shipped models' int8 twins, one per board size
# (``engine_worker.shipped``): ``boardsize`` takes the sizes they play.
SHIPPED_MODELS = shipped_twins()
# The models a level below ``full`` plays without --model: the one its calibration played
# (``models/levels/``), else the shipped one of that size.
LEVEL_MODELS = tuple(pinned if pinned.is_file() else shipped
                     for pinned, shipped in zip(level_models(), SHIPPED_MODELS))


@dataclass(frozen=True)
class GtpConfig:
    """How the front end starts: board, komi, ko rule, and the player's settings."""

    boardsize: int = 9
    komi: float = 7.0
    superko: bool = True
    seed: int | None = None
    models: tuple[str, ...] = ()  # ONNX models, one per board size: the MCTS search player (none: random)
    visits: int | None = None  # search visits per move (None: see ``budget``)
    seconds: float | None = None  # search seconds per move (None: see ``budget``)
    threads: int = DEFAULT_THREADS  # onnxruntime intra-op threads
    temperature: float = 0.0  # move choice by visits ** (1 / T); 0 = the most visited
    temperature_moves: int = 0  # the game's first moves (both colours) chosen with the temperature
    level: str | None = None  # a named level of gobuddy.ai.levels (None: the settings above)
    choice: str = "lcb"  # the move after the search: "lcb" (gobuddy.ai.lcb) or "visits" (the most visited)
    early_stop: bool = True  # stop a search once the rest of its budget cannot change the move
    search: str = "auto"  # who runs the search: gobuddy.ai.search_engines (auto: native where it can)
    score_utility: float = 0.0  # KataGo's score utility in selection (gobuddy.ai.mcts.SearchConfig; 0: off)
    symmetry: str = "none"  # the network's symmetries per evaluation (gobuddy.ai.onnx_evaluator.SYMMETRY_MODES)
    resign: bool = True  # the search player resigns a lost game (PlayerConfig.resign_threshold); False: plays on

    def budget(self) -> tuple[int | None, float | None]:
        """(visits, seconds) per move: those given, or with neither the defaults
        (``DEFAULT_PLAY_VISITS``, ``DEFAULT_PLAY_SECONDS``, whichever comes first)."""
        if self.visits is None and self.seconds is None:
            return DEFAULT_PLAY_VISITS, DEFAULT_PLAY_SECONDS
        return self.visits, self.seconds


def parse_args(argv: list[str] | None = None) -> GtpConfig:
    parser = argparse.ArgumentParser(prog="python -m engine_worker.gtp",
                                     description="Go Learning Buddy engine over GTP on stdin/stdout.")
    parser.add_argument("--boardsize", type=int, default=9, help="initial board size (default 9)")
    parser.add_argument("--komi", type=float, default=7.0, help="initial komi (default 7)")
    parser.add_argument("--simple-ko", action="store_true",
                        help="simple ko only instead of positional superko (as GNU Go plays)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the move choice")
    parser.add_argument("--model", action="append", default=None,
                        help="ONNX model the search plays with; once per board size for several (default: the "
                             "shipped models' int8 twins, models/gobuddy-9x9.int8.onnx and gobuddy-13x13.int8.onnx)")
    parser.add_argument("--random", action="store_true",
                        help="play uniformly random legal moves (never filling an own eye) instead of searching")
    parser.add_argument("--visits", type=int, default=None, help=f"search visits per move (with neither --visits nor --time: {DEFAULT_PLAY_VISITS} "
                             f"or {DEFAULT_PLAY_SECONDS:g} s, whichever comes first)")
    parser.add_argument("--time", type=float, default=None, dest="seconds", help="search seconds per move")
    parser.add_argument("--threads", type=int, default=DEFAULT_THREADS,
                        help=f"onnxruntime threads (default {DEFAULT_THREADS}: two where the machine has them)")
    parser.add_argument("--temperature", type=float, default=0.0,
                        help="draw moves with probability proportional to visits^(1/T) ("
                             "default 0: the most visited move)")
    parser.add_argument("--temperature-moves", type=int, default=None,
                        help="how many moves of a game (both colours, from move 1) use --temperature "
                             "(default 30 when --temperature is given)")
    parser.add_argument("--choice", choices=("lcb", "visits"), default="lcb",
                        help="the move after the search: the best lower confidence bound on its value "
                             "(default) or the most visited")
    parser.add_argument("--no-early-stop", action="store_false", dest="early_stop",
                        help="spend the whole budget on every move, even when the move can no longer change")
    parser.add_argument("--search", choices=("auto", "native", "python"), default="auto",
                        help="who runs the search: the compiled tree (native), the Python one (python), or "
                             "auto (default): native unless it cannot be built here")
    parser.add_argument("--score-utility", type=float, default=0.0, metavar="LAMBDA",
                        help="lean the search towards larger score leads: LAMBDA * 2/pi * atan(score / 5 points) "
                             "joins each move's value in selection (KataGo's score utility; default 0: off)")
    parser.add_argument("--symmetry", choices=("none", "random", "average"), default="none",
                        help="the board symmetries each network evaluation runs: none (default), one drawn at "
                             "random, or all 8 averaged (8 times the network's work; the Python search)")
    parser.add_argument("--no-resign", action="store_false", dest="resign",
                        help="never resign: play every game out (the search player; measuring a raw "
                             "policy, whose one-visit value is no ground to resign on)")
    parser.add_argument("--level", default=None,
                        help="play at a named level (see --list-levels; 'full' is the default player); "
                             "excludes --visits, --time, --random and --temperature. Without --model a level "
                             "below 'full' plays the model its calibration played (models/levels/)")
    parser.add_argument("--list-levels", action="store_true",
                        help="print the level names, weakest first, one a line, and exit")
    args = parser.parse_args(argv)
    from gobuddy.go.coords import MAX_SIZE, MIN_SIZE

    if args.list_levels:
        from gobuddy.ai.levels import level_names

        print("\n".join(level_names()))
        raise SystemExit(0)
    level = None
    if args.level is not None:
        from gobuddy.ai.levels import level_named

        clashes = [flag for flag, given in (("--visits", args.visits is not None), ("--time", args.seconds is not None),
                                            ("--random", args.random),
                                            ("--temperature", bool(args.temperature) or args.temperature_moves is not None))
                   if given]
        if clashes:
            parser.error(f"--level excludes {', '.join(clashes)} (a level sets how the engine plays)")
        try:
            level = level_named(args.level).name
        except KeyError as exc:
            parser.error(exc.args[0])

    if not MIN_SIZE <= args.boardsize <= MAX_SIZE:
        parser.error(f"--boardsize must be from {MIN_SIZE} to {MAX_SIZE}, got {args.boardsize}")
    if args.random and args.model is not None:
        parser.error("--random and --model exclude each other")
    if args.random and (args.visits is not None or args.seconds is not None):
        parser.error("--visits and --time need the search, not --random")
    if args.random and (args.temperature or args.temperature_moves is not None):
        parser.error("--temperature and --temperature-moves need the search, not --random")
    below_full = level is not None and not level_named(level).is_full
    defaults = LEVEL_MODELS if below_full else SHIPPED_MODELS
    models = () if args.random else tuple(args.model or (str(path) for path in defaults))
    if args.threads < 1:
        parser.error(f"--threads must be at least 1, got {args.threads}")
    if not 0 <= args.score_utility < float("inf") or (args.score_utility > 0 and (args.random or level is not None)):
        parser.error(f"--score-utility must be >= 0 and finite, and needs the default search player (got {args.score_utility})")
    if args.symmetry != "none" and (args.random or level is not None or args.search == "native"):
        parser.error(f"--symmetry {args.symmetry} needs the default search player with --search auto or python "
                     "(the native search runs the network without symmetries)")
    if not args.resign and (args.random or level is not None):
        parser.error("--no-resign needs the default search player, not --random or --level")
    if args.temperature < 0 or (args.temperature_moves is not None and args.temperature_moves < 0):
        parser.error("--temperature and --temperature-moves must not be negative")
    moves = args.temperature_moves if args.temperature_moves is not None else (30 if args.temperature else 0)
    return GtpConfig(boardsize=args.boardsize, komi=args.komi, superko=not args.simple_ko,
                     seed=args.seed, models=models, visits=args.visits, seconds=args.seconds,
                     threads=args.threads, temperature=args.temperature, temperature_moves=moves, level=level,
                     choice=args.choice, early_stop=args.early_stop, search=args.search,
                     score_utility=args.score_utility, symmetry=args.symmetry, resign=args.resign)


def make_evaluator(config: GtpConfig):
    """The models of ``config`` as one evaluator (``gobuddy.ai.sized_evaluator``); a
    ``ValueError`` when two of them play the same size."""
    from gobuddy.ai.onnx_evaluator import OnnxEvaluator
    from gobuddy.ai.sized_evaluator import SizedEvaluator

    return SizedEvaluator.of([OnnxEvaluator(path, intra_threads=config.threads, symmetry=config.symmetry,
                                            seed=config.seed) for path in config.models])


def make_player(config: GtpConfig):
    """The ``genmove`` player the configuration asks for."""
    if config.level is not None:
        from gobuddy.ai.levels import LevelPlayer, level_named

        level = level_named(config.level)
        if not level.is_full:
            return LevelPlayer(make_evaluator(config), level, seed=config.seed, komi=config.komi)
    if config.models:
        from gobuddy.ai.lcb import LcbConfig
        from gobuddy.ai.mcts import SearchConfig
        from gobuddy.ai.player import PlayerConfig, SearchPlayer

        visits, seconds = config.budget()
        return SearchPlayer(make_evaluator(config),
                            PlayerConfig(visits=visits, seconds=seconds, temperature=config.temperature,
                                         temperature_moves=config.temperature_moves,
                                         lcb=LcbConfig() if config.choice == "lcb" else None,
                                         early_stop=config.early_stop,
                                         resign_threshold=PlayerConfig.resign_threshold if config.resign else None),
                            SearchConfig(komi=config.komi, seed=config.seed, score_utility=config.score_utility),
                            engine=config.search)
    from gobuddy.go.playout import RandomPlayer

    return RandomPlayer(seed=config.seed)


def main(argv: list[str] | None = None) -> int:
    config = parse_args(argv)
    from gobuddy.ai.final_status import judge
    from engine_worker.gtp_explain import register as register_explain
    from engine_worker.gtp_engine import GtpEngine
    from engine_worker.gtp_manners import register_player
    from gobuddy.go.game import Game, Ruleset

    game = Game(config.boardsize, Ruleset("chinese", config.komi, simple_ko=not config.superko))
    try:
        player = make_player(config)
    except (ValueError, FileNotFoundError) as exc:  # e.g. two models of one size, a missing file
        print(f"python -m engine_worker.gtp: error: {exc}", file=sys.stderr)
        return 2
    if getattr(player, "search_note", ""):  # auto fell back to the Python search: say why, once
        print(f"python -m engine_worker.gtp: {player.search_note}; searching in Python", file=sys.stderr)
    engine = GtpEngine(player, game, final_status=judge)
    if hasattr(player, "evaluator"):  # a model's player adds kgs-genmove_cleanup, lz-analyze
        register_player(engine, player)
    register_explain(engine, player)  # gobuddy-explain COLOR VERTEX
    engine.shell.run(sys.stdin, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
