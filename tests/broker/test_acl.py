"""Who may say what: authentication and the ACLs of broker/make_users.py, on a real Mosquitto.

A denied QoS 1 publish gets PUBACK 0x87 (not authorised) and is not delivered."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from gobuddy.bus import topics
from gobuddy.bus.delivery import PublishRejected
from gobuddy.bus.validation import examples

OK, DENIED = 0x00, 0x87
BOARD1_EVENT = "gobuddy/v1/board/board-1/event"

# (username, topic, expected PUBACK: OK covers 0x10 "no matching subscribers" too)
PUBLISH_TABLE = [
    ("board-1", "gobuddy/v1/board/board-1/frame", OK),
    ("board-1", "gobuddy/v1/board/board-1/button", OK),
    ("board-1", BOARD1_EVENT, OK),
    ("board-1", "gobuddy/v1/board/board-1/state", OK),
    ("board-1", "gobuddy/v1/engine/request/board/board-1", OK),
    ("board-1", "gobuddy/v1/status/board/board-1", OK),
    ("board-1", "gobuddy/v1/error/board/board-1", OK),
    ("board-1", "gobuddy/v1/board/board-1/led", DENIED),                 # only engines light LEDs
    ("board-1", "gobuddy/v1/engine/response/board/board-1", DENIED),     # only engines answer
    ("board-1", "gobuddy/v1/engine/response/dashboard/dashboard", DENIED),
    ("board-1", "gobuddy/v1/board/board-2/event", DENIED),               # another board
    ("board-1", "gobuddy/v1/board/web-1/event", DENIED),
    ("board-1", "gobuddy/v1/engine/request/board/board-2", DENIED),
    ("board-1", "gobuddy/v1/status/board/board-2", DENIED),
    ("board-1", "gobuddy/v1/status/engine/engine-1", DENIED),
    ("board-1", "gobuddy/v1/board/board-1/event/extra", DENIED),
    ("engine-1", "gobuddy/v1/board/board-1/led", OK),
    ("engine-1", "gobuddy/v1/board/web-2/led", OK),
    ("engine-1", "gobuddy/v1/engine/response/board/board-1", OK),
    ("engine-1", "gobuddy/v1/status/engine/engine-1", OK),
    ("engine-1", "gobuddy/v1/error/engine/engine-1", OK),
    ("engine-1", "gobuddy/v1/status/engine/engine-2", DENIED),             # another worker's presence
    ("engine-1", "gobuddy/v1/error/engine/engine-2", DENIED),
    ("engine-1", BOARD1_EVENT, DENIED),
    ("engine-1", "gobuddy/v1/board/engine-1/event", DENIED),
    ("engine-1", "gobuddy/v1/board/engine-1/state", DENIED),
    ("engine-1", "gobuddy/v1/status/board/engine-1", DENIED),
    ("engine-1", "gobuddy/v1/engine/request/board/engine-1", DENIED),
    ("engine-1", "gobuddy/v1/engine/request/engine/engine-1", DENIED),
    ("dashboard", "gobuddy/v1/board/web-1/event", OK),
    ("dashboard", "gobuddy/v1/board/web-8/state", OK),
    ("dashboard", "gobuddy/v1/engine/request/dashboard/dashboard", OK),
    ("dashboard", "gobuddy/v1/engine/request/dashboard/dashboard-a", DENIED),  # only its own id
    ("dashboard", "gobuddy/v1/status/dashboard/dashboard", OK),
    ("dashboard", "gobuddy/v1/status/dashboard/dashboard-a", DENIED),
    ("dashboard", BOARD1_EVENT, DENIED),                                 # cannot pose as a board
    ("dashboard", "gobuddy/v1/board/board-1/state", DENIED),
    ("dashboard", "gobuddy/v1/board/web-9/event", DENIED),
    ("dashboard", "gobuddy/v1/board/web-1/led", DENIED),
    ("dashboard", "gobuddy/v1/board/dashboard/event", DENIED),
    ("dashboard", "gobuddy/v1/engine/request/board/board-1", DENIED),
    ("dashboard", "gobuddy/v1/engine/response/board/board-1", DENIED),
    ("reviewer", "gobuddy/v1/engine/request/dashboard/reviewer", OK),   # asks the engine as itself
    ("reviewer", "gobuddy/v1/status/dashboard/reviewer", OK),
    ("reviewer", "gobuddy/v1/engine/request/dashboard/dashboard", DENIED),
    ("reviewer", "gobuddy/v1/board/web-1/event", DENIED),                # plays no games
    ("reviewer", "gobuddy/v1/board/board-1/command", DENIED),
    ("reviewer", BOARD1_EVENT, DENIED),
    ("recorder", "gobuddy/v1/status/recorder/recorder", OK),
    ("recorder", "gobuddy/v1/board/board-1/stored", OK),
    ("board-1", "gobuddy/v1/board/board-1/stored", DENIED),              # only the recorder says what it stored
    ("engine-1", "gobuddy/v1/board/board-1/stored", DENIED),
    ("dashboard", "gobuddy/v1/board/web-1/stored", DENIED),
    ("dashboard", "gobuddy/v1/board/board-1/command", OK),               # an admin's recalibrate
    ("board-1", "gobuddy/v1/board/board-2/command", DENIED),
    ("engine-1", "gobuddy/v1/board/board-1/command", DENIED),
    ("recorder", BOARD1_EVENT, DENIED),
    ("recorder", "gobuddy/v1/board/recorder/event", DENIED),
    ("recorder", "gobuddy/v1/engine/request/board/recorder", DENIED),
    ("observer", BOARD1_EVENT, DENIED),
    ("observer", "gobuddy/v1/board/observer/event", DENIED),
    ("observer", "gobuddy/v1/status/observer/observer", DENIED),
    ("observer", "gobuddy/v1/status/board/observer", DENIED),
    ("observer", "gobuddy/v1/error/board/observer", DENIED),
    ("observer", "gobuddy/v1/engine/request/board/observer", DENIED),
    ("observer", "$SYS/broker/uptime", DENIED),
    ("health", "$SYS/broker/uptime", DENIED),
    ("health", BOARD1_EVENT, DENIED),
    ("board-2", "other/topic", DENIED),
]


def puback(client: Any, topic: str, payload: bytes = b"{}") -> int:
    """Publish at QoS 1 and return the PUBACK reason code."""
    codes: dict[int, int] = {}
    client.on_publish = lambda c, u, mid, reason, props: codes.__setitem__(mid, reason.value)
    info = client.publish(topic, payload, qos=1)
    info.wait_for_publish(5)
    return codes[info.mid]


def test_anonymous_and_wrong_passwords_are_refused(mqtt_broker) -> None:
    from gobuddy.bus.client import BusClient

    with pytest.raises(ConnectionRefusedError):
        mqtt_broker.raw_client(None)
    with pytest.raises(ConnectionRefusedError):
        mqtt_broker.raw_client("board-1", password="wrong")
    with pytest.raises(ConnectionRefusedError):
        mqtt_broker.raw_client("board-9", password="anything")
    client = BusClient(mqtt_broker.config("recorder", password="wrong"))
    with pytest.raises(ConnectionRefusedError, match="recorder"):
        client.start()
    assert not client.is_connected()


def test_publish_permissions_and_denied_messages_are_not_delivered(mqtt_broker) -> None:
    delivered: list[str] = []
    lock = threading.Lock()

    def collect(c: Any, u: Any, msg: Any) -> None:
        with lock:
            delivered.append(msg.topic)

    spy = mqtt_broker.raw_client("observer-3", on_message=collect)  # reads gobuddy/v1/#
    spy.subscribe([("gobuddy/v1/#", 1), ("other/#", 1), ("$SYS/#", 0)])
    clients = {user: mqtt_broker.raw_client(user) for user in {row[0] for row in PUBLISH_TABLE}}
    time.sleep(0.2)
    try:
        codes = [(user, topic, puback(clients[user], topic)) for user, topic, _ in PUBLISH_TABLE]
        wrong = [(u, t, hex(c)) for (u, t, c), (_, _, want) in zip(codes, PUBLISH_TABLE)
                 if (c >= 0x80) != (want == DENIED)]
        assert not wrong, f"unexpected PUBACKs: {wrong}"
        assert all(code in (OK, DENIED, 0x10) for _, _, code in codes)
        time.sleep(0.3)
        with lock:
            got = [t for t in delivered if not t.startswith("$SYS")]
        allowed = [topic for user, topic, want in PUBLISH_TABLE if want == OK]
        assert sorted(got) == sorted(allowed)
    finally:
        for client in [spy, *clients.values()]:
            client.disconnect()
            client.loop_stop()


def test_reads_are_restricted_to_ones_own_hints_and_answers(mqtt_broker) -> None:
    inboxes: dict[str, list[str]] = {"board-1": [], "board-2": []}
    readers = {}
    for user in inboxes:
        readers[user] = mqtt_broker.raw_client(user, on_message=lambda c, u, m, user=user: inboxes[user].append(m.topic))
        readers[user].subscribe([("gobuddy/v1/board/board-1/led", 1), ("gobuddy/v1/engine/response/board/board-1", 1),
                                 ("gobuddy/v1/board/board-1/event", 1), ("gobuddy/v1/#", 1)])
    engine = mqtt_broker.raw_client("engine-1")
    time.sleep(0.2)
    try:
        for topic in ("gobuddy/v1/board/board-1/led", "gobuddy/v1/engine/response/board/board-1"):
            assert puback(engine, topic) < 0x80
        time.sleep(0.3)
        assert sorted(set(inboxes["board-1"])) == ["gobuddy/v1/board/board-1/led",
                                                     "gobuddy/v1/engine/response/board/board-1"]
        assert inboxes["board-2"] == []
    finally:
        for client in [engine, *readers.values()]:
            client.disconnect()
            client.loop_stop()


def test_bus_client_reports_a_denied_publish(bus_client) -> None:
    board = bus_client("board-1")
    answer = {**examples("engine_answer")[0], "board_id": "board-1"}
    with pytest.raises(PublishRejected) as info:
        board.publish(topics.board_led("board-1"), answer, wait=True)
    assert info.value.reason_code == 0x87
    dashboard = bus_client("dashboard")
    with pytest.raises(PublishRejected):
        dashboard.publish(topics.board_event("board-1"), examples("game_event")[2], wait=True)
    web_move = {**examples("game_event")[2], "board_id": "web-1"}
    assert dashboard.publish(topics.board_event(topics.web_board_id(1)), web_move, wait=True).reason_code < 0x80


def test_observer_publishes_no_presence(bus_client) -> None:
    observer = bus_client("observer")
    assert observer.is_connected() and observer.stats["published"] == 0
