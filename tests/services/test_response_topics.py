"""A worker answers only on the requester's own response topic, whatever Response Topic a
request names: board-1 cannot make a worker write to board-2 (``python -m
engine_worker`` against a real Mosquitto)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from gobuddy.bus import topics
from tests.services.processes import Service, make_request, running, spawn_worker

WORKER = "engine-rt"
OWN, OTHER = topics.engine_response("board", "board-1"), topics.engine_response("board", "board-2")


@pytest.fixture(scope="module")
def worker(broker, presence, tiny_model) -> Iterator[Service]:
    with running(spawn_worker(broker, tiny_model, WORKER), presence) as service:
        yield service


def send(sender: Any, payload: bytes, response_topic: str) -> None:
    """Publish an engine request as board-1 naming ``response_topic``."""
    properties = Properties(PacketTypes.PUBLISH)
    properties.ResponseTopic = response_topic
    properties.CorrelationData = b"attack"
    properties.MessageExpiryInterval = 10
    sender.publish(topics.engine_request("board", "board-1"), payload, qos=1,
                   properties=properties).wait_for_publish(5)


def listen(broker: Any, username: str, topic: str) -> tuple[Any, list[bytes]]:
    got: list[bytes] = []
    client = broker.raw_client(username, on_message=lambda c, u, m: got.append(m.payload))
    client.subscribe(topic, qos=1)
    return client, got


VALID = make_request("rt-valid", [("B", "E5")], board_id="board-1", visits=4).to_dict()
INVALID = {**VALID, "id": "rt-invalid", "max_visits": "many"}


@pytest.mark.parametrize("payload", [json.dumps(VALID).encode(), json.dumps(INVALID).encode(), b"{not json"],
                         ids=["valid", "schema-invalid", "not-json"])
def test_a_request_naming_another_boards_response_topic_is_not_answered_there(worker, broker, payload) -> None:
    victim, victim_got = listen(broker, "board-2", OTHER)
    attacker, attacker_got = listen(broker, "board-1", OWN)
    before = len(worker.log_text().splitlines())
    try:
        send(attacker, payload, OTHER)
        deadline = time.monotonic() + 10
        while len(worker.log_text().splitlines()) == before and time.monotonic() < deadline:
            time.sleep(0.05)  # the worker has seen it (logged a refusal, a drop or a rejection)
        time.sleep(1.0)
        assert victim_got == []
    finally:
        for client in (victim, attacker):
            client.disconnect()
            client.loop_stop()


def test_the_requesters_own_response_topic_still_gets_its_answer(worker, broker) -> None:
    own, own_got = listen(broker, "board-1", OWN)
    try:
        send(own, json.dumps({**VALID, "id": "rt-own"}).encode(), OWN)
        deadline = time.monotonic() + 20
        while not own_got and time.monotonic() < deadline:
            time.sleep(0.05)
        assert own_got and json.loads(own_got[0])["id"] == "rt-own"
    finally:
        own.disconnect()
        own.loop_stop()
