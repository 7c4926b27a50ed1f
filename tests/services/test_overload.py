"""One engine worker (``python -m engine_worker``, a real Mosquitto) when a requester's
clock is wrong and when one requester floods it.

| situation                                              | what must hold                                   |
|--------------------------------------------------------|--------------------------------------------------|
| a requester's clock an hour behind (a Pi before NTP)   | answered (the worker times ``timeout_ms`` itself) |
| a requester's clock an hour ahead                      | answered                                          |
| one board floods 40 long requests, another asks 5      | the other's all answered, each within 3 s         |
| the flood itself                                       | every request answered or refused ``busy``: none left in silence |
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import wait

import pytest

from gobuddy.bus import requests as bus_requests
from gobuddy.bus.message import now_ms
from gobuddy.bus.requests import EngineRequestFailed
from tests.services.processes import Service, make_request, running, spawn_worker

WORKER = "engine-load"


@pytest.fixture(scope="module")
def worker(broker, presence, tiny_model) -> Iterator[Service]:
    with running(spawn_worker(broker, tiny_model, WORKER), presence) as service:
        yield service


@pytest.mark.parametrize("skew_s", [-3600, 3600])
def test_a_requester_whose_clock_is_off_is_answered(worker, client, monkeypatch, skew_s) -> None:
    board = client("board-1")
    wrong = lambda: int(time.time() * 1000) + skew_s * 1000  # noqa: E731  (the requester's clock)
    monkeypatch.setattr(bus_requests, "now_ms", wrong)
    request = make_request(f"skewed-{skew_s}", [("B", "E5")], visits=8)
    request = type(request)(**{**request.__dict__, "deadline_ms": wrong() + 8000})
    answer = board.request(request, timeout_s=10)
    assert answer.id == f"skewed-{skew_s}" and answer.root.visits >= 1


def test_a_flood_from_one_board_does_not_starve_another(worker, client) -> None:
    flooder, other = client("board-1"), client("board-2")
    flood = [flooder.request_async(make_request(f"flood-{n}", [("B", "C3"), ("W", f"D{1 + n % 9}")],
                                                visits=1_000_000, max_time_ms=400, deadline_s=10.0))
             for n in range(40)]  # 16 s of work for 10 s: some must be refused; a busy machine still answers in time
    time.sleep(0.3)
    waits = []
    for n in range(5):
        started = time.monotonic()
        answer = other.request(make_request(f"fair-{n}", [("B", "G7"), ("W", f"C{1 + n}")], visits=1_000_000,
                                            max_time_ms=300, deadline_s=6.0))
        waits.append(time.monotonic() - started)
        assert answer.id == f"fair-{n}"
    assert max(waits) < 3.0, waits  # behind one flood job at most, not behind the forty
    done, not_done = wait(flood, timeout=16)
    assert not not_done
    outcomes = []
    for future in flood:
        error = future.exception()
        if error is None:
            outcomes.append("answered")
        else:
            assert isinstance(error, EngineRequestFailed) and error.busy, repr(error)
            outcomes.append("busy")
    assert outcomes.count("answered") >= 10, outcomes  # weaker searches, but many answered in time
    assert now_ms() > 0
