"""A worker with the shipped models of two board sizes (its default: the 9x9 and 13x13
int8 twins) answers each size with its own model and refuses the others by name: the
real ``EngineWorker`` in this process, on a real Mosquitto.

| request         | answer                                                        |
|-----------------|---------------------------------------------------------------|
| 9x9, after E5   | moves on 9x9, ``model`` the 9x9 twin's name                   |
| 13x13, after G7 | moves on 13x13, ``model`` the 13x13 twin's name               |
| 19x19           | ``engine_error`` on ``position.size``: "plays 9x9, 13x13 ..." |
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine_worker.config import DEFAULT_MODELS, WorkerConfig
from engine_worker.worker import EngineWorker
from gobuddy.ai.onnx_evaluator import OnnxEvaluator
from gobuddy.bus.requests import EngineRequestFailed
from gobuddy.bus.validation import validate
from gobuddy.go.coords import from_gtp
from tests.services.processes import make_request

ROOT = Path(__file__).resolve().parents[2]
MODELS = tuple(ROOT / path for path in DEFAULT_MODELS)  # the defaults are relative to the checkout
ACCOUNT = "engine-sizes"


@pytest.fixture(scope="module")
def worker(broker) -> Iterator[EngineWorker]:
    broker.ensure_account(ACCOUNT)
    worker = EngineWorker(WorkerConfig(bus=broker.config(ACCOUNT), models=MODELS, status_interval_s=1.0))
    worker.start()
    try:
        yield worker
    finally:
        worker.stop()


@pytest.mark.parametrize("size, moves", [(9, [("B", "E5")]), (13, [("B", "G7")])])
def test_each_size_is_answered_by_its_own_model(worker, client, size, moves) -> None:
    answer = client("dashboard").request(make_request(f"size-{size}", moves, size=size, visits=16), timeout_s=10)
    validate("engine_answer", answer.to_dict())
    names = [OnnxEvaluator(path).name for path in MODELS]
    assert answer.model == names[(9, 13).index(size)] and len(set(names)) == 2
    assert answer.moves and all(m.move == "pass" or 0 <= from_gtp(m.move, size) < size * size for m in answer.moves)


def test_a_size_without_a_model_is_refused_naming_the_sizes(worker, client) -> None:
    with pytest.raises(EngineRequestFailed) as refused:
        client("dashboard").request(make_request("size-19", [("B", "K10")], size=19), timeout_s=10)
    assert refused.value.error.field == "position.size"
    assert "plays 9x9, 13x13 boards, not 19x19" in refused.value.error.error


def test_the_worker_searches_natively_and_counts_its_evaluations(worker, client) -> None:
    from gobuddy.ai.native_search import NativeSearch

    before = worker.evaluator.count
    answer = client("dashboard").request(make_request("size-9-native", [("B", "E5"), ("W", "C3")], size=9,
                                                      visits=64), timeout_s=10)
    assert answer.moves and isinstance(worker._search, NativeSearch)  # the default: native where it can
    assert worker.evaluator.count - before >= 60  # the status line's evals/s counts the native searches too
