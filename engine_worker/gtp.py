"""The GTP front end: ``python -m engine_worker.gtp`` speaks GTP 2 on stdin/stdout.

Options build a ``GtpConfig``; ``make_player`` turns it into the object that answers
``genmove`` (today the random legal-move player of ``gobuddy.go.playout``; the MCTS
player plugs in there, with its own options such as ``--model``, ``--visits`` and
``--time``). Heavy imports belong inside ``make_player`` so the front end starts fast.
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


def parse_args(argv: list[str] | None = None) -> GtpConfig:
    parser = argparse.ArgumentParser(prog="python -m engine_worker.gtp",
                                     description="Go Learning Buddy engine over GTP on stdin/stdout.")
    parser.add_argument("--boardsize", type=int, default=9, help="initial board size (default 9)")
    parser.add_argument("--komi", type=float, default=7.0, help="initial komi (default 7)")
    parser.add_argument("--simple-ko", action="store_true",
                        help="simple ko only instead of positional superko (as GNU Go plays)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the move choice")
    args = parser.parse_args(argv)
    from gobuddy.go.coords import MAX_SIZE, MIN_SIZE

    if not MIN_SIZE <= args.boardsize <= MAX_SIZE:
        parser.error(f"--boardsize must be from {MIN_SIZE} to {MAX_SIZE}, got {args.boardsize}")
    return GtpConfig(boardsize=args.boardsize, komi=args.komi, superko=not args.simple_ko,
                     seed=args.seed)


def make_player(config: GtpConfig):
    """The ``genmove`` player the configuration asks for."""
    from gobuddy.go.playout import RandomPlayer

    return RandomPlayer(seed=config.seed)


def main(argv: list[str] | None = None) -> int:
    config = parse_args(argv)
    from gobuddy.go.gtp_engine import Game, GtpEngine

    game = Game(config.boardsize, config.komi, superko=config.superko)
    GtpEngine(make_player(config), game).run(sys.stdin, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
