"""The compiled search at play time (``gobuddy.ai.native_search``) against the Python one,
with and without the pipeline: from set-up positions, under the simple ko rule, with the side
to move changed, with the tree kept between moves or not, the same root statistics,
principal variations, early stops and analyses."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
import pytest

from gobuddy.ai import lcb
from gobuddy.ai.analysis import analyse, snapshot
from gobuddy.ai.features import board_array, push_history
from gobuddy.ai.mcts import Search, SearchConfig
from gobuddy.ai.native_search import NativeSearch, supports
from gobuddy.ai.onnx_evaluator import OnnxEvaluator
from gobuddy.ai.sized_evaluator import SizedEvaluator
from gobuddy.go.coords import BLACK, WHITE, from_gtp
from gobuddy.go.position import Position

MODELS = Path(__file__).resolve().parents[2] / "models"


@pytest.fixture(scope="module")
def twins() -> SizedEvaluator:
    return SizedEvaluator.of([OnnxEvaluator(MODELS / f"gobuddy-{size}x{size}.int8.onnx") for size in (9, 13)])


@pytest.fixture(params=[False, True], ids=["no pipeline", "pipeline"])
def pipeline(request) -> bool:
    return request.param


def searches(evaluator, pipeline: bool, **changes) -> tuple[Search, NativeSearch]:
    config = SearchConfig(pipeline=pipeline, **changes)
    return Search(evaluator, config), NativeSearch(evaluator, config)


def assert_same_root(native: NativeSearch, python: Search, label: str = "") -> None:
    ours, theirs = native.root, python.root
    assert (ours.visits, ours.q, ours.net_value, ours.score_sum) == \
        (theirs.visits, theirs.q, theirs.net_value, theirs.score_sum), label
    for name in ("moves", "N", "W", "S", "prior", "prior_raw"):
        np.testing.assert_array_equal(getattr(ours, name), getattr(theirs, name), err_msg=f"{name} {label}")
    a, b = lcb.moments(ours), lcb.moments(theirs)
    for name in ("n", "q", "q2", "prior"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=f"moments {name} {label}")
    assert native.ranked() == python.ranked(), label
    for i in python.ranked()[:5]:
        assert native.pv(ours, i) == python.pv(theirs, i), label
        assert native.child_q(ours, i) == python.child_q(theirs, i), label


def play(pos: Position, history, *vertices: str):
    for vertex in vertices:
        history = push_history(history, board_array(pos))
        pos.play(from_gtp(vertex, pos.size) if vertex != "pass" else pos.pass_point)
    return history


# A middle game of 9x9 set up as stones (an SGF's AB/AW), white to move.
SETUP = """
. . . . . . . . .
. . X X O . . . .
. X O O X O . . .
. X O . X O . . .
. . X X O O . . .
. . . X O . . . .
. . . . X O . . .
. . . . . . . . .
. . . . . . . . .
"""


@pytest.mark.parametrize("superko", [True, False])
def test_a_set_up_position_is_searched_as_the_python_search_does(twins, pipeline, superko):
    python, native = searches(twins, pipeline, komi=6.5)
    pos = Position.from_ascii(SETUP, to_play=WHITE, superko=superko)
    assert python.set_position(pos) is native.set_position(pos) is False
    python.run(visits=300)
    stats = native.run(visits=300)
    assert (stats.visits, stats.stopped_by) == (300, "visits")
    assert_same_root(native, python, f"superko={superko}")
    assert native.root.position.board == pos.board and native.root.position is not pos


def test_the_tree_is_kept_as_the_python_search_keeps_it(twins, pipeline):
    python, native = searches(twins, pipeline)
    pos, history = Position(9), ()
    history = play(pos, history, "E5", "C3", "G5")

    def principal(length: int) -> tuple[int, ...]:
        best = python.ranked()[0]
        return tuple(python.pv(python.root, best, length))

    steps = [  # (the moves that follow, whether the tree is kept)
        (lambda: principal(2), True),    # our move and the reply the search expected: two moves down
        (lambda: (), True),              # the same position again
        (lambda: principal(1), True),    # one move down
        (lambda: tuple(from_gtp(v, 9) for v in ("A1", "J9", "A9", "J1")), False),  # four moves on
    ]
    python.set_position(pos, history)
    native.set_position(pos, history)
    for number, (moves, expected) in enumerate(steps):
        python.run(visits=200)
        native.run(visits=200)
        assert_same_root(native, python, f"before step {number}")
        for move in moves():
            history = push_history(history, board_array(pos))
            pos.play(move)
        kept = python.set_position(pos, history)
        assert (native.set_position(pos, history), kept) == (expected, expected), f"step {number}"
    python.run(visits=200)
    native.run(visits=200)
    assert_same_root(native, python, "at the end")


def test_a_position_off_the_tree_starts_afresh_and_a_changed_side_to_move_is_its_own(twins, pipeline):
    python, native = searches(twins, pipeline)
    pos, history = Position(9), play(Position(9), (), "E5")
    pos.play(from_gtp("E5", 9))
    for search in (python, native):
        search.set_position(pos, history)
        search.run(visits=100)
    turned = pos.copy()
    turned.set_to_play(BLACK)  # black to move again (a handicap-style second move)
    assert python.set_position(turned, history) is native.set_position(turned, history) is False
    python.run(visits=150)
    native.run(visits=150)
    assert_same_root(native, python, "black again")
    assert native.root.position.to_play == BLACK


def test_early_stops_and_progress_are_those_of_the_python_search(twins, pipeline):
    python, native = searches(twins, pipeline)
    pos = Position(9)
    history = play(pos, (), "E5", "D4", "D5", "C5", "E4", "E3", "F3", "D3", "C6", "B6")
    seen = {"python": [], "native": []}
    for name, search in (("python", python), ("native", native)):
        search.set_position(pos, history)
        stats = search.run(visits=2000, early_stop=partial(lcb.settled, config=lcb.LcbConfig()),
                           on_progress=lambda s, name=name: seen[name].append(s.root.visits), progress_every=0.0)
        seen[name].append((stats.visits, stats.stopped_by))
    assert seen["native"] == seen["python"] and seen["native"][-1][1] == "settled"
    assert_same_root(native, python, "early stop")


def test_a_stop_signal_and_a_time_limit_end_the_native_search(twins):
    native = NativeSearch(twins)
    native.set_position(Position(9))

    class StopAfter:
        def __init__(self, calls: int) -> None:
            self.calls = calls

        def is_set(self) -> bool:
            self.calls -= 1
            return self.calls < 0

    stats = native.run(stop=StopAfter(3))
    assert stats.stopped_by == "stop" and stats.batches == 4
    stats = native.run(seconds=0.2)
    assert stats.stopped_by == "time" and 0.2 <= stats.elapsed < 1.0 and stats.visits > 8


@pytest.mark.parametrize("size", [9, 13])
def test_analyses_are_the_python_searchs(twins, pipeline, size):
    python, native = searches(twins, pipeline, komi=7.5)
    pos = Position(size)
    history = play(pos, (), "D4", "F6" if size == 9 else "K10", "C6")
    ours = analyse(native, pos, history, visits=250)
    theirs = analyse(python, pos, history, visits=250)
    assert ours.model == theirs.model == twins.name_for(size)
    assert ours.moves and ours.root.visits == 250
    normalise = (lambda a: a.__class__(**{**a.__dict__, "elapsed_ms": 0.0}))
    assert normalise(ours) == normalise(theirs)
    assert snapshot(native, play_first=True) == snapshot(python, play_first=True)


def test_which_evaluators_it_runs(twins):
    assert supports(twins) and supports(twins.part(9))
    assert not supports(OnnxEvaluator(MODELS / "gobuddy-9x9.int8.onnx", symmetry="random"))
    assert not supports(object())


def test_a_failed_evaluation_leaves_no_tree_to_reuse(twins):
    native = NativeSearch(twins)
    pos = Position(9)
    native.set_position(pos)
    native.run(visits=50)
    network = twins.part(9)
    real = network.run_planes
    network.run_planes = lambda planes: (_ for _ in ()).throw(RuntimeError("onnxruntime failed"))
    try:
        with pytest.raises(RuntimeError, match="onnxruntime failed"):
            native.run(visits=500)
    finally:
        network.run_planes = real
    assert native.root is None
    assert native.set_position(pos) is False  # afresh: the tree with virtual losses is gone
    assert native.run(visits=40).visits == 40


def test_the_search_player_plays_the_same_game_natively(twins):
    from gobuddy.ai.player import PlayerConfig, SearchPlayer
    from gobuddy.go.game import RESIGN, Game, Ruleset

    config = PlayerConfig(visits=150, lcb=lcb.LcbConfig())
    players = {engine: SearchPlayer(twins, config, SearchConfig(komi=6.5), engine=engine)  # pipelined, as they play
               for engine in ("python", "native")}
    assert isinstance(players["native"].search, NativeSearch) and isinstance(players["python"].search, Search)
    game = Game(9, Ruleset("japanese", 6.5))  # the simple ko rule
    for number in range(30):
        color = game.to_play
        moves = {engine: player.genmove(game, color) for engine, player in players.items()}
        assert moves["native"] == moves["python"], f"move {number + 1}"
        assert players["native"].last_stats.visits == players["python"].last_stats.visits
        if moves["native"] == RESIGN:
            break
        game.play(moves["native"], color)


def test_auto_falls_back_to_python_and_says_why(twins, tmp_path, monkeypatch):
    from gobuddy.ai import native_search
    from gobuddy.ai.search_engines import make_search

    search, note = make_search(twins, SearchConfig(), "auto")
    assert isinstance(search, NativeSearch) and note == ""
    search, note = make_search(OnnxEvaluator(MODELS / "gobuddy-9x9.int8.onnx", symmetry="average"))
    assert isinstance(search, Search) and "without symmetries" in note
    with pytest.raises(ValueError, match="without symmetries"):
        make_search(object(), SearchConfig(), "native")
    with pytest.raises(ValueError, match="must be one of auto, native, python"):
        make_search(twins, SearchConfig(), "c")
    monkeypatch.setattr(native_search, "load", lambda build_dir=None: native_search.build(tmp_path / "b"))
    monkeypatch.setattr(native_search.shutil, "which", lambda name: None)
    search, note = make_search(twins, SearchConfig(), "auto")
    assert isinstance(search, Search) and "no C compiler" in note
    with pytest.raises(native_search.NativeBuildError, match="no C compiler"):
        make_search(twins, SearchConfig(), "native")


@pytest.mark.parametrize("name", ["5 kyu", "2 kyu"])  # the search levels below full
def test_a_calibrated_search_level_plays_as_it_did_with_the_python_search(twins, name):
    from gobuddy.ai.levels import LevelPlayer, level_named
    from gobuddy.go.game import RESIGN, Game, Ruleset

    level = level_named(name)
    assert level.visits is not None and not level.is_full
    native, python = (LevelPlayer(twins, level, seed=11) for _ in range(2))
    assert isinstance(native.search.search, NativeSearch)  # the levels search natively (engine auto)
    python.search.search = Search(twins, python.search.search.config)  # as calibrated: Python, pipelined
    assert python.search.search.config.pipeline
    game = Game(9, Ruleset("chinese", 7.0))
    for number in range(40):
        color = game.to_play
        move = native.genmove(game, color)
        assert move == python.genmove(game, color), f"{level.name}, move {number + 1}"
        if move == RESIGN:
            break
        game.play(move, color)
