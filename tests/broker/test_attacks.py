"""An attacker holding one ordinary account, tried with EVERY account the broker has
(enumerated from the accounts make_users.py made, not hand-picked), on a real Mosquitto.

| attack | what must hold |
|---|---|
| join the engine workers' shared subscription | refused (SUBACK 0x87) for every non-engine account; every request reaches a worker |
| connect with another account's client id | refused at CONNACK; the victim stays connected |
| end the recorder's persistent session (clean start under its id) | refused; every queued event still arrives |
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from gobuddy.bus import topics
from gobuddy.bus.client import BusClient
from gobuddy.bus.game_events import Passed
from tests.mqtt_broker import Inbox, MosquittoBroker, find_mosquitto, role_of

ENGINE_SHARE = topics.engine_requests_filter()
NOT_AUTHORISED = 0x87


@pytest.fixture(scope="module")
def broker() -> Any:
    if find_mosquitto() is None:
        pytest.skip("mosquitto is not installed")
    with MosquittoBroker(boards=("board-1", "board-2", "board-3"), engines=2,
                         observers=("observer", "observer-ann")) as running:
        yield running


def suback(client: mqtt.Client, topic_filter: str) -> int:
    """Subscribe at QoS 1 and return the SUBACK reason code."""
    codes: dict[int, int] = {}
    done = threading.Event()

    def on_subscribe(c: Any, u: Any, mid: int, reasons: list, props: Any) -> None:
        codes[mid] = reasons[0].value
        done.set()

    client.on_subscribe = on_subscribe
    _, mid = client.subscribe(topic_filter, qos=1)
    deadline = time.monotonic() + 5
    while mid not in codes and time.monotonic() < deadline:
        done.wait(0.05)
    return codes[mid]


def close(*clients: mqtt.Client) -> None:
    for client in clients:
        client.disconnect()
        client.loop_stop()


def test_the_enumeration_covers_every_role(broker: MosquittoBroker) -> None:
    assert {role_of(name) for name in broker.accounts} == {"board", "engine", "recorder", "dashboard", "reviewer",
                                                           "observer", "health"}


def test_only_engine_accounts_can_join_the_engine_group(broker: MosquittoBroker) -> None:
    got: dict[str, list[str]] = {name: [] for name in broker.accounts}
    clients = {name: broker.raw_client(name, on_message=lambda c, u, m, name=name: got[name].append(m.topic))
               for name in broker.accounts if name != "board-1"}
    try:
        codes = {name: suback(client, ENGINE_SHARE) for name, client in clients.items()}
        rogues = sorted(name for name, code in codes.items() if code < 0x80 and role_of(name) != "engine")
        assert rogues == [], f"joined the engine group: {rogues}"
        assert [codes[name] for name in clients if role_of(name) == "engine"] == [1, 1]  # granted QoS 1
        sender = broker.raw_client("board-1")
        request = topics.engine_request("board", "board-1")
        for n in range(12):
            sender.publish(request, json.dumps({"n": n}).encode(), qos=1).wait_for_publish(5)
        deadline = time.monotonic() + 5
        while sum(len(got[name]) for name in clients if role_of(name) == "engine") < 12 and \
                time.monotonic() < deadline:
            time.sleep(0.05)
        close(sender)
        assert sum(len(got[name]) for name in clients if role_of(name) == "engine") == 12
        assert {name: topics_ for name, topics_ in got.items() if topics_ and role_of(name) != "engine"} == {}
    finally:
        close(*clients.values())


def test_no_account_can_use_another_accounts_client_id(broker: MosquittoBroker) -> None:
    victim = BusClient(broker.config("recorder"))
    victim.start()
    try:
        taken = []
        for attacker in broker.accounts:
            for target in broker.accounts:
                if target == attacker:
                    continue
                try:
                    close(broker.raw_client(attacker, client_id=target))
                except ConnectionRefusedError:
                    continue
                taken.append((attacker, target))
        assert taken == []
        time.sleep(0.3)
        assert victim.is_connected()
        assert "already connected, closing old connection" not in broker.log_text()
    finally:
        victim.stop()


def test_no_impostor_ends_the_recorders_persistent_session(broker: MosquittoBroker) -> None:
    inbox = Inbox()
    recorder = BusClient(broker.config("recorder", persistent_session=True))
    recorder.subscribe(topics.boards_filter("event"), inbox)
    recorder.start()
    recorder.stop()  # away: the broker queues its events
    with BusClient(broker.config("board-2")) as board:
        for seq in range(1, 21):
            board.publish(topics.board_event("board-2"),
                          Passed(board_id="board-2", game_id="g-away", seq=seq, move_number=seq,
                                 color="B" if seq % 2 else "W"), wait=True)
    for attacker in broker.accounts:  # each tries a clean start under the recorder's id
        if attacker == "recorder":
            continue
        impostor = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="recorder", protocol=mqtt.MQTTv5)
        impostor.username_pw_set(attacker, broker.credentials[attacker])
        reasons: list[Any] = []
        impostor.on_connect = lambda c, u, f, reason, p: reasons.append(reason)
        impostor.connect(broker.host, broker.port, clean_start=True)
        impostor.loop_start()
        deadline = time.monotonic() + 5
        while not reasons and time.monotonic() < deadline:
            time.sleep(0.02)
        close(impostor)
        assert reasons and reasons[0].is_failure, attacker
    back = BusClient(broker.config("recorder", persistent_session=True))
    back.subscribe(topics.boards_filter("event"), inbox)
    back.start()
    try:
        got = inbox.wait_for(20, where=lambda r: r.message.game_id == "g-away")
        assert sorted(r.message.seq for r in got) == list(range(1, 21))
    finally:
        back.stop()
