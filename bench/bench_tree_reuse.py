"""Tree reuse at play time: how much of each move's search the previous moves' tree gave.

    python -m bench.bench_tree_reuse [--games 4] [--visits 800] [--model PATH]

Two search players with the shipped model (each its own tree, as two engines in a
match) play whole 9x9 games, komi 7, with the play-time settings (``PlayerConfig``;
``--visits`` per move, no time limit, so the figure does not depend on the machine;
the first two moves random, so the games differ). Before each of a player's searches
the tree it keeps is re-rooted at the position (``SearchPlayer.prepare``): the root's
visits then are what its own last search and the opponent's reply left. A search
stops at ``--visits`` root visits, reused ones included, so those are evaluations
saved. Prints a markdown table: the share of each move's budget that came from the
tree, by move and in all, and how often nothing was found (the tree lost).
"""

from __future__ import annotations

import argparse
import random
import statistics
from pathlib import Path

from bench.bench_engine import SHIPPED
from gobuddy.ai.onnx_evaluator import OnnxEvaluator
from gobuddy.ai.player import PlayerConfig, SearchPlayer
from gobuddy.go.coords import BLACK, WHITE
from gobuddy.go.game import RESIGN, Game, Ruleset
from gobuddy.go.playout import random_move


def play(players: dict[int, SearchPlayer], visits: int, seed: int, max_moves: int = 120) -> list[float]:
    """One game; the reused share of the budget at each search."""
    rng = random.Random(seed)
    game = Game(9, Ruleset("chinese", 7.0))
    for player in players.values():
        player.search.clear()
    for _ in range(2):
        game.play(random_move(game.position, rng))
    shares = []
    while game.move_number < max_moves and not game.both_passed():
        color = game.to_play
        player = players[color]
        player.prepare(game, color)
        root = player.search.root
        shares.append(min(1.0, (root.visits if root is not None else 0) / visits))
        move = player.genmove(game, color)
        if move == RESIGN:
            break
        game.play(move, color)
    return shares


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=4)
    p.add_argument("--visits", type=int, default=800)
    p.add_argument("--model", type=Path, default=SHIPPED)
    a = p.parse_args(argv)
    config = PlayerConfig(visits=a.visits)
    players = {c: SearchPlayer(OnnxEvaluator(a.model), config) for c in (BLACK, WHITE)}
    shares: list[float] = []
    for g in range(a.games):
        shares += play(players, a.visits, seed=g)
    lost = sum(1 for s in shares if s == 0)
    print("| searches | visits a move | reused share, mean | median | p10 | p90 | tree lost (nothing reused) |")
    print("|---|---|---|---|---|---|---|")
    deciles = statistics.quantiles(shares, n=10)
    print(f"| {len(shares)} ({a.games} games) | {a.visits} | {statistics.fmean(shares):.1%} | "
          f"{statistics.median(shares):.1%} | {deciles[0]:.1%} | {deciles[-1]:.1%} | {lost} ({lost / len(shares):.1%}) |")


if __name__ == "__main__":
    main()
