"""An engine worker (``python -m engine_worker``, real Mosquitto) asked for a level's
move: the answer's first move is what that level's GTP player plays with the same
seed; 'full' is the ordinary search; a level outside genmove is refused naming the field."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gobuddy.ai.levels import LevelPlayer, level_named
from gobuddy.ai.onnx_evaluator import OnnxEvaluator
from gobuddy.bus.requests import EngineRequestFailed
from gobuddy.bus.validation import validate
from gobuddy.go.coords import BLACK, WHITE, from_gtp
from gobuddy.go.game import Game, Ruleset
from tests.services.processes import Service, make_request, spawn_worker, start_service

WORKER = "engine-levels"
MOVES = [("B", "E5"), ("W", "C4"), ("B", "D4")]


@pytest.fixture(scope="module")
def worker(broker, presence, tiny_model) -> Iterator[Service]:
    service = spawn_worker(broker, tiny_model, WORKER)
    try:
        yield start_service(service, presence)
    finally:
        service.close()


def _local_move(model, level: str, seed: int) -> int:
    game = Game(9, Ruleset("chinese", 7.0))
    for colour, vertex in MOVES:
        game.play(from_gtp(vertex, 9), BLACK if colour == "B" else WHITE)
    return LevelPlayer(OnnxEvaluator(model), level_named(level), seed=seed).genmove(game, WHITE)


@pytest.mark.parametrize("level, seed", [("30 kyu", 4), ("15 kyu", 9), ("5 kyu", 0)])
def test_a_level_genmove_answers_with_that_levels_move(worker, client, tiny_model, level, seed) -> None:
    request = make_request(f"lvl-{seed}", MOVES, board_id="web-1", purpose="genmove", visits=400, level=level,
                           seed=seed)
    answer = client("dashboard").request(request)
    validate("engine_answer", answer.to_dict())
    assert answer.id == f"lvl-{seed}" and answer.to_play == "W"
    assert from_gtp(answer.moves[0].move, 9) == _local_move(tiny_model, level, seed)
    assert answer.root.visits < 400  # the level's budget, not the request's


def test_the_full_level_is_the_ordinary_search(worker, client) -> None:
    answer = client("dashboard").request(make_request("lvl-full", MOVES, board_id="web-1", purpose="genmove",
                                                      visits=64, level="full"))
    assert answer.root.visits >= 64


def test_a_level_outside_genmove_is_refused_naming_the_field(worker, client) -> None:
    with pytest.raises(EngineRequestFailed) as failure:
        client("dashboard").request(make_request("lvl-hint", MOVES, purpose="analysis", level="20 kyu"), timeout_s=5)
    assert failure.value.error.field == "level" and "genmove" in failure.value.error.error

