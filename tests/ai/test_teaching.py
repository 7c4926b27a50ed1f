"""The teacher's judgement of a move (gobuddy.ai.teaching): tables of made-up analyses
for the thresholds (bigger tolerance for weaker levels, win-rate-safe moves accepted
for beginners), and the shipped model for honesty (a move the root search did not
visit is judged from a search of the position after it, never guessed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gobuddy.ai.analysis import Analysis, Candidate, RootSummary, analyse
from gobuddy.ai.features import game_history
from gobuddy.ai.levels import level_names
from gobuddy.ai.mcts import Search, SearchConfig
from gobuddy.ai.onnx_evaluator import OnnxEvaluator
from gobuddy.ai.teaching import TOLERANCES, judge, needs_search, position_after, tolerance
from gobuddy.go.coords import BLACK, from_gtp
from gobuddy.go.game import Game, Ruleset
from gobuddy.go.position import IllegalMove

MODEL = Path(__file__).resolve().parents[2] / "models" / "gobuddy-9x9.onnx"


def analysis(*candidates: tuple[str, int, float, float | None], to_play: int = BLACK) -> Analysis:
    """An analysis of a 9x9 position: candidates as (vertex, visits, win rate, score lead), best first."""
    moves = tuple(Candidate(point=from_gtp(v, 9), order=i, visits=n, winrate=w, winrate_black=w, score_lead=s,
                            prior=0.1, pv=(from_gtp(v, 9),)) for i, (v, n, w, s) in enumerate(candidates))
    best = candidates[0]
    return Analysis(size=9, move_count=10, position_hash="00", to_play=to_play,
                    root=RootSummary(visits=200, winrate=best[2], winrate_black=best[2], score_lead=best[3],
                                     value=0.0), moves=moves, model="table", elapsed_ms=1.0)


def after(winrate_for_opponent: float, score_for_opponent: float | None, visits: int = 200) -> Analysis:
    """The analysis of the position after the move (the opponent to play)."""
    return Analysis(size=9, move_count=11, position_hash="01", to_play=-BLACK,
                    root=RootSummary(visits=visits, winrate=winrate_for_opponent,
                                     winrate_black=1 - winrate_for_opponent, score_lead=score_for_opponent,
                                     value=0.0), moves=(), model="table", elapsed_ms=1.0)


CLOSE = analysis(("D4", 120, 0.55, 2.0), ("C3", 50, 0.40, -5.0), ("E5", 20, 0.52, 0.5), ("G7", 3, 0.2, -20.0))
WON = analysis(("D4", 120, 0.99, 25.0), ("C3", 60, 0.97, 11.0))
NO_SCORE = analysis(("D4", 120, 0.55, None), ("C3", 50, 0.35, None))


@pytest.mark.parametrize("before, move, level, after_move, lost, mistake, searched", [
    # the engine's choice loses nothing, at any level
    (CLOSE, "D4", "full", None, 0.0, False, "candidate"),
    # C3 loses 7 points and 0.15 of the win rate: a mistake for a strong player, not for a beginner
    (CLOSE, "C3", "full", None, 7.0, True, "candidate"),
    (CLOSE, "C3", "10 kyu", None, 7.0, True, "candidate"),
    (CLOSE, "C3", "30 kyu", None, 7.0, False, "candidate"),
    # E5 loses 1.5 points and 0.03: fine from 2 kyu down, a mistake only at full strength
    (CLOSE, "E5", "2 kyu", None, 1.5, False, "candidate"),
    (CLOSE, "E5", "full", None, 1.5, True, "candidate"),
    # G7 had 3 visits: too few to judge by, the position after it was searched
    (CLOSE, "G7", "30 kyu", after(0.9, 14.0), 16.0, True, "after"),
    # a move nobody searched: the search after it says it loses 4.5 points
    (CLOSE, "J1", "15 kyu", after(0.5, 2.5), 4.5, False, "after"),
    (CLOSE, "J1", "7 kyu", after(0.5, 2.5), 4.5, True, "after"),
    # 14 points in a won game: a beginner keeps a safe 97% and is not stopped; a stronger player is
    (WON, "C3", "25 kyu", None, 14.0, False, "candidate"),
    (WON, "C3", "10 kyu", None, 14.0, True, "candidate"),
    # no score head: the win rate alone (0.20 lost)
    (NO_SCORE, "C3", "15 kyu", None, None, True, "candidate"),
    (NO_SCORE, "C3", "30 kyu", None, None, False, "candidate"),
])
def test_the_judgement_table(before, move, level, after_move, lost, mistake, searched) -> None:
    point = from_gtp(move, 9)
    assert needs_search(before, point) == (after_move is not None)
    j = judge(before, point, level, after_move)
    assert (j.points_lost, j.mistake, j.searched, j.best) == (lost, mistake, searched, from_gtp("D4", 9))
    assert j.level == level and j.color == BLACK and j.tolerance == tolerance(level)


def test_a_move_needing_a_search_is_never_guessed() -> None:
    with pytest.raises(ValueError, match="search the position after it"):
        judge(CLOSE, from_gtp("J1", 9), "30 kyu")


def test_weaker_levels_tolerate_more_and_only_beginners_have_a_safe_win_rate() -> None:
    names = level_names()
    assert list(TOLERANCES) == names
    points = [TOLERANCES[n].points for n in names]
    winrates = [TOLERANCES[n].winrate for n in names]
    assert points == sorted(points, reverse=True) and len(set(points)) == len(points)
    assert winrates == sorted(winrates, reverse=True)
    safe = [n for n in names if TOLERANCES[n].safe_winrate is not None]
    assert safe == names[:len(safe)] and "30 kyu" in safe and "full" not in safe
    assert tolerance("25-kyu") == TOLERANCES["25 kyu"]


def test_an_illegal_move_has_no_position_after_it() -> None:
    game = Game.from_gtp(9, Ruleset("chinese", 7.0), "B", (), [("B", "E5")])
    with pytest.raises(IllegalMove, match="occupied"):
        position_after(game.position, game_history(game), from_gtp("E5", 9))


@pytest.fixture(scope="module")
def evaluator():
    return OnnxEvaluator(MODEL, intra_threads=1)


def test_with_the_shipped_model_a_move_not_searched_is_judged_from_the_position_after_it(evaluator) -> None:
    """The opening: the engine's choice loses nothing; a pass, which the root search
    does not visit, is a mistake at every level, judged by searching the position after
    it, and its figures are that search's (a fresh search of the same position agrees)."""
    game = Game(9, Ruleset("chinese", 7.0))
    position, history = game.position, game_history(game)
    before = analyse(Search(evaluator, SearchConfig(komi=7.0)), position, history, visits=200, ownership=False)
    best = before.best.point
    assert judge(before, best, "full").points_lost == 0.0
    passed = position.pass_point
    assert needs_search(before, passed)
    pos_after, history_after = position_after(position, history, passed)
    searched = analyse(Search(evaluator, SearchConfig(komi=7.0)), pos_after, history_after, visits=200,
                       ownership=False)
    for level in level_names():
        j = judge(before, passed, level, searched)
        assert j.mistake and j.searched == "after" and j.visits == searched.root.visits >= 200, level
        assert j.winrate_lost > 0.3 and j.points_lost > 3.0 and j.best == best
        assert j.points_lost == round(before.best.score_lead + searched.root.score_lead, 1)
