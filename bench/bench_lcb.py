"""Play-time search: the move by lower confidence bound (with its early stop) against
the most visited move (with its own), on the same budget.

    python -m bench.bench_lcb [--games 60] [--visits 200] [--out runs/bench-lcb] [--savings-games 4]
                              [--opponents visits visits-full] [--default-budget-games 0]

1. Head-to-head matches through the real GTP front end (``training.match``: paired
   random openings, colours swapped within a pair, the referee's area count with the
   engines' dead stones): ``ours --choice lcb`` (with its early stop) against each of
   ``--opponents``: ``visits``, the most visited move with its own early stop (the
   play-time search before the LCB); ``visits-full``, the most visited move spending
   every move's whole budget (so a win is not the budget's). All the shipped model at
   ``--visits`` a move, one onnxruntime thread each, one game at a time. A visit
   budget, not a time one, so the result does not depend on the load of the machine.
   Each match folder (``--out``/OPPONENT) is resumable; ``--games`` extends it.
2. The budget each choice spends: in-process search players (one per colour, trees
   kept between moves, as in a match) play ``--savings-games`` games from the same
   kind of openings; for each search, whether it stopped early (``settled``) and how
   many of the move's root visits it did not spend (reused visits count as spent, as
   the search counts them). The LCB games also count how often the bound chose another
   move than the most visited.
3. With ``--default-budget-games N``: the same at the GTP front end's default budget
   (``DEFAULT_PLAY_VISITS`` or ``DEFAULT_PLAY_SECONDS``, ``DEFAULT_THREADS``), with the
   wall time of each move: a time budget, so these figures depend on the machine.

Prints one markdown section: the match with its Wilson 95% interval, and the budget.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.bench_engine import SHIPPED
from gobuddy.ai import lcb
from gobuddy.ai.lcb import LcbConfig
from gobuddy.ai.onnx_evaluator import OnnxEvaluator
from gobuddy.ai.player import PlayerConfig, SearchPlayer
from gobuddy.go.coords import BLACK, WHITE, from_gtp
from gobuddy.go.game import RESIGN, Game, Ruleset
from training.engine_games import random_opening
from training.engine_spec import parse_engine
from training.match import MatchConfig, run_match


@dataclass
class Spending:
    """What the searches of one choice did."""

    searches: int = 0
    settled: int = 0
    saved: list[float] = field(default_factory=list)  # share of the budget not spent, per search
    differs: int = 0  # LCB only: searches where the bound's move was not the most visited
    seconds: list[float] = field(default_factory=list)  # wall time of each search's genmove


def spend(choice: LcbConfig | None, model: Path, visits: int, games: int, seed: int,
          seconds: float | None = None, threads: int = 1) -> Spending:
    """Play ``games`` games of two players with this choice and budget; count their searches."""
    config = PlayerConfig(visits=visits, seconds=seconds, lcb=choice)
    players = {c: SearchPlayer(OnnxEvaluator(model, intra_threads=threads), config) for c in (BLACK, WHITE)}
    out = Spending()
    for g in range(games):
        game = Game(9, Ruleset("chinese", 7.0))
        for player in players.values():
            player.search.clear()
        for vertex in random_opening(9, 2, random.Random(seed * 1000 + g)):
            game.play(from_gtp(vertex, 9))
        while game.move_number < 150 and not game.both_passed():
            color = game.to_play
            player = players[color]
            started = time.perf_counter()
            move = player.genmove(game, color)
            took = time.perf_counter() - started
            stats, root = player.last_stats, player.search.root
            if stats is not None and root is not None:
                out.searches += 1
                out.settled += stats.stopped_by == "settled"
                out.seconds.append(took)
                out.saved.append(max(0.0, (visits - root.visits) / visits))
                if choice is not None and lcb.choose(root, config=choice) != player.search.choose(0.0):
                    out.differs += 1
            if move == RESIGN:
                break
            game.play(move, color)
    return out


OPPONENTS = {"visits": "--choice visits", "visits-full": "--choice visits --no-early-stop"}


def match(a: argparse.Namespace, opponent: str) -> dict:
    common = f"--visits {a.visits} --threads 1"
    config = MatchConfig(engine_a=parse_engine(f"ours:--choice lcb {common}", name="lcb"),
                         engine_b=parse_engine(f"ours:{OPPONENTS[opponent]} {common}", name=opponent),
                         out=a.out / opponent, games=a.games, seed=a.seed, progress=a.progress)
    return run_match(config)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=60, help="games per match (even: pairs of openings)")
    p.add_argument("--visits", type=int, default=200)
    p.add_argument("--out", type=Path, default=Path("runs/bench-lcb"))
    p.add_argument("--opponents", nargs="+", choices=sorted(OPPONENTS), default=["visits", "visits-full"])
    p.add_argument("--savings-games", type=int, default=4)
    p.add_argument("--default-budget-games", type=int, default=0,
                   help="also time this many games per choice at the GTP front end's default budget")
    p.add_argument("--model", type=Path, default=SHIPPED)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--progress", action="store_true", help="a progress bar on stderr")
    a = p.parse_args(argv)
    print("## Play-time move choice: lower confidence bound vs most visited (bench_lcb)\n")
    print(f"Head to head, the shipped model on both sides at {a.visits} visits a move, one onnxruntime thread "
          "each, paired openings (2 random moves, colours swapped), komi 7, through the GTP front end. "
          "`lcb`: the best lower confidence bound, stopping a search only once the rest of the budget "
          "cannot change the move; `visits`: the most visited move with its own early stop (the play "
          "before); `visits-full`: the most visited move, always the whole budget.\n")
    print("| LCB against | games | LCB wins | its wins | jigo | void | LCB score | Wilson 95% "
          "| LCB as black | LCB as white |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for opponent in a.opponents:
        s = match(a, opponent)
        low, high = s["a_win_rate_wilson95"]
        decided = s["a_wins"] + s["a_losses"] + s["jigo"]
        rate = s["a_win_rate"]
        bw, bn = s["a_wins_as_black"]
        ww, wn = s["a_wins_as_white"]
        print(f"| {opponent} | {decided} | {s['a_wins']} | {s['a_losses']} | {s['jigo']} | {s['void']} | "
              + (f"{rate:.1%} | {low:.1%}–{high:.1%} | {bw}/{bn} | {ww}/{wn} |" if rate is not None else "| | | |"),
              flush=True)
    print(f"\nBudget spent ({a.savings_games} games per choice, the same openings, {a.visits} root visits a move, "
          "reused visits counted as spent):\n")
    print("| choice | searches | stopped early | budget saved, mean | saved when stopped early, mean "
          "| bound chose another move |")
    print("|---|---|---|---|---|---|")
    for name, choice in (("lcb", LcbConfig()), ("most visited", None)):
        sp = spend(choice, a.model, a.visits, a.savings_games, a.seed)
        early = [x for x in sp.saved if x > 0]
        differs = f"{sp.differs} ({sp.differs / sp.searches:.1%})" if choice is not None else "–"
        print(f"| {name} | {sp.searches} | {sp.settled} ({sp.settled / sp.searches:.1%}) | "
              f"{statistics.fmean(sp.saved):.1%} | {statistics.fmean(early) if early else 0.0:.1%} | {differs} |",
              flush=True)
    if a.default_budget_games:
        from engine_worker.gtp import DEFAULT_PLAY_SECONDS, DEFAULT_PLAY_VISITS, DEFAULT_THREADS

        print(f"\nAt the GTP defaults ({DEFAULT_PLAY_VISITS} visits or {DEFAULT_PLAY_SECONDS:g} s, "
              f"{DEFAULT_THREADS} threads; {a.default_budget_games} games per choice; a time budget, so the "
              "figures depend on this machine and its load):\n")
        print("| choice | searches | stopped early | s/move, mean | median | p95 |")
        print("|---|---|---|---|---|---|")
        for name, choice in (("lcb", LcbConfig()), ("most visited", None)):
            sp = spend(choice, a.model, DEFAULT_PLAY_VISITS, a.default_budget_games, a.seed,
                       seconds=DEFAULT_PLAY_SECONDS, threads=DEFAULT_THREADS)
            q = statistics.quantiles(sp.seconds, n=20)
            print(f"| {name} | {sp.searches} | {sp.settled} ({sp.settled / sp.searches:.1%}) | "
                  f"{statistics.fmean(sp.seconds):.2f} | {statistics.median(sp.seconds):.2f} | {q[-1]:.2f} |",
                  flush=True)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
