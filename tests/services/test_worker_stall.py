"""A worker whose machine stalls (its process starved of CPU, a long pause) still
tells every requester: the real ``EngineWorker`` in this process, a real Mosquitto,
and an evaluator that stalls once when armed.

| situation                                                   | the requester hears                          |
|-------------------------------------------------------------|----------------------------------------------|
| the search's first batch stalls past the request's deadline | ``busy``: "the answer was ready ... after"   |
| a request waits behind a stalled one until its time is gone | ``busy``: "time ran out while it waited"     |
| the stalled request itself, with time to spare              | its answer                                   |

Before, a late answer was dropped in silence and the requester timed out (CI saw it
once in ``test_overload.py``'s flood on a loaded 2-core machine).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence

import pytest

from engine_worker.config import WorkerConfig
from engine_worker.worker import EngineWorker
from gobuddy.bus.requests import EngineRequestFailed
from tests.e2e.stand_ins import ShapeEvaluator
from tests.services.processes import make_request

ACCOUNT = "engine-stall"


class StallingEvaluator(ShapeEvaluator):
    """``ShapeEvaluator`` whose next batch, once ``arm(seconds)`` is called, first sleeps
    that long (the whole process's search stalls, as on a starved machine)."""

    def __init__(self) -> None:
        super().__init__(7.0)
        self._stall_s = 0.0
        self._lock = threading.Lock()

    def arm(self, seconds: float) -> None:
        with self._lock:
            self._stall_s = seconds

    def evaluate(self, queries: Sequence):  # type: ignore[no-untyped-def]
        with self._lock:
            stall_s, self._stall_s = self._stall_s, 0.0
        time.sleep(stall_s)
        return super().evaluate(queries)


@pytest.fixture(scope="module")
def stalling(broker) -> Iterator[tuple[EngineWorker, StallingEvaluator]]:
    broker.ensure_account(ACCOUNT)
    evaluator = StallingEvaluator()
    worker = EngineWorker(WorkerConfig(bus=broker.config(ACCOUNT), visit_cap=100_000, status_interval_s=1.0),
                          evaluator=evaluator)
    worker.start()
    try:
        yield worker, evaluator
    finally:
        worker.stop()


def test_an_answer_ready_after_the_deadline_is_a_busy_refusal(stalling, client) -> None:
    worker, evaluator = stalling
    board = client("board-1")
    assert board.request(make_request("warm-up", [("B", "E5")], visits=4), timeout_s=10).id == "warm-up"
    late_before = worker.counts["late"]
    evaluator.arm(1.15)  # the deadline is 1 s away: ready 0.15 s after it, inside the requester's 0.5 s grace
    started = time.monotonic()
    with pytest.raises(EngineRequestFailed) as refused:
        board.request(make_request("stalled", [("B", "C3")], visits=100_000, max_time_ms=300, deadline_s=1.0))
    assert refused.value.busy and "after the request's deadline" in str(refused.value), str(refused.value)
    assert refused.value.error.retry_after_ms is not None and refused.value.error.field == "deadline_ms"
    assert time.monotonic() - started < 1.0 + 0.5 + 0.2  # heard within the requester's grace
    assert worker.counts["late"] == late_before + 1


def test_a_request_whose_time_ran_out_in_the_queue_is_a_busy_refusal(stalling, client) -> None:
    _, evaluator = stalling
    first, second = client("board-1"), client("board-2")
    evaluator.arm(1.2)
    slow = first.request_async(make_request("slow", [("B", "D4")], visits=100_000, max_time_ms=200, deadline_s=4.0))
    time.sleep(0.2)  # the slow one is being searched (stalled) when the next arrives
    # its time is gone at about 1.0 s, the stall ends at about 1.2 s, the requester listens until 1.5 s
    with pytest.raises(EngineRequestFailed) as refused:
        second.request(make_request("behind", [("B", "F6")], visits=100_000, max_time_ms=200, deadline_s=0.8))
    assert refused.value.busy and "ran out while it waited" in str(refused.value), str(refused.value)
    assert refused.value.error.field == "deadline_ms"
    assert slow.result(timeout=5).id == "slow"
