"""The engine's analysis of a position: ranking, consistent win rates, principal variations (flat
points: the library's own result); and its wire form, made by the worker (engine_worker.answer),
exact, round-tripped and validated against the engine_answer schema."""

from __future__ import annotations

import numpy as np
import pytest

from engine_worker.answer import wire_answer
from gobuddy.ai.analysis import Analysis, analyse, snapshot
from gobuddy.ai.evaluator import TrompTaylorEvaluator, UniformEvaluator
from gobuddy.ai.mcts import Search, SearchConfig
from gobuddy.ai.onnx_evaluator import OnnxEvaluator
from gobuddy.bus.engine_messages import EngineAnswer
from gobuddy.bus.validation import validate
from gobuddy.go.coords import BLACK, WHITE, from_gtp
from gobuddy.go.game import position_hash
from gobuddy.go.position import Position

from .boards import EYES, ONE_DAME

KEYS = {"id", "board_id", "position_key", "to_play", "root", "moves", "ownership", "is_during_search",
        "model", "elapsed_ms", "worker", "ts", "judgement"}
ROOT_KEYS = {"visits", "winrate", "winrate_black", "score_lead", "value"}
MOVE_KEYS = {"move", "order", "visits", "winrate", "winrate_black", "score_lead", "prior", "pv"}


def tt_analysis(board: str, to_play: int, komi: float = 4.5, visits: int = 200, **kw) -> Analysis:
    search = Search(TrompTaylorEvaluator(komi), SearchConfig(komi=komi, seed=2))
    return analyse(search, Position.from_ascii(board, to_play=to_play), visits=visits, **kw)


def wire(a: Analysis) -> EngineAnswer:
    return wire_answer(a, id="q1", board_id="board-1", worker="engine-test-0")


def test_fields_ranking_and_consistency():
    a = tt_analysis(ONE_DAME, WHITE)
    assert a.to_play == WHITE and a.root.visits == 200 and a.model == "tromp-taylor(komi 4.5)"
    assert [m.order for m in a.moves] == list(range(len(a.moves))) and len(a.moves) == 5
    assert [m.visits for m in a.moves] == sorted((m.visits for m in a.moves), reverse=True)
    assert a.best.point == from_gtp("C5", 5)
    for m in a.moves:
        assert m.pv[0] == m.point
        assert m.winrate_black == pytest.approx(1 - m.winrate)
        assert 0 <= m.winrate <= 1 and 0 <= m.prior <= 1 and m.score_lead is not None
    assert a.root.winrate_black == pytest.approx(1 - a.root.winrate)
    assert sum(m.visits for m in a.moves) <= a.root.visits - 1
    assert a.elapsed_ms > 0 and a.is_during_search is False


def test_ownership_is_from_blacks_side_row_major_from_the_top_left():
    for to_play in (BLACK, WHITE):
        a = tt_analysis(EYES, to_play, komi=0.5, visits=20)
        own = np.array(a.ownership).reshape(5, 5)
        assert (own[:3] == 1).all() and (own[3:] == -1).all()
    assert tt_analysis(EYES, BLACK, komi=0.5, visits=20, ownership=False).ownership is None


def test_score_is_null_without_a_score_head():
    search = Search(UniformEvaluator())
    a = analyse(search, Position(5), visits=30)
    assert a.root.score_lead is None and all(m.score_lead is None for m in a.moves) and a.ownership is None


def test_exact_wire_form_round_trip_and_schema():
    a = tt_analysis(ONE_DAME, BLACK)
    answer = wire(a)
    d = answer.to_dict()
    assert set(d) == KEYS and set(d["root"]) == ROOT_KEYS and all(set(m) == MOVE_KEYS for m in d["moves"])
    assert set(d["position_key"]) == {"move_count", "hash"}
    validate("engine_answer", d)
    assert EngineAnswer.from_dict(d) == answer
    assert (d["id"], d["board_id"], d["worker"], d["to_play"]) == ("q1", "board-1", "engine-test-0", "B")
    assert [m["move"] for m in d["moves"]] == [("pass" if m.point == 25 else
                                                "ABCDE"[m.point % 5] + str(5 - m.point // 5)) for m in a.moves]
    assert all(m["pv"][0] == m["move"] for m in d["moves"])


def test_position_key_names_the_position():
    pos = Position(9)
    pos.play(from_gtp("E5", 9))
    pos.play(from_gtp("C3", 9))
    key = position_hash(pos)
    assert len(key) == 16 and int(key, 16) == pos.key() & (2**64 - 1)
    other = pos.copy()
    other.play(other.pass_point)
    assert position_hash(other) != key  # same stones, other side to move
    a = analyse(Search(UniformEvaluator()), pos, visits=10)
    assert (a.move_count, a.position_hash) == (2, key)
    assert (wire(a).position_key.move_count, wire(a).position_key.hash) == (2, key)


def test_partial_answers_during_search():
    partials = []
    search = Search(TrompTaylorEvaluator(4.5), SearchConfig(komi=4.5, batch_size=1))
    final = analyse(search, Position.from_ascii(ONE_DAME), visits=None, seconds=0.3,
                    on_partial=partials.append, partial_every=0.05)
    assert partials and all(p.is_during_search for p in partials) and not final.is_during_search
    assert [p.root.visits for p in partials] == sorted(p.root.visits for p in partials)
    assert final.root.visits >= partials[-1].root.visits


def test_to_play_override_and_tree_reuse():
    search = Search(TrompTaylorEvaluator(4.5), SearchConfig(komi=4.5))
    pos = Position.from_ascii(ONE_DAME)
    assert analyse(search, pos, visits=50, to_play="W").to_play == WHITE
    first = analyse(search, pos, visits=100)
    pos.play(from_gtp("C5", 5))
    again = analyse(search, pos, visits=10)  # the subtree of C5 already holds more visits
    assert again.root.visits > 10 and first.best.point == from_gtp("C5", 5)


def test_snapshot_before_search_is_refused():
    with pytest.raises(RuntimeError, match="not been evaluated"):
        snapshot(Search(UniformEvaluator()))


def test_with_the_onnx_model(tiny9):
    _, path = tiny9
    search = Search(OnnxEvaluator(path), SearchConfig(batch_size=8))
    a = analyse(search, Position(9), visits=64)
    d = wire_answer(a, id="x", worker="engine-test-1").to_dict()
    validate("engine_answer", d)
    assert a.model == "tiny-9x9" and len(a.ownership) == 81 and a.root.score_lead is not None
    assert -1 <= a.root.value <= 1
