"""Two engine workers in one shared subscription group: they split the load, and when
one dies mid-request the other answers it.

Mosquitto 2.0.11 does not hand a dead shared subscriber's unacknowledged request to the
others (measured: with a clean session it is dropped, with a persistent one it waits in
the dead worker's session). So the request is answered because the requester re-sends
it after ``resend_after_s`` without an answer; the dead worker has left the group (clean
session), so the re-sent request goes to the survivor.
"""

from __future__ import annotations

import signal
import time
from collections import Counter
from collections.abc import Iterator

import pytest

from gobuddy.bus import topics
from gobuddy.bus.message import now_ms
from gobuddy.bus.requests import EngineRequestFailed
from gobuddy.go.coords import GTP_COLUMNS
from tests.mqtt_broker import Inbox
from tests.services.conftest import stop_all
from tests.services.processes import Service, make_request, spawn_worker, start_service

NAMES = ("engine-pair-a", "engine-pair-b")


@pytest.fixture(scope="module")
def workers(broker, presence, tiny_model) -> Iterator[dict[str, Service]]:
    services = {name: spawn_worker(broker, tiny_model, name) for name in NAMES}
    try:
        for service in services.values():
            start_service(service, presence)
        yield services
    finally:
        stop_all(list(services.values()))


def distinct_positions(count: int) -> list[list[tuple[str, str]]]:
    """``count`` different positions: one black stone anywhere, then a white one added."""
    points = [f"{GTP_COLUMNS[c]}{r}" for r in range(1, 10) for c in range(9)]
    single = [[("B", p)] for p in points]
    double = [[("B", "A1"), ("W", p)] for p in points[1:]]
    return (single + double)[:count]


def test_two_workers_split_a_hundred_requests(workers, client) -> None:
    dashboard = client("dashboard")
    replies = Inbox()
    client("observer-2").subscribe(topics.engine_response("dashboard", dashboard.client_id), replies)
    time.sleep(0.2)
    futures = [dashboard.request_async(make_request(f"split-{n}", moves, visits=4, deadline_s=30))
               for n, moves in enumerate(distinct_positions(100))]
    answers = [future.result(30) for future in futures]
    assert [a.id for a in answers] == [f"split-{n}" for n in range(100)]
    share = Counter(a.worker for a in answers)
    assert set(share) == set(NAMES) and min(share.values()) >= 40, share
    def final(received) -> bool:
        return received.kind == "engine_answer"

    replies.wait_for(100, where=final)
    time.sleep(0.3)  # time for a second answer to any of them
    assert Counter(r.message.id for r in replies.items if final(r)) == Counter(f"split-{n}" for n in range(100))


def test_a_killed_workers_request_is_answered_by_the_other(workers, client, presence) -> None:
    dashboard = client("dashboard")
    request = make_request("failover-1", [("B", "E5"), ("W", "E4")], visits=1_000_000, max_time_ms=1500,
                           deadline_s=8.0)
    started = now_ms()
    first = dashboard.request_async(request)
    deadline = time.monotonic() + 5
    victim = None
    while victim is None and time.monotonic() < deadline:
        victim = next((s for s in workers.values() if "accepted failover-1" in s.log_text()), None)
        time.sleep(0.02)
    assert victim is not None, "no worker accepted the request"
    survivor = next(s for s in workers.values() if s is not victim)
    assert victim.signal(signal.SIGKILL) == -signal.SIGKILL

    answer = first.result(8)  # the client heard nothing more and sent it again: the survivor answers
    assert (answer.id, answer.worker) == ("failover-1", survivor.name)
    assert now_ms() <= request.deadline_ms + 500 and not answer.is_during_search
    assert len(survivor.wait_for_log(r"accepted failover-1")) == 1
    lost = presence.wait(victim.name, "offline", victim.started_ms)  # a will carries the time of its connect
    assert lost.reason == "connection_lost"
    busy = [dashboard.request_async(make_request(f"late-{n}", [("B", "C3")], visits=1_000_000, max_time_ms=5000))
            for n in range(2)]
    survivor.wait_for_log(r"accepted late-1")
    assert survivor.signal(signal.SIGTERM) == 0  # the running and the waiting request are refused, not dropped
    for future in busy:
        with pytest.raises(EngineRequestFailed, match="shutting down; ask again"):
            future.result(1)
    assert presence.wait(survivor.name, "offline", started).reason == "shutdown"
