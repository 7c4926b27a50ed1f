"""An engine worker and the recorder together: a board's hint is stored as the analysis
of its game's position, and a flood of 1,000 malformed messages changes nothing (both
services keep running, answer and store good messages afterwards, and store nothing bad).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from gobuddy.bus import topics
from gobuddy.bus.inbox import Rejected, decode_incoming
from gobuddy.bus.message import now_ms
from tests.services.conftest import stop_all
from tests.services.processes import (
    Service,
    game_events,
    make_request,
    quiet_game,
    rows,
    spawn_recorder,
    spawn_worker,
    start_service,
    wait_rows,
)

WORKER, RECORDER = "engine-bb", "recorder-bb"
MAX_BYTES = 256 * 1024
TABLES = ("games", "game_events", "moves", "analyses", "boards")


@pytest.fixture(scope="module")
def db_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return f"sqlite:///{tmp_path_factory.mktemp('backbone') / 'gobuddy.db'}"


@pytest.fixture(scope="module")
def services(broker, presence, tiny_model, db_url) -> Iterator[dict[str, Service]]:
    running = {WORKER: spawn_worker(broker, tiny_model, WORKER), RECORDER: spawn_recorder(broker, db_url, RECORDER)}
    try:
        for service in running.values():
            start_service(service, presence)
        yield running
    finally:
        stop_all(list(running.values()))


def stored(db_url: str) -> dict[str, int]:
    return {table: rows(db_url, f"SELECT COUNT(*) FROM {table}")[0][0] for table in TABLES}


# ---- the flood ---------------------------------------------------------------------------

def mutations(good: dict[str, Any]) -> list[Any]:
    """Valid JSON that is not a valid message: wrong types, missing fields, huge strings."""
    out: list[Any] = [None, 1, "text", [], [good], True, {}]
    for key, value in good.items():
        out.append({k: v for k, v in good.items() if k != key})  # one field missing
        for wrong in (None, "x" * 3, -1, 1.5, [], {}, "A" * 100_000):
            if wrong != value and not (wrong is None and key in ("board_id", "max_time_ms", "players")):
                out.append({**good, key: wrong})
    out.append({**good, "unexpected": 1})
    return out


def broken_json() -> list[bytes]:
    return [b"", b"{", b"{oops", b"[1, 2", b"\xff\xfe\x00", b"nul", b'{"id": "x",}', b"NaN",
            b'{"id": NaN}', '{"id": "\u00e9"'.encode(), b"\x00" * 64, b'"' + b"z" * 1000]


def flood(topic: str, good: dict[str, Any], count: int) -> list[bytes]:
    """``count`` payloads that the bus must reject on ``topic``, cycling through the
    variants above (those that happen to be valid, such as a missing optional field, are
    left out), the last 4 of them too large."""
    variants = [json.dumps(item).encode() for item in mutations(good)] + broken_json()
    variants = [payload for payload in variants if rejected(topic, payload)]
    out = [variants[i % len(variants)] for i in range(count - 4)]
    return out + [json.dumps({**good, "padding": "p" * (MAX_BYTES + 10)}).encode()] * 4


def rejected(topic: str, payload: bytes) -> bool:
    try:
        decode_incoming(topic, payload, MAX_BYTES)
    except Rejected:
        return True
    return False


def request_properties(client_id: str) -> Properties:
    properties = Properties(PacketTypes.PUBLISH)
    properties.ResponseTopic = topics.engine_response("dashboard", client_id)
    properties.CorrelationData = uuid.uuid4().bytes
    return properties


def test_a_boards_hint_is_stored_as_the_analysis_of_its_position(services, client, db_url) -> None:
    game, moves = "g-hinted", quiet_game(5)
    board = client("board-1")
    for event in game_events("board-1", game, moves):
        board.publish(topics.board_event("board-1"), event, wait=True)
    assert len(wait_rows(db_url, f"SELECT seq FROM game_events WHERE game_id = '{game}'", 6)) == 6
    answer = board.request(make_request("board-1:hint:5", moves, board_id="board-1", purpose="hint", visits=16))
    found = wait_rows(db_url, "SELECT game_id, move_count, position_hash, to_play, model FROM analyses", 1)
    assert found == [(game, 5, answer.position_key.hash, "W", "tiny-services")]
    board.request(make_request("board-1:hint:6", moves, board_id="board-1", purpose="hint", visits=16))
    time.sleep(0.3)  # the same answer again (from the cache, on response and LED topics) adds nothing
    assert len(rows(db_url, "SELECT id FROM analyses")) == 1


def test_a_thousand_malformed_messages_change_nothing(broker, services, presence, client, db_url) -> None:
    before = stored(db_url)
    good_request = make_request("flood-ok", [("B", "E5")]).to_dict()
    good_event = game_events("board-2", "g-flood", quiet_game(1))[1].to_dict()
    good_status = {"client_id": "board-2", "role": "board", "state": "online", "reason": "connected",
                   "ts": now_ms(), "version": "1", "details": {}}
    good_answer = {**services_answer_template(), "board_id": "board-2"}
    request_topic = topics.engine_request("dashboard", "dashboard")
    plan: list[tuple[str, str, list[bytes]]] = [  # (account, topic, payloads) that arrive and must be rejected
        ("dashboard", request_topic, flood(request_topic, good_request, 400)),
        ("board-2", topics.board_event("board-2"), flood(topics.board_event("board-2"), good_event, 300)),
        ("board-2", topics.status("board", "board-2"), flood(topics.status("board", "board-2"), good_status, 50)),
        ("engine-2", f"{topics.ROOT}/board/Board-X/led", [json.dumps(good_answer).encode()] * 25),
        ("engine-2", f"{topics.ROOT}/engine/response/board/web-1", [json.dumps(good_answer).encode()] * 25),
    ]
    denied = [("board-2", topics.board_event("board-1")), ("board-2", f"{topics.ROOT}/board/board-2/event/x"),
              ("dashboard", topics.engine_request("board", "board-1")),
              ("dashboard", f"{topics.ROOT}/engine/request/dashboard/_bad-id")]  # the ACL stops these: never delivered
    assert all(rejected(topic, payload) for _, topic, payloads in plan for payload in set(payloads))
    total = sum(len(p) for _, _, p in plan) + 50 * len(denied)
    assert total == 1000

    raws = {name: broker.raw_client(name) for name in ("dashboard", "board-2", "engine-2")}
    try:
        sent = []
        for account, topic, payloads in plan:
            for payload in payloads:
                props = request_properties("dashboard") if topic.startswith(f"{topics.ROOT}/engine/request") else None
                retain = topic.startswith(f"{topics.ROOT}/status/")
                sent.append(raws[account].publish(topic, payload, qos=1, retain=retain, properties=props))
        for account, topic in denied:
            sent += [raws[account].publish(topic, json.dumps(good_event).encode(), qos=1) for _ in range(50)]
        for info in sent:
            info.wait_for_publish(30)
        raws["board-2"].publish(topics.status("board", "board-2"), b"", qos=1, retain=True).wait_for_publish(5)

        to_worker = len(plan[0][2])
        to_recorder = sum(len(p) for _, _, p in plan[1:])
        status = presence.wait(WORKER, "online", now_ms(), timeout_s=60, invalid=to_worker)
        assert status.details["invalid"] == to_worker
        status = presence.wait(RECORDER, "online", now_ms(), timeout_s=60, invalid=to_recorder)
        assert status.details["invalid"] == to_recorder
    finally:
        for raw in raws.values():
            raw.disconnect()
            raw.loop_stop()

    assert all(service.alive for service in services.values())
    assert stored(db_url) == before, "a malformed message reached the database"
    answer = client("dashboard").request(make_request("after-flood", [("B", "E5"), ("W", "D4")]))
    assert answer.worker == WORKER
    board = client("board-2")
    for event in game_events("board-2", "g-after-flood", quiet_game(3)):
        board.publish(topics.board_event("board-2"), event, wait=True)
    assert len(wait_rows(db_url, "SELECT seq FROM game_events WHERE game_id = 'g-after-flood'", 4)) == 4


def services_answer_template() -> dict[str, Any]:
    """A valid engine answer (the first example of the schema)."""
    from gobuddy.bus.validation import examples

    return dict(examples("engine_answer")[0])
