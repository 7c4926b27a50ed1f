"""What a ``BusClient`` accepts from a real Mosquitto: a hostile payload on a topic
decoded in paho's network thread leaves the client working, a failing network loop
reconnects (and a dead one is fatal, never silent), and retained copies on topics that
are never retained by design do not reach handlers."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from gobuddy.bus import topics
from gobuddy.bus.client import BusClient
from gobuddy.bus.inbox import Received
from gobuddy.bus.message import now_ms
from gobuddy.bus.messages import EngineAnswer, EngineRequest, Passed, Position
from gobuddy.bus.validation import examples
from tests.bus.mutations import body, deep
from tests.mqtt_broker import Inbox, MosquittoBroker


@pytest.fixture
def guarded(mqtt_broker: MosquittoBroker) -> Iterator[Any]:
    """``guarded(username, client_id=..., **config)`` -> (started BusClient, fatal list):
    ``on_fatal`` records instead of ending the test process."""
    made: list[BusClient] = []

    def make(username: str, subscribe: dict[str, Any] | None = None, **overrides: Any) -> tuple[BusClient, list]:
        fatal: list[str] = []
        client = BusClient(mqtt_broker.config(username, **overrides), on_fatal=fatal.append)
        for topic_filter, handler in (subscribe or {}).items():
            client.subscribe(topic_filter, handler)
        made.append(client)
        client.start()
        return client, fatal

    yield make
    for client in reversed(made):
        client.stop()


def fake_worker(bus_client: Any, account: str) -> BusClient:
    """An engine account that answers every request at once with the example answer."""
    holder: list[BusClient] = []

    def answer(received: Received) -> None:
        request: EngineRequest = received.message  # type: ignore[assignment]
        reply = EngineAnswer.from_dict({**examples("engine_answer")[0], "id": request.id,
                                        "board_id": request.board_id, "ts": now_ms(), "worker": account})
        holder[0].respond(received, reply)

    holder.append(bus_client(account, subscribe={topics.engine_requests_filter(): answer}))
    return holder[0]


def analysis(request_id: str) -> EngineRequest:
    return EngineRequest(id=request_id, board_id=None, purpose="analysis", max_visits=8,
                         deadline_ms=now_ms() + 10_000, position=Position(size=9, komi=7.0, rules="chinese"))


def wait_until(predicate: Any, timeout_s: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_a_deep_payload_on_the_response_topic_leaves_the_requester_working(mqtt_broker, bus_client,
                                                                           guarded) -> None:
    fake_worker(bus_client, "engine-1")
    requester, fatal = guarded("dashboard", client_id="dashboard-deep")
    assert requester.request(analysis("before"), timeout_s=5).id == "before"  # its response topic is subscribed
    poisoner = mqtt_broker.raw_client("engine-2")
    try:
        properties = Properties(PacketTypes.PUBLISH)
        properties.CorrelationData = uuid.uuid4().bytes
        poisoner.publish(topics.engine_response("dashboard", "dashboard-deep"), deep(100_000), qos=1,
                         properties=properties).wait_for_publish(5)
        assert wait_until(lambda: requester.stats["rejected"] >= 1)
        assert requester.request(analysis("after"), timeout_s=5).id == "after"
        assert requester.network_alive and requester.is_connected()
        assert fatal == [] and requester.stats["callback_errors"] == 0 and requester.stats["loop_failures"] == 0
    finally:
        poisoner.disconnect()
        poisoner.loop_stop()


def passed(seq: int) -> Passed:
    return Passed(board_id="board-1", game_id="g-guard", seq=seq, move_number=seq, color="B" if seq % 2 else "W")


def test_an_exception_escaping_into_the_network_loop_reconnects_and_loses_nothing(guarded, bus_client) -> None:
    events = Inbox()
    consumer, fatal = guarded("recorder", subscribe={topics.boards_filter("event"): events},
                              persistent_session=True, session_expiry_s=60)
    real = consumer._mqtt.on_message  # stand in for a bug below our callbacks: paho re-raises it
    exploded: list[int] = []

    def explode_once(client: Any, userdata: Any, msg: Any) -> None:
        if not exploded:
            exploded.append(1)
            raise RuntimeError("a bug in a callback")
        real(client, userdata, msg)

    consumer._mqtt.on_message = explode_once
    board = bus_client("board-1")
    for seq in (1, 2):
        board.publish(topics.board_event("board-1"), passed(seq), wait=True)
    got = events.wait_for(2, timeout_s=10, where=lambda r: r.message.game_id == "g-guard")
    assert sorted({r.message.seq for r in got}) == [1, 2]  # the first came again after the reconnect
    assert consumer.stats["loop_failures"] == 1 and fatal == []
    assert consumer.network_alive and wait_until(consumer.is_connected)
    board.publish(topics.board_event("board-1"), passed(3), wait=True)
    assert events.wait_for(1, where=lambda r: r.message.seq == 3)


def test_a_network_thread_that_ends_anyway_is_fatal_not_silent(guarded, bus_client) -> None:
    consumer, fatal = guarded("observer-2", subscribe={topics.boards_filter("event"): Inbox()})

    def end_the_thread(client: Any, userdata: Any, msg: Any) -> None:
        raise SystemExit("not an Exception: the guard does not retry it")

    consumer._mqtt.on_message = end_the_thread
    bus_client("board-1").publish(topics.board_event("board-1"), passed(1), wait=True)
    assert wait_until(lambda: bool(fatal))
    assert "network thread" in fatal[0] and not consumer.network_alive


def test_retained_poison_on_a_game_event_topic_is_not_handed_to_a_new_subscriber(mqtt_broker, guarded) -> None:
    publisher = mqtt_broker.raw_client("board-2")
    event_topic, state_topic = topics.board_event("board-2"), topics.board_state("board-2")
    poison = {**examples("game_event")[2], "board_id": "board-2", "ts": now_ms()}
    state = {**examples("board_state")[1], "board_id": "board-2", "ts": now_ms()}
    try:
        publisher.publish(event_topic, body(poison), qos=1, retain=True).wait_for_publish(5)
        publisher.publish(state_topic, body(state), qos=1, retain=True).wait_for_publish(5)
        events, states = Inbox(), Inbox()
        consumer, _ = guarded("observer-3", subscribe={topics.boards_filter("event"): events,
                                                       topics.boards_filter("state"): states})
        assert states.wait_for(1, where=lambda r: r.topic == state_topic)[0].retain  # retained by design: kept
        assert events.stays_empty(0.5)
        assert consumer.stats["retained_dropped"] == 1
        live = {**poison, "seq": 2, "move_number": 2, "color": "W", "vertex": "D4", "ts": now_ms()}
        publisher.publish(event_topic, body(live), qos=1).wait_for_publish(5)
        assert events.wait_for(1)[0].message.seq == 2  # the same topic, not retained: delivered
    finally:
        for topic in (event_topic, state_topic):
            publisher.publish(topic, b"", qos=1, retain=True).wait_for_publish(5)
        publisher.disconnect()
        publisher.loop_stop()
