"""An engine worker (``python -m engine_worker``, real Mosquitto) started with
``--level-model``: the levels below 'full' play that model (the one their calibration
played, ``models/levels/`` in the product) and 'full' plays the worker's own."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gobuddy.go.coords import from_gtp
from tests.services.processes import Service, make_request, spawn_worker, start_service
from tests.services.test_engine_worker_levels import MOVES, _local_move
from tests.tiny_model import build_tiny_model


@pytest.fixture(scope="module")
def level_model(tmp_path_factory: pytest.TempPathFactory):
    """Another random 9x9 model, standing for the model a calibration played."""
    pytest.importorskip("onnx")
    return build_tiny_model(size=9, blocks=2, channels=16, seed=7, name="tiny-levels").save(
        tmp_path_factory.mktemp("level-model") / "levels.onnx")


@pytest.fixture(scope="module")
def pinned_worker(broker, presence, tiny_model, level_model) -> Iterator[Service]:
    service = spawn_worker(broker, tiny_model, "engine-pinned", "--level-model", str(level_model))
    try:
        yield start_service(service, presence)
    finally:
        service.close()


@pytest.mark.parametrize("level, seed", [("15 kyu", 9), ("5 kyu", 3)])
def test_the_levels_play_their_calibrated_model_and_full_plays_the_workers(
        pinned_worker, client, tiny_model, level_model, level, seed) -> None:
    asked = client("dashboard")
    answer = asked.request(make_request(f"pin-{seed}", MOVES, board_id="web-2", purpose="genmove", visits=400,
                                        level=level, seed=seed))
    assert answer.model == "tiny-levels" and answer.worker == "engine-pinned"
    assert from_gtp(answer.moves[0].move, 9) == _local_move(level_model, level, seed)
    full = asked.request(make_request(f"pin-full-{seed}", MOVES, board_id="web-2", purpose="genmove", visits=32,
                                      level="full"))
    assert full.model == "tiny-services"
