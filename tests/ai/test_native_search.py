"""The compiled search (``gobuddy.ai.native_search``) against the Python one: the same
rules and input planes along random games, the same trees move by move, the same
self-play games for the same seed, the same play-time searches and analyses of any
position (set-up stones, the simple ko rule, a side to move given, the tree kept or
not); its build and what it refuses."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from gobuddy.ai import native_search
from gobuddy.ai.features import encode_batch, push_history, board_array
from gobuddy.ai.mcts import Search, SearchConfig
from gobuddy.ai.native_search import NativeBuildError, NativeSearch
from gobuddy.ai.onnx_evaluator import OnnxEvaluator
from gobuddy.go.coords import from_gtp
from gobuddy.go.position import Position
from tests.tiny_model import build_tiny_model
from training.selfplay import GameSettings, play_game

MODELS = Path(__file__).resolve().parents[2] / "models"


@pytest.fixture(scope="module")
def twin() -> OnnxEvaluator:
    return OnnxEvaluator(MODELS / "gobuddy-9x9.int8.onnx")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> dict[int, OnnxEvaluator]:
    folder = tmp_path_factory.mktemp("tiny")
    return {size: OnnxEvaluator(build_tiny_model(size=size, blocks=1, channels=8, seed=size, name=f"tiny-{size}")
                                .save(folder / f"tiny-{size}.onnx")) for size in (5, 7, 13, 19)}


def follow(search, pos: Position, history, move: int):
    history = push_history(history, board_array(pos))
    pos.play(move)
    search.set_position(pos, history)
    return history


@pytest.mark.parametrize("size, games", [(5, 40), (7, 20), (9, 10), (13, 10), (19, 3)])
def test_the_rules_and_planes_are_those_of_the_python_position(size, games, tiny, twin):
    evaluator = twin if size == 9 else tiny[size]
    for seed in range(games):
        rng = random.Random(seed)
        native = NativeSearch(evaluator, SearchConfig(pipeline=False), size)
        pos, history = Position(size), ()
        native.set_position(pos, history)
        for _ in range(4 * size * size):  # long games: captures, ko, refilled space, superko
            planes, legal = native.root_planes()
            np.testing.assert_array_equal(legal, pos.legal_mask())
            np.testing.assert_array_equal(planes, encode_batch([pos], [history])[0])
            assert native.game_ko() == pos.ko
            if pos.passes >= 2:
                break
            moves = pos.legal_moves()
            move = rng.choice(moves) if moves and rng.random() > 0.03 else pos.pass_point
            history = follow(native, pos, history, move)


# A ko on 5x5 in GTP coordinates: black captures at C3 (taking B3); white may not
# retake at B3 at once, may after an exchange elsewhere, and then black may not take
# back at C3 at once either.
KO = "B2 C2 A3 D3 B4 C4 E5 B3 C3"


@pytest.mark.parametrize("more, point, legal, ko", [
    ("", "B3", False, "B3"),        # white to play: the ko point
    ("E1 A1", "B3", True, None),     # after an exchange elsewhere white may retake
    ("E1 A1 B3", "C3", False, "C3"),  # and now black may not take back at once
])
def test_the_ko_point_and_its_retake(more, point, legal, ko, tiny):
    size = 5
    native = NativeSearch(tiny[size], SearchConfig(pipeline=False), size)
    pos, history = Position(size), ()
    native.set_position(pos, history)
    for vertex in (KO + " " + more).split():
        history = follow(native, pos, history, from_gtp(vertex, size))
    _, mask = native.root_planes()
    assert bool(mask[from_gtp(point, size)]) is legal == pos.is_legal(from_gtp(point, size))
    assert native.game_ko() == (None if ko is None else from_gtp(ko, size)) == pos.ko


@pytest.mark.parametrize("forced, utility", [
    (0.0, 0.0),
    (2.0, 0.0),  # forced playouts at the root (self-play's, KataGo's k = 2)
    (0.0, 0.3),  # a score utility in every selection
])
def test_the_trees_are_those_of_the_python_search_move_by_move(twin, forced, utility):
    config = SearchConfig(komi=7.0, pipeline=False, noise=True, seed=5, max_moves=243, forced_playouts=forced,
                          score_utility=utility)
    python, native = Search(twin, config), NativeSearch(twin, config, 9)
    pos, history = Position(9), ()
    for number in range(40):
        assert python.set_position(pos, history) == native.set_position(pos, history)  # the subtree kept
        visits = 64 if number % 3 else 16
        python.run(visits=visits)
        native.run(visits=visits)
        ours, theirs = native.root, python.root
        assert ours.visits == theirs.visits and ours.q == theirs.q
        for name in ("moves", "N", "W", "S", "prior", "prior_raw"):
            np.testing.assert_array_equal(getattr(ours, name), getattr(theirs, name), err_msg=f"{name}, move {number}")
        move = python.choose(1.0 if number < 8 else 0.0)
        assert native.choose(1.0 if number < 8 else 0.0) == move
        history = push_history(history, board_array(pos))
        pos.play(move)


@pytest.mark.parametrize("size, seed, cap, forced, utility", [
    (9, 0, None, 0.0, 0.0), (9, 1, None, 0.0, 0.0), (7, 2, None, 0.0, 0.0), (9, 3, 30, 0.0, 0.0),
    (9, 4, None, 2.0, 0.0), (9, 5, None, 0.0, 0.3)])
def test_selfplay_plays_the_same_games_natively(size, seed, cap, forced, utility, twin, tiny):
    evaluator = twin if size == 9 else tiny[size]
    settings = GameSettings(size=size, komi=7.0, visits=48, fast_visits=12, full_fraction=0.35, max_moves=cap,
                            no_resign_fraction=1.0 if cap else 0.2, forced_playouts=forced,
                            search=SearchConfig(pipeline=False, score_utility=utility))
    python = play_game(evaluator, replace(settings, engine="python"), seed)
    native = play_game(evaluator, replace(settings, engine="native"), seed)
    assert native == python and len(native.moves) > 10
    if cap:  # the searches near the cap score their leaves there, as terminal
        assert (native.reason, len(native.moves)) == ("move_cap", cap)


def test_the_library_is_named_by_its_source_and_built_once(tmp_path, monkeypatch):
    first = native_search.build(tmp_path)
    assert first == native_search.library_path(tmp_path) and first.is_file()
    assert native_search.build(tmp_path) == first  # there: not built again
    source = tmp_path / "search.c"
    source.write_text(native_search.SOURCE.read_text() + "\n/* edited */\n")
    monkeypatch.setattr(native_search, "SOURCE", source)
    assert native_search.library_path(tmp_path) != first  # an edited source is built anew


def test_a_missing_compiler_is_named(tmp_path, monkeypatch):
    monkeypatch.setattr(native_search.shutil, "which", lambda name: None)
    with pytest.raises(NativeBuildError, match="no C compiler"):
        native_search.build(tmp_path / "empty")


def test_a_broken_source_gives_the_compilers_words(tmp_path, monkeypatch):
    source = tmp_path / "search.c"
    source.write_text("int broken( {\n")
    monkeypatch.setattr(native_search, "SOURCE", source)
    with pytest.raises(NativeBuildError, match="building search.c failed:\n.*error"):
        native_search.build(tmp_path / "out")


def test_what_the_native_search_refuses(twin):
    native = NativeSearch(twin, SearchConfig(pipeline=False), 9)
    assert native.root is None
    with pytest.raises(RuntimeError, match="call set_position first"):
        native.run(visits=8)
    native.set_position(Position(9))
    with pytest.raises(ValueError, match="needs visits, seconds or a stop event"):
        native.run()
    with pytest.raises(ValueError, match="supports board sizes"):
        NativeSearch(twin, SearchConfig(), 13)
    with pytest.raises(ValueError, match="supports board sizes"):
        native.set_position(Position(13))
    with pytest.raises(ValueError, match="ONNX models without symmetries"):
        NativeSearch(object(), SearchConfig(), 9)
    with pytest.raises(ValueError, match="ONNX models without symmetries"):
        NativeSearch(OnnxEvaluator(MODELS / "gobuddy-9x9.int8.onnx", symmetry="average"), SearchConfig(), 9)


@pytest.mark.parametrize("change, error", [
    (dict(engine="c"), "engine must be one of native, python"),
])
def test_selfplay_settings_that_the_native_engine_cannot_play_are_refused(change, error):
    with pytest.raises(ValueError, match=error):
        replace(GameSettings(), **change).check()


def test_its_softmax_is_the_evaluators_bit_for_bit():
    from gobuddy.ai.evaluator import masked_softmax

    rng = np.random.default_rng(0)
    logits = (rng.standard_normal((8, 82)) * 6).astype(np.float32)
    legal = rng.random((8, 82)) < 0.6
    legal[:, -1] = True  # pass
    np.testing.assert_array_equal(native_search._softmax(logits, legal), masked_softmax(logits, legal))
