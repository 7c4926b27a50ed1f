"""The analysis of a level (gobuddy.ai.level_answer), with the shipped model: its first
move is the move the GTP player of that level plays in the same game with the same
seed; a search level answers a plain atari; as the worker sends it, it is a valid
engine_answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine_worker.answer import wire_answer
from gobuddy.ai.features import game_history
from gobuddy.ai.level_answer import level_answer
from gobuddy.ai.levels import LevelPlayer, level_named
from gobuddy.ai.mcts import Search, SearchConfig
from gobuddy.ai.onnx_evaluator import OnnxEvaluator
from gobuddy.bus.validation import validate
from gobuddy.go.coords import BLACK, WHITE, from_gtp
from gobuddy.go.game import Game, Ruleset

from .test_levels import ATARI_CENTRE, game_of

MODEL = Path(__file__).resolve().parents[2] / "models" / "gobuddy-9x9.onnx"
GAMES = [["E5", "C4"], ["C3", "G7", "E5"], ["E5", "E4", "D4", "F5", "F4", "D5"]]


@pytest.fixture(scope="module")
def evaluator():
    return OnnxEvaluator(MODEL, intra_threads=1)


def _answer(evaluator, level: str, game: Game, seed: int):
    pos, history = game.position, game_history(game)
    recent = [point for _, point in game.moves[-2:]]
    return level_answer(Search(evaluator, SearchConfig(komi=7.0)), level_named(level), pos, history, seed, recent,
                        top_k=5)


@pytest.mark.parametrize("level", ["30 kyu", "15 kyu", "7 kyu", "5 kyu"])
def test_the_first_move_is_the_level_players_move(evaluator, level):
    for opening in GAMES:
        game = Game(9, Ruleset("chinese", 7.0))
        for i, vertex in enumerate(opening):
            game.play(from_gtp(vertex, 9), BLACK if i % 2 == 0 else WHITE)
        to_play = BLACK if len(opening) % 2 == 0 else WHITE
        for seed in (1, 2):
            answer = _answer(evaluator, level, game, seed)
            validate("engine_answer", wire_answer(answer, id="t1", worker="test").to_dict())
            played = LevelPlayer(evaluator, level_named(level), seed=seed).genmove(game, to_play)
            assert answer.moves[0].point == played, (level, opening, seed)
            assert [m.order for m in answer.moves] == list(range(len(answer.moves)))
            assert len({m.point for m in answer.moves}) == len(answer.moves) <= 5


def test_a_search_level_answers_the_atari(evaluator):
    answer = _answer(evaluator, "5 kyu", game_of(ATARI_CENTRE, "C5"), 0)
    assert answer.moves[0].point == from_gtp("G5", 9) and answer.root.visits >= 1


def test_the_full_level_is_the_ordinary_analysis(evaluator):
    with pytest.raises(ValueError, match="full"):
        _answer(evaluator, "full", Game(9, Ruleset("chinese", 7.0)), 0)


def test_a_search_level_never_fills_its_own_eye(evaluator):
    from .test_levels import EYES, OWN_EYES

    game = game_of(EYES)
    for _ in range(2):
        answer = _answer(evaluator, "5 kyu", game, 0)
        vertex = wire_answer(answer).moves[0].move
        assert vertex not in OWN_EYES and vertex in ("E5", "pass")
        game.play(game.position.pass_point, WHITE)
