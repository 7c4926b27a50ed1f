"""The play-time move by lower confidence bound (gobuddy.ai.lcb) and its early stop.

Tables of root children (visits, mean value, spread of the values) where the most
visited move and the best bound disagree or agree; a real tree searched under the
Tromp-Taylor evaluator where the search spent most visits on a losing move; then the
shipped model through the GTP front end: a forced answer stops the search early, an open
position spends the whole budget, and the calibrated search levels keep the most
visited move."""

from __future__ import annotations

import numpy as np
import pytest

from engine_worker.gtp import make_player, parse_args
from engine_worker.gtp_engine import GtpEngine
from gobuddy.ai import lcb
from gobuddy.ai.evaluator import TrompTaylorEvaluator
from gobuddy.ai.lcb import LcbConfig, Moments, is_settled, pick
from gobuddy.ai.levels import LevelPlayer, level_named
from gobuddy.ai.mcts import Search, SearchConfig, SearchStats
from gobuddy.ai.player import PlayerConfig, SearchPlayer
from gobuddy.go.coords import from_gtp
from gobuddy.go.game import Game, Ruleset
from gobuddy.go.position import Position

from .boards import ONE_DAME


def children(*rows: tuple[int, float, float]) -> Moments:
    """Root children as (visits, mean value, standard deviation of the values); equal priors."""
    n = np.array([r[0] for r in rows], dtype=float)
    q = np.array([r[1] for r in rows])
    sd = np.array([r[2] for r in rows])
    return Moments(n, q, sd * sd + q * q, np.full(len(rows), 1.0 / len(rows)))


ALL = None  # every child allowed


@pytest.mark.parametrize("name, moments, allowed, chosen, visits_choice", [
    ("many visits and a poor value lose to fewer visits and a clearly better value",
     children((150, 0.00, 0.2), (40, 0.30, 0.2)), ALL, 1, 0),
    ("a better value by less than the bounds' widths: the most visited stays",
     children((150, 0.00, 0.2), (40, 0.05, 0.2)), ALL, 0, 0),
    ("a much better value on too few visits (under 15% of the most visited)",
     children((150, 0.00, 0.2), (20, 0.50, 0.2)), ALL, 0, 0),
    ("the best of three by bound, not the best mean on few visits",
     children((150, 0.00, 0.1), (60, 0.25, 0.1), (25, 0.40, 0.5)), ALL, 1, 0),
    ("saturated values: 0.990 against 0.991 is no evidence, the most visited stays",
     children((330, 0.990, 0.008), (85, 0.994, 0.006)), ALL, 0, 0),
    ("an excluded child is never chosen, however good",
     children((150, 0.00, 0.2), (40, 0.30, 0.2), (40, 0.25, 0.2)), [True, False, True], 2, 0),
    ("fallback: a tiny budget, nothing has two visits: the most visited, then the better mean",
     children((1, -0.2, 0.0), (1, 0.3, 0.0), (0, 0.0, 0.0)), ALL, 1, 1),
])
def test_choice_table(name, moments, allowed, chosen, visits_choice):
    mask = np.ones(len(moments.n), dtype=bool) if allowed is None else np.array(allowed)
    assert pick(moments, mask).index == chosen, name
    assert pick(moments, mask).top == visits_choice, name


@pytest.mark.parametrize("name, moments, remaining, expected", [
    ("far ahead, every other mean below its bound", children((500, 0.30, 0.1), (60, 0.10, 0.1)), 200, True),
    ("the second can still pass the first's visits", children((300, 0.30, 0.1), (150, 0.10, 0.1)), 200, False),
    ("a mean above the bound that can still reach 15%", children((500, 0.30, 0.1), (20, 0.45, 0.1)), 200, False),
    ("the same mean with too few visits left to reach 15%", children((500, 0.30, 0.1), (20, 0.45, 0.1)), 50, True),
    ("chosen by bound, but the most visited could push it under 15%",
     children((200, 0.00, 0.2), (60, 0.30, 0.1)), 300, False),
    ("no limit left to count on: never settled", children((500, 0.30, 0.1), (1, 0.0, 0.0)), float("inf"), False),
])
def test_settled_table(name, moments, remaining, expected):
    assert is_settled(moments, np.ones(len(moments.n), dtype=bool), remaining) is expected, name


def test_a_single_allowed_move_is_settled_at_once():
    m = children((10, 0.0, 0.1), (10, 0.5, 0.1))
    assert is_settled(m, np.array([True, False]), 1000)


def losing_most_visited() -> tuple[Search, Position]:
    """ONE_DAME with komi 4.5: only C5 wins for black. 60 simulations forced through a
    losing move (pass) and 25 through C5."""
    pos = Position.from_ascii(ONE_DAME)
    search = Search(TrompTaylorEvaluator(4.5), SearchConfig(komi=4.5, pipeline=False))
    search.set_position(pos)
    stats = SearchStats()
    search.evaluate_root(stats)
    root = search.root
    win = int(np.flatnonzero(root.moves == from_gtp("C5", 5))[0])
    lose = int(np.flatnonzero(root.moves == pos.pass_point)[0])
    for first, count in ((lose, 60), (win, 25)):
        for _ in range(count):
            search.simulate([first], stats)
    return search, pos


def test_a_real_tree_where_the_most_visited_move_loses():
    """Raw visits choose the loser, the bound chooses C5."""
    search, pos = losing_most_visited()
    root = search.root
    m = lcb.moments(root)
    visited = m.n > 0
    assert np.array_equal(m.n, root.N) and np.allclose(m.q[visited], root.W[visited] / root.N[visited])
    assert np.all(m.q2 >= m.q * m.q - 1e-12)
    assert search.choose() == pos.pass_point
    assert lcb.choose(root) == from_gtp("C5", 5)
    assert lcb.choose(root, exclude={from_gtp("C5", 5)}) == pos.pass_point


def test_an_analysis_for_play_lists_the_bound_choice_first():
    """The same tree as an analysis: a hint lists the most visited first; an analysis for
    play (the worker's genmove) lists the move the GTP player would play first."""
    from gobuddy.ai.analysis import snapshot

    search, pos = losing_most_visited()
    hint, play = snapshot(search, ownership=False), snapshot(search, ownership=False, play_first=True)
    assert [m.point for m in hint.moves[:2]] == [pos.pass_point, from_gtp("C5", 5)]
    assert [m.point for m in play.moves[:2]] == [from_gtp("C5", 5), pos.pass_point]
    assert [m.order for m in play.moves] == list(range(len(play.moves)))


def test_the_search_gives_a_settled_rule_the_real_visits_left():
    seen: list[tuple[int, float]] = []

    def rule(root, remaining: float) -> bool:
        seen.append((root.visits, remaining))
        return False

    search = Search(TrompTaylorEvaluator(4.5), SearchConfig(komi=4.5, batch_size=8))
    search.set_position(Position.from_ascii(ONE_DAME))
    stats = search.run(visits=120, early_stop=rule)
    assert stats.stopped_by == "visits" and len(seen) > 5
    assert all(v + r == 120 for v, r in seen)


# A game of the shipped model of 2026-11-26 (r12) against itself (800 visits, the LCB choice).
GAME = "C7 D3 G5 G7 F3 C5 E7 F6 D5 F5 F4 D6 C6 D4 E5".split()


def gtp_engine(*args: str) -> GtpEngine:
    """The GTP front end as ``python -m engine_worker.gtp ARGS`` builds it (no subprocess)."""
    config = parse_args(["--threads", "1", *args])
    return GtpEngine(make_player(config), Game(9, Ruleset("chinese", config.komi)))


@pytest.mark.parametrize("name, moves, answer, stopped_by, most_visits", [
    # White's E5 cut: E6 is the one answer, the search stops once nothing can change it
    # (the 9x96 model shipped on 2026-11-28 settles it at 854 of 1,600 visits).
    ("forced: black answers the cut at E6", GAME, "E6", "settled", 1_200),
    # Two moves in, several openings are close: the search spends the budget.
    ("open: the whole budget", GAME[:2], None, "visits", 1_600),
])
def test_the_gtp_genmove_stops_early_only_when_settled(name, moves, answer, stopped_by, most_visits):
    engine = gtp_engine("--visits", "1600")
    for i, vertex in enumerate(moves):
        assert engine.shell.execute(f"play {'BW'[i % 2]} {vertex}").startswith("=")
    reply = engine.shell.execute(f"genmove {'BW'[len(moves) % 2]}")
    player = engine.player
    assert player.config.lcb == LcbConfig(), "the GTP default chooses by bound"
    assert player.last_stats.stopped_by == stopped_by, name
    assert player.search.root.visits <= most_visits, name
    if answer is not None:
        assert reply[1:].strip() == answer, name


def test_the_most_visited_choice_and_the_levels_keep_their_moves():
    assert gtp_engine("--choice", "visits").player.config.lcb is None
    assert PlayerConfig().lcb is None
    for name in ("5 kyu", "2 kyu"):
        player = make_player(parse_args(["--level", name, "--threads", "1"]))
        assert isinstance(player, LevelPlayer) and isinstance(player.search, SearchPlayer)
        assert player.search.config.lcb is None, f"{name} is calibrated with the most visited move"
    assert level_named("5 kyu").visits == 16
