"""A handful of explanations with the real shipped model: the analyses before and
after the move come from ``gobuddy.ai.analysis.analyse`` over the ``OnnxEvaluator``
(one thread, no pipeline, a fixed seed: the same figures on every run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gobuddy.explain import explain_hint, explain_move
from gobuddy.explain.played import Played
from gobuddy.go.coords import BLACK, from_gtp
from gobuddy.go.position import Position
from tests.explain.expect import check
from tests.explain.test_rules_table import GROUP_IN_ATARI

MODEL = Path(__file__).resolve().parents[2] / "models" / "gobuddy-9x9.onnx"
pytestmark = pytest.mark.skipif(not MODEL.exists(), reason="the shipped model is not in this checkout")
VISITS = 200

# White's D4 E4 E5 in atari at E6 inside black's stones.
THREE_IN_ATARI = """
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . X O X . . .
. . X O O X . . .
. . . X X . . . .
. . . . . . . . .
. . . . . . . . ."""


@pytest.fixture(scope="module")
def analyse_pair():
    from gobuddy.ai.analysis import analyse
    from gobuddy.ai.features import board_array
    from gobuddy.ai.mcts import Search, SearchConfig
    from gobuddy.ai.onnx_evaluator import OnnxEvaluator

    search = Search(OnnxEvaluator(str(MODEL), intra_threads=1), SearchConfig(komi=7.0, seed=1, pipeline=False))

    def pair(board: str, vertex: str | None):
        pos = Position.from_ascii(board, to_play=BLACK)
        before = analyse(search, pos, (), visits=VISITS)
        if vertex is None:
            return pos, before, None
        played = Played.of(pos, from_gtp(vertex, 9))
        return pos, before, analyse(search, played.after, (board_array(pos),), visits=VISITS)

    return pair


def test_the_hint_captures(analyse_pair) -> None:
    pos, before, _ = analyse_pair(THREE_IN_ATARI, None)
    assert before.moves[0].point == from_gtp("E6", 9)
    check(explain_hint(pos, before), ["first capture 3 good ~3 stones at D4 E4 E5"])


def test_a_move_elsewhere_loses_the_capture(analyse_pair) -> None:
    pos, before, after = analyse_pair(THREE_IN_ATARI, "G2")
    reasons = explain_move(pos, from_gtp("G2", 9), before=before, after=after)
    check(reasons, ["first territory bad ~more at E6 than at the move played", "-capture", "-tempo"])
    assert reasons[0].points >= 10, reasons[0]


def test_the_hint_saves_the_group(analyse_pair) -> None:
    pos, before, _ = analyse_pair(GROUP_IN_ATARI, None)
    assert before.moves[0].point == from_gtp("E3", 9)
    check(explain_hint(pos, before), ["first save 4 good ~the group at E4 from atari (4 stones)"])


def test_a_small_capture_that_loses_the_group(analyse_pair) -> None:
    pos, before, after = analyse_pair(GROUP_IN_ATARI, "B1")
    reasons = explain_move(pos, from_gtp("B1", 9), before=before, after=after)
    check(reasons, ["first capture 1 bad ~loses 4", "atari 4 bad", "territory bad ~more at E3 than at the move played"])
    assert next(r for r in reasons if r.kind == "territory").points >= 3


def test_the_hint_keeps_the_group_alive_against_a_pass(analyse_pair) -> None:
    from gobuddy.ai.analysis import analyse
    from gobuddy.ai.features import board_array
    from gobuddy.ai.mcts import Search, SearchConfig
    from gobuddy.ai.onnx_evaluator import OnnxEvaluator

    pos, before, after = analyse_pair(GROUP_IN_ATARI, "E3")
    search = Search(OnnxEvaluator(str(MODEL), intra_threads=1), SearchConfig(komi=7.0, seed=1, pipeline=False))
    passed = Played.of(pos, pos.pass_point)
    baseline = analyse(search, passed.after, (board_array(pos),), visits=VISITS)
    reasons = explain_hint(pos, before, after, baseline)
    check(reasons, ["first save 4 good", "life-and-death 4 good ~the group at E4 lives"])
    assert next(r for r in reasons if r.kind == "life-and-death").points >= 10
