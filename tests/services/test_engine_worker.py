"""One engine worker (``python -m engine_worker``) against a real Mosquitto: answers,
refusals naming the field, the cache, hints on the LED topic, superseded hints, status."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from gobuddy.go.game import position_hash
from gobuddy.bus import topics
from gobuddy.bus.message import now_ms
from gobuddy.bus.requests import EngineRequestFailed
from gobuddy.bus.validation import validate
from gobuddy.go.coords import BLACK, WHITE, from_gtp
from gobuddy.go.position import Position
from tests.mqtt_broker import Inbox
from tests.services.processes import Service, make_request, spawn_worker, start_service

WORKER = "engine-solo"


@pytest.fixture(scope="module")
def worker(broker, presence, tiny_model) -> Iterator[Service]:
    service = spawn_worker(broker, tiny_model, WORKER, "--cache-size", "64", "--visits", "1000000")
    try:
        yield start_service(service, presence)
    finally:
        service.close()


def test_request_answer_round_trip(worker, client) -> None:
    moves = [("B", "E5"), ("W", "C4"), ("B", "pass"), ("W", "G6")]
    answer = client("board-1").request(make_request("board-1:hint:1", moves, board_id="board-1", purpose="hint",
                                                    visits=32))
    validate("engine_answer", answer.to_dict())
    expected = Position(9)
    for color, vertex in moves:
        expected.play(from_gtp(vertex, 9), BLACK if color == "B" else WHITE)
    assert (answer.id, answer.board_id, answer.worker, answer.to_play) == ("board-1:hint:1", "board-1", WORKER, "B")
    assert (answer.position_key.move_count, answer.position_key.hash) == (4, position_hash(expected))
    assert not answer.is_during_search and answer.root.visits >= 32
    assert [m.order for m in answer.moves] == list(range(len(answer.moves))) and 1 <= len(answer.moves) <= 5
    assert [m.visits for m in answer.moves] == sorted((m.visits for m in answer.moves), reverse=True)
    assert all(m.pv[0] == m.move for m in answer.moves)


@pytest.mark.parametrize("moves, extra, field, words", [
    ([("B", "E5"), ("W", "E5")], {}, "position.moves[1][1]", "occupied"),
    ([("B", "A2"), ("B", "B1"), ("W", "A1")], {}, "position.moves[2][1]", "suicide"),
    ([("B", "E5")], {"size": 13}, "position.size", "9x9"),
    ([("B", "E5")], {"deadline_s": 0.02}, "deadline_ms", "deadline"),
])
def test_unanswerable_requests_get_an_error_naming_the_field(worker, client, moves, extra, field, words) -> None:
    with pytest.raises(EngineRequestFailed) as failure:
        client("dashboard").request(make_request("bad-1", moves, **extra), timeout_s=5)
    error = failure.value.error
    assert (error.id, error.field, error.worker) == ("bad-1", field, WORKER)
    assert words in error.error


def test_the_deadline_bounds_the_search_and_the_wait(worker, client) -> None:
    dashboard = client("dashboard")
    request = make_request("deadline-1", [("B", "C3")], visits=1_000_000, deadline_s=1.5)
    answer = dashboard.request(request)
    assert now_ms() <= request.deadline_ms and answer.elapsed_ms < 1500
    blocker = dashboard.request_async(make_request("deadline-blocker", [("B", "A1")], visits=1_000_000,
                                                   max_time_ms=600))
    worker.wait_for_log(r"accepted deadline-blocker")
    with pytest.raises(EngineRequestFailed) as failure:
        dashboard.request(make_request("deadline-2", [("B", "C4")], deadline_s=0.4), timeout_s=5)
    # Refused as busy, worth asking again: at admission when the blocker is still queued
    # (its estimated work outlasts the deadline), or once it waited when the blocker had started.
    error = failure.value.error
    assert failure.value.busy, error
    assert ("of work ahead" in error.error) or (error.field == "deadline_ms" and "waited" in error.error), error
    assert blocker.result(5).id == "deadline-blocker"


def test_the_same_position_is_answered_from_the_cache(worker, client) -> None:
    dashboard = client("dashboard")
    moves = [("B", "C3"), ("W", "G7"), ("B", "C7")]
    first = dashboard.request(make_request("cache-1", moves, visits=64))
    second = dashboard.request(make_request("cache-2", moves, visits=64))
    assert second.id == "cache-2" and second.moves == first.moves and second.root == first.root
    assert second.elapsed_ms < first.elapsed_ms
    other_budget = dashboard.request(make_request("cache-3", moves, visits=65))
    assert other_budget.root.visits >= 65


def test_a_boards_hint_also_lands_on_its_led_topic(worker, client) -> None:
    leds, board = Inbox(), client("board-2")
    client("dashboard").subscribe(topics.board_led("board-2"), leds)
    time.sleep(0.2)
    answer = board.request(make_request("board-2:hint:7", [("B", "D4")], board_id="board-2", purpose="hint"))
    lit = leds.wait_for(1)[0].message
    assert lit.to_dict() == answer.to_dict()
    analysis = board.request(make_request("board-2:analysis:8", [("B", "D5")], board_id="board-2"))
    assert analysis.id == "board-2:analysis:8"
    assert leds.stays_empty(0.3, where=lambda r: r.message.id != "board-2:hint:7")


def test_a_superseded_hint_is_dropped_while_it_waits(worker, client) -> None:
    leds, board = Inbox(), client("board-1")
    client("dashboard").subscribe(topics.board_led("board-1"), leds)
    time.sleep(0.2)
    blocker = client("dashboard").request_async(make_request("blocker", [("B", "A1")], visits=1_000_000,
                                                             max_time_ms=800))
    worker.wait_for_log(r"accepted blocker")
    old = board.request_async(make_request("board-1:hint:20", [("B", "E5")], board_id="board-1", purpose="hint"))
    new = board.request_async(make_request("board-1:hint:21", [("B", "E5"), ("W", "D4")], board_id="board-1",
                                           purpose="hint"))
    assert new.result(10).id == "board-1:hint:21" and blocker.result(10).id == "blocker"
    worker.wait_for_log(r"dropped 'board-1:hint:20': superseded")
    assert [r.message.id for r in leds.wait_for(1)] == ["board-1:hint:21"]
    assert not old.done() and leds.stays_empty(0.3, where=lambda r: r.message.id == "board-1:hint:20")


def test_a_superseded_hint_stops_its_search(worker, client) -> None:
    board = client("board-2")
    started = time.monotonic()
    old = board.request_async(make_request("board-2:hint:30", [("B", "E5")], board_id="board-2", purpose="hint",
                                           visits=1_000_000, max_time_ms=5000))
    worker.wait_for_log(r"accepted board-2:hint:30")
    new = board.request(make_request("board-2:hint:31", [("B", "E5"), ("W", "F4")], board_id="board-2",
                                     purpose="hint"))
    assert new.id == "board-2:hint:31" and time.monotonic() - started < 4.0
    worker.wait_for_log(r"dropped 'board-2:hint:30': superseded")
    assert not old.done()


def test_partial_answers_when_asked(worker, client) -> None:
    partial = Inbox()
    answer = client("dashboard").request(make_request("partial-1", [("B", "E5")], visits=1_000_000,
                                                      max_time_ms=700, report_every_ms=200), on_partial=partial)
    assert not answer.is_during_search and partial.items
    assert all(p.is_during_search and p.id == "partial-1" for p in partial.items)


def test_the_retained_status_tells_model_queue_and_speed(worker, presence) -> None:
    status = presence.wait(WORKER, "online", worker.started_ms, model_name="tiny-services", evals_per_s=0.0,
                           queue_depth=0)
    assert status.role == "engine" and status.details["model"].endswith("tiny.onnx")
    assert status.reason == "connected"
