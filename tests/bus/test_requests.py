"""Engine request/response through a real Mosquitto: correlation, errors, deadlines, sharing."""

from __future__ import annotations

import json
import time
import uuid
from collections import Counter

import pytest
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from gobuddy.bus import topics
from gobuddy.bus.engine_messages import EngineAnswer, EngineError, EngineRequest, MoveInfo, Position, PositionKey, RootInfo
from gobuddy.bus.inbox import Received
from gobuddy.bus.message import now_ms
from gobuddy.bus.requests import EngineRequestFailed
from gobuddy.bus.topics import TopicError
from tests.mqtt_broker import Inbox


def make_request(request_id: str, board_id: str | None = "board-1", deadline_s: float = 3.0,
                 moves: tuple = (("B", "E5"), ("W", "C4"))) -> EngineRequest:
    return EngineRequest(id=request_id, board_id=board_id, purpose="hint", max_visits=16,
                         deadline_ms=now_ms() + int(deadline_s * 1000),
                         position=Position(size=9, komi=7.0, rules="chinese", moves=moves))


def answer_for(received: Received, worker: str, during: bool = False) -> EngineAnswer:
    """A fake worker's answer: plays the first free corner, reports the move count."""
    request: EngineRequest = received.message  # type: ignore[assignment]
    return EngineAnswer(
        id=request.id, board_id=request.board_id, to_play=request.position.side_to_play(),
        position_key=PositionKey(move_count=len(request.position.moves), hash="abc123"),
        root=RootInfo(visits=16, winrate=0.5, winrate_black=0.5, score_lead=0.5, value=0.0),
        moves=(MoveInfo(move="C3", order=0, visits=10, winrate=0.55, winrate_black=0.45, score_lead=1.0,
                        prior=0.3, pv=("C3", "D4")),),
        model="fake", worker=worker, elapsed_ms=1.5, is_during_search=during)


def responder(client_holder: list, log: list | None = None):
    def handle(received: Received) -> None:
        client = client_holder[0]
        if log is not None:
            log.append(received.message.id)
        client.respond(received, answer_for(received, client.client_id))
    return handle


def start_worker(bus_client, client_id: str, log: list | None = None):
    holder: list = []
    worker = bus_client("engine-1", client_id=client_id, start=False)
    holder.append(worker)
    worker.subscribe(topics.engine_requests_filter(), responder(holder, log))
    worker.start()
    return worker


def test_request_answer_round_trip(bus_client) -> None:
    seen = Inbox()
    worker = bus_client("engine-1", client_id="engine-rt", start=False)

    def handle(received: Received) -> None:
        seen(received)
        worker.respond(received, answer_for(received, "engine-rt"))

    worker.subscribe(topics.engine_requests_filter(), handle)
    worker.start()
    board = bus_client("board-1")
    answer = board.request(make_request("board-1:hint:1"))
    assert (answer.id, answer.board_id, answer.position_key.move_count, answer.best.move) == \
        ("board-1:hint:1", "board-1", 2, "C3")
    request = seen.items[0]
    assert request.response_topic == topics.engine_response("board", "board-1")
    assert len(request.correlation_data) == 16
    assert (request.info.role, request.info.client_id) == ("board", "board-1")


def test_partial_answers_then_final(bus_client) -> None:
    holder: list = []

    def handle(received: Received) -> None:
        for _ in range(2):
            holder[0].respond(received, answer_for(received, "engine-partial", during=True))
        holder[0].respond(received, answer_for(received, "engine-partial"))

    holder.append(bus_client("engine-1", client_id="engine-partial", subscribe={topics.engine_requests_filter(): handle}))
    partial = Inbox()
    answer = bus_client("dashboard").request(make_request("replay-1", board_id=None), on_partial=partial)
    assert not answer.is_during_search
    assert len(partial.wait_for(2)) == 2 and all(a.is_during_search for a in partial.items)


def test_engine_error_fails_the_request(bus_client) -> None:
    holder: list = []

    def refuse(received: Received) -> None:
        holder[0].respond(received, EngineError(id=received.message.id, error="no such rules", field="position.rules",
                                                worker="engine-refuse"))

    holder.append(bus_client("engine-1", client_id="engine-refuse", subscribe={topics.engine_requests_filter(): refuse}))
    with pytest.raises(EngineRequestFailed) as info:
        bus_client("board-2").request(make_request("r-err", board_id="board-2"))
    assert info.value.error.field == "position.rules"


def test_no_answer_times_out(bus_client) -> None:
    board = bus_client("board-2")
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        board.request(make_request("r-timeout", board_id="board-2", deadline_s=0.3))
    assert time.monotonic() - started < 2.0
    with pytest.raises(ValueError):  # a deadline in the past is refused at once
        board.request(make_request("r-past", board_id="board-2", deadline_s=-1))


def test_a_late_answer_is_dropped(bus_client) -> None:
    holder: list = []

    def slow(received: Received) -> None:
        time.sleep(0.5)
        holder[0].respond(received, answer_for(received, "engine-slow"))

    holder.append(bus_client("engine-1", client_id="engine-slow", subscribe={topics.engine_requests_filter(): slow}))
    board = bus_client("board-1")
    with pytest.raises(TimeoutError):
        board.request(make_request("r-late"), timeout_s=0.2)
    time.sleep(0.6)
    assert board.is_connected()
    assert board.request(make_request("r-after")).id == "r-after"


def test_invalid_requests_are_refused_at_once(bus_client, mqtt_broker) -> None:
    start_worker(bus_client, "engine-strict")
    replies = Inbox()
    raw = mqtt_broker.raw_client("board-1", client_id="board-1",
                                 on_message=lambda c, u, m: replies((m.properties.CorrelationData, json.loads(m.payload))))
    raw.subscribe(topics.engine_response("board", "board-1"), qos=1)
    time.sleep(0.2)
    good = make_request("r-bad").to_dict()
    off_board = {**good, "id": "r-off", "position": {**good["position"], "moves": [["B", "J10"]]}}
    cases = [(b"{oops", "", None), (json.dumps(off_board).encode(), "r-off", "position.moves[0][1]"),
             (json.dumps({**good, "top_k": 99}).encode(), "r-bad", "top_k")]
    try:
        for payload, _, _ in cases:
            properties = Properties(PacketTypes.PUBLISH)
            properties.ResponseTopic = topics.engine_response("board", "board-1")
            properties.CorrelationData = uuid.uuid4().bytes
            raw.publish(topics.engine_request("board", "board-1"), payload, qos=1, properties=properties)
        got = replies.wait_for(len(cases))
        assert [(reply["id"], reply["field"]) for _, reply in got] == [(i, f) for _, i, f in cases]
        assert all(reply["worker"] == "engine-strict" for _, reply in got)
    finally:
        raw.disconnect()
        raw.loop_stop()


def test_a_board_asks_only_about_itself(bus_client) -> None:
    with pytest.raises(TopicError):
        bus_client("board-1").request(make_request("r-other", board_id="board-2"))


def test_request_from_inside_a_handler(bus_client) -> None:
    start_worker(bus_client, "engine-nested")
    results = Inbox()
    dashboard = bus_client("dashboard", start=False)
    dashboard.subscribe(topics.boards_filter("button"),
                        lambda r: results(dashboard.request(make_request("nested", board_id=None))))
    dashboard.start()
    bus_client("board-1").publish(topics.board_button("board-1"),
                                  {"board_id": "board-1", "seq": 1, "ts": now_ms(), "button": "hint", "press": "short"})
    assert results.wait_for(1)[0].id == "nested"


def test_shared_subscription_splits_requests_between_workers(bus_client) -> None:
    logs = {"engine-a": [], "engine-b": []}
    for name, log in logs.items():
        start_worker(bus_client, name, log)
    time.sleep(0.2)
    dashboard = bus_client("dashboard")
    futures = [dashboard.request_async(make_request(f"split-{n}", board_id=None)) for n in range(40)]
    answers = [future.result(5) for future in futures]
    assert sorted(a.id for a in answers) == sorted(f"split-{n}" for n in range(40))
    handled = logs["engine-a"] + logs["engine-b"]
    assert len(handled) == 40 and len(set(handled)) == 40, Counter(handled).most_common(3)
    assert len(logs["engine-a"]) > 5 and len(logs["engine-b"]) > 5
    by_worker = Counter(a.worker for a in answers)
    assert by_worker == Counter({"engine-a": len(logs["engine-a"]), "engine-b": len(logs["engine-b"])})


def test_a_dead_workers_share_goes_to_the_other(bus_client) -> None:
    first = start_worker(bus_client, "engine-dies")
    survivor_log: list = []
    start_worker(bus_client, "engine-lives", survivor_log)
    time.sleep(0.2)
    first.stop()
    dashboard = bus_client("dashboard")
    answers = [dashboard.request(make_request(f"after-{n}", board_id=None)) for n in range(6)]
    assert {a.worker for a in answers} == {"engine-lives"} and len(survivor_log) == 6


def test_respond_refuses_a_reply_with_a_foreign_id(bus_client) -> None:
    holder: list = []
    problems = Inbox()

    def wrong(received: Received) -> None:
        try:
            holder[0].respond(received, EngineError(id="not-it", error="x", worker="engine-wrong"))
        except ValueError as exc:
            problems(str(exc))
        holder[0].respond(received, answer_for(received, "engine-wrong"))

    holder.append(bus_client("engine-1", client_id="engine-wrong", subscribe={topics.engine_requests_filter(): wrong}))
    assert bus_client("board-2").request(make_request("r-id", board_id="board-2")).id == "r-id"
    assert "does not echo" in problems.wait_for(1)[0]
