"""BusClient against a real Mosquitto: publish/subscribe, presence, validation on both sides."""

from __future__ import annotations

import json
import socket
import time

import pytest

from gobuddy.bus import topics
from gobuddy.bus.board_messages import BoardState
from gobuddy.bus.game_events import MovePlayed, Passed
from gobuddy.bus.topics import TopicError
from gobuddy.bus.validation import MessageError, examples
from tests.mqtt_broker import Inbox


def move(n: int, board: str = "board-1", game: str = "g-client") -> MovePlayed:
    return MovePlayed(board_id=board, game_id=game, seq=n, move_number=n, color="B" if n % 2 else "W",
                      vertex="E5", captures=())


def test_typed_message_round_trip(bus_client) -> None:
    inbox = Inbox()
    bus_client("recorder", subscribe={topics.boards_filter("event"): inbox})
    board = bus_client("board-1")
    sent = move(1)
    assert board.publish(topics.board_event("board-1"), sent, wait=True).reason_code == 0
    received = inbox.wait_for(1)[0]
    assert received.message == sent
    assert (received.kind, received.info.board_id, received.qos, received.retain) == ("game_event", "board-1", 1, False)


def test_retained_state_reaches_a_late_subscriber(bus_client) -> None:
    board = bus_client("board-2")
    state = BoardState(board_id="board-2", status="playing", game_id="g-late", seq=1, moves=(("B", "E5"),),
                       move_number=1, to_play="W")
    board.publish(topics.board_state("board-2"), state, wait=True)
    inbox = Inbox()
    bus_client("dashboard", subscribe={topics.board_state("board-2"): inbox})
    received = inbox.wait_for(1)[0]
    assert received.retain and received.message == state


def test_publish_validates_before_sending(bus_client) -> None:
    board = bus_client("board-1")
    with pytest.raises(MessageError) as info:
        board.publish(topics.board_event("board-1"), {**examples("game_event")[2], "vertex": "I5"})
    assert info.value.field == "vertex"
    with pytest.raises(TopicError):  # payload of board-2 on board-1's topic
        board.publish(topics.board_event("board-1"), move(1, board="board-2"))
    with pytest.raises(TopicError):  # a game event is not a frame
        board.publish(topics.board_frame("board-1"), move(1))
    with pytest.raises(TopicError):
        board.publish("gobuddy/v1/board/board-1/moves", move(1))
    assert board.stats["published"] == 1  # only its birth went out


def test_overlapping_subscriptions_reach_each_filter_once(bus_client) -> None:
    everything, events = Inbox(), Inbox()
    dashboard = bus_client("dashboard")
    dashboard.subscribe(topics.everything_filter(), everything)
    dashboard.subscribe(topics.boards_filter("event"), events)
    time.sleep(0.2)
    bus_client("board-1").publish(topics.board_event("board-1"), move(7), wait=True)
    events.wait_for(1)
    is_move = lambda r: r.topic == topics.board_event("board-1")  # noqa: E731
    everything.wait_for(1, where=is_move)
    time.sleep(0.2)
    assert len(events.items) == 1 and len([r for r in everything.items if is_move(r)]) == 1


def test_birth_will_and_reconnect(bus_client) -> None:
    statuses, hints = Inbox(), Inbox()
    bus_client("dashboard", subscribe={topics.status("board", "board-1"): statuses})
    board = bus_client("board-1", subscribe={topics.board_led("board-1"): hints})
    states = lambda: [(r.message.state, r.message.reason) for r in statuses.items]  # noqa: E731
    statuses.wait_for(1, where=lambda r: r.message.state == "online")

    board._mqtt.socket().shutdown(socket.SHUT_RDWR)  # the network dies under the client
    statuses.wait_for(1, where=lambda r: r.message.reason == "connection_lost")
    statuses.wait_for(2, where=lambda r: r.message.state == "online")  # reconnected: a new birth
    assert ("offline", "connection_lost") in states()

    engine = bus_client("engine-1")  # subscriptions were re-sent on reconnect
    answer = {**examples("engine_answer")[0], "board_id": "board-1"}
    engine.publish(topics.board_led("board-1"), answer, wait=True)
    assert hints.wait_for(1)[0].message.id == answer["id"]


def test_clean_stop_publishes_offline_shutdown(bus_client) -> None:
    statuses = Inbox()
    bus_client("observer", subscribe={topics.status("engine", "engine-stop-1"): statuses})
    engine = bus_client("engine-1", client_id="engine-stop-1")
    engine.set_status(model="test-model", queue_depth=3)
    last = statuses.wait_for(1, where=lambda r: r.message.details.get("queue_depth") == 3)[-1]
    assert last.message.details["model"] == "test-model"
    engine.stop()
    final = statuses.wait_for(1, where=lambda r: r.message.state == "offline")[-1]
    assert final.message.reason == "shutdown" and final.retain is False


def test_invalid_payloads_are_reported_and_skipped(bus_client, mqtt_broker) -> None:
    handled, reports = Inbox(), Inbox()
    bus_client("observer", subscribe={topics.error_filter(): reports})
    recorder = bus_client("recorder", client_id="recorder-strict", errors_per_s=100.0,
                          subscribe={topics.everything_filter(): handled})
    time.sleep(0.2)
    board = mqtt_broker.raw_client("board-1")
    engine = mqtt_broker.raw_client("engine-1")
    event_topic = topics.board_event("board-1")
    good = examples("game_event")[2]
    bad = [
        (board, event_topic, b"{not json", "invalid_json", None),
        (board, event_topic, b"\xc3\x28", "invalid_utf8", None),
        (board, event_topic, json.dumps({**good, "seq": "3"}).encode(), "schema", "seq"),
        (board, event_topic, json.dumps({k: v for k, v in good.items() if k != "vertex"}).encode(), "schema", "vertex"),
        (board, event_topic, json.dumps({**good, "game_id": "x" * 20_000}).encode(), "too_large", "game_id"),
        (board, event_topic, json.dumps({**good, "game_id": "x" * 300_000}).encode(), "too_large", None),
        (board, topics.board_state("board-1"), json.dumps(good).encode(), "schema", "status"),
        (engine, "gobuddy/v1/board/Board_1/led", json.dumps(examples("engine_answer")[0]).encode(), "topic", None),
    ]
    for client, topic, payload, _, _ in bad:
        client.publish(topic, payload, qos=1).wait_for_publish(5)
    board.publish(event_topic, json.dumps(good).encode(), qos=1).wait_for_publish(5)
    try:
        got = reports.wait_for(len(bad), where=lambda r: r.info.client_id == "recorder-strict")
        assert [(r.message.kind, r.message.field) for r in got] == [(k, f) for _, _, _, k, f in bad]
        assert got[0].message.topic == event_topic and got[0].message.excerpt == "{not json"
        assert handled.wait_for(1, where=lambda r: r.topic == event_topic)[0].payload == good
        assert recorder.stats["rejected"] == len(bad) and recorder.is_connected()
    finally:
        board.publish(topics.board_state("board-1"), b"", qos=1, retain=True).wait_for_publish(5)  # clear it
        for client in (board, engine):
            client.disconnect()
            client.loop_stop()


def test_a_failing_handler_is_isolated(bus_client) -> None:
    seen, reports = [], Inbox()

    def fragile(received) -> None:
        seen.append(received.message.seq)
        if received.message.seq == 1:
            raise RuntimeError("disk full")

    bus_client("observer", subscribe={topics.error_filter(): reports})
    recorder = bus_client("recorder", subscribe={topics.boards_filter("event"): fragile})
    board = bus_client("board-1")
    for n in (1, 2):
        board.publish(topics.board_event("board-1"), Passed(board_id="board-1", game_id="g-f", seq=n,
                                                            move_number=n, color="B"), wait=True)
    report = reports.wait_for(1, where=lambda r: r.message.kind == "handler")[0].message
    assert report.message == "RuntimeError: disk full"
    deadline = time.monotonic() + 5
    while seen != [1, 2] and time.monotonic() < deadline:
        time.sleep(0.01)
    assert seen == [1, 2] and recorder.stats["handler_errors"] == 1


def test_error_reports_are_rate_limited(bus_client, mqtt_broker) -> None:
    reports = Inbox()
    bus_client("observer", subscribe={topics.error_filter(): reports})
    recorder = bus_client("recorder", client_id="recorder-flooded", errors_per_s=2.0,
                          subscribe={topics.boards_filter("frame"): Inbox()})
    time.sleep(0.2)
    board = mqtt_broker.raw_client("board-1")
    try:
        for _ in range(30):
            board.publish(topics.board_frame("board-1"), b"garbage", qos=1).wait_for_publish(5)
        deadline = time.monotonic() + 5
        while recorder.stats["rejected"] < 30 and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)
        mine = [r for r in reports.items if r.info.client_id == "recorder-flooded"]
        assert recorder.stats["rejected"] == 30 and 1 <= len(mine) <= 4
    finally:
        board.disconnect()
        board.loop_stop()
