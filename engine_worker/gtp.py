"""The GTP front end: ``python -m engine_worker.gtp`` speaks GTP 2 on stdin/stdout.

Options build a ``GtpConfig``; ``make_player`` turns it into the object that answers
``genmove``: the random legal-move player of ``gobuddy.go.playout``, or with
``--model PATH`` the MCTS player of ``gobuddy.ai.player`` (``--visits N``, ``--time S``
per move, ``--threads``, and for varied play ``--temperature T`` over the first
``--temperature-moves M`` moves of a game: a move drawn with probability proportional
to visits ** (1 / T), seeded by ``--seed``), which also registers
``kgs-genmove_cleanup`` and ``lz-analyze``. Heavy imports belong inside ``make_player``
so the front end starts fast.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class GtpConfig:
    """How the front end starts: board, komi, ko rule, and the player's settings."""

    boardsize: int = 9
    komi: float = 7.0
    superko: bool = True
    seed: int | None = None
    model: str | None = None  # ONNX model: play with the MCTS search player
    visits: int | None = None  # search budget per move (default 800 when no --time)
    seconds: float | None = None  # search time per move
    threads: int = 1  # onnxruntime intra-op threads
    temperature: float = 0.0  # move choice by visits ** (1 / T); 0 = the most visited
    temperature_moves: int = 0  # the game's first moves (both colours) chosen with the temperature


def parse_args(argv: list[str] | None = None) -> GtpConfig:
    parser = argparse.ArgumentParser(prog="python -m engine_worker.gtp",
                                     description="Go Learning Buddy engine over GTP on stdin/stdout.")
    parser.add_argument("--boardsize", type=int, default=9, help="initial board size (default 9)")
    parser.add_argument("--komi", type=float, default=7.0, help="initial komi (default 7)")
    parser.add_argument("--simple-ko", action="store_true",
                        help="simple ko only instead of positional superko (as GNU Go plays)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the move choice")
    parser.add_argument("--model", default=None, help="ONNX model: play with MCTS instead of random moves")
    parser.add_argument("--visits", type=int, default=None, help="search visits per move (with --model)")
    parser.add_argument("--time", type=float, default=None, dest="seconds", help="search seconds per move")
    parser.add_argument("--threads", type=int, default=1, help="onnxruntime threads (default 1)")
    parser.add_argument("--temperature", type=float, default=0.0,
                        help="draw moves with probability proportional to visits^(1/T) (with --model; "
                             "default 0: the most visited move)")
    parser.add_argument("--temperature-moves", type=int, default=None,
                        help="how many moves of a game (both colours, from move 1) use --temperature "
                             "(default 30 when --temperature is given)")
    args = parser.parse_args(argv)
    from gobuddy.go.coords import MAX_SIZE, MIN_SIZE

    if not MIN_SIZE <= args.boardsize <= MAX_SIZE:
        parser.error(f"--boardsize must be from {MIN_SIZE} to {MAX_SIZE}, got {args.boardsize}")
    if args.model is None and (args.visits is not None or args.seconds is not None):
        parser.error("--visits and --time need --model")
    if args.model is None and (args.temperature or args.temperature_moves is not None):
        parser.error("--temperature and --temperature-moves need --model")
    if args.temperature < 0 or (args.temperature_moves is not None and args.temperature_moves < 0):
        parser.error("--temperature and --temperature-moves must not be negative")
    moves = args.temperature_moves if args.temperature_moves is not None else (30 if args.temperature else 0)
    return GtpConfig(boardsize=args.boardsize, komi=args.komi, superko=not args.simple_ko,
                     seed=args.seed, model=args.model, visits=args.visits, seconds=args.seconds,
                     threads=args.threads, temperature=args.temperature, temperature_moves=moves)


def make_player(config: GtpConfig):
    """The ``genmove`` player the configuration asks for."""
    if config.model is not None:
        from gobuddy.ai.mcts import SearchConfig
        from gobuddy.ai.onnx_evaluator import OnnxEvaluator
        from gobuddy.ai.player import PlayerConfig, SearchPlayer

        visits = config.visits if config.visits is not None or config.seconds is not None else 800
        return SearchPlayer(OnnxEvaluator(config.model, intra_threads=config.threads),
                            PlayerConfig(visits=visits, seconds=config.seconds, temperature=config.temperature,
                                         temperature_moves=config.temperature_moves),
                            SearchConfig(komi=config.komi, seed=config.seed))
    from gobuddy.go.playout import RandomPlayer

    return RandomPlayer(seed=config.seed)


def main(argv: list[str] | None = None) -> int:
    config = parse_args(argv)
    from gobuddy.go.gtp_engine import Game, GtpEngine

    game = Game(config.boardsize, config.komi, superko=config.superko)
    player = make_player(config)
    engine = GtpEngine(player, game)
    if hasattr(player, "register"):  # the search player adds kgs-genmove_cleanup, lz-analyze
        player.register(engine)
    engine.run(sys.stdin, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
