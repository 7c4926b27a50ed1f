"""Hostile payloads at the consumers themselves: the engine worker (a process) refuses a
100,000-deep request at once and goes on answering; the recorder (a process, SQLite)
stores nothing from a fuzzed flood and the next move after it; the recorder's handler
on PostgreSQL rejects a value the database refuses and stores the next event; the live
feed shows a board's real status after one from the future."""

from __future__ import annotations

import json
import random
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from sqlalchemy.exc import OperationalError

import dashboard.recorder as recorder_module
from dashboard.live_feed import LiveFeed
from dashboard.recorder import Recorder, RecorderConfig
from dashboard.store import Store
from dashboard.store.engine import make_engine
from dashboard.store.migrate import upgrade_to_head
from gobuddy.bus import topics
from gobuddy.bus.config import BusConfig
from gobuddy.bus.inbox import Received, Rejected, decode_incoming
from gobuddy.bus.message import now_ms
from gobuddy.bus.messages import decode
from gobuddy.bus.validation import examples
from tests import postgres_server
from tests.bus.mutations import DAY_MS, body, deep, mutate
from tests.mqtt_broker import Inbox
from tests.services.processes import (
    game_events,
    make_request,
    quiet_game,
    rows,
    spawn_recorder,
    spawn_worker,
    start_service,
    wait_rows,
)

BROKER_PACKET_LIMIT = 1024 * 1024  # broker/mosquitto.conf.template max_packet_size


def raw_requester(broker: Any, account: str) -> tuple[Any, Inbox]:
    """A bare paho client of ``account`` (a dashboard) reading its own response topic."""
    broker.ensure_account(account)
    replies = Inbox()
    raw = broker.raw_client(account, on_message=lambda client, userdata, msg: replies(msg))
    raw.subscribe(topics.engine_response("dashboard", account), qos=1)
    time.sleep(0.2)
    return raw, replies


def test_the_worker_refuses_a_deep_request_at_once_and_answers_the_next(broker, presence, client, tiny_model) -> None:
    worker = start_service(spawn_worker(broker, tiny_model, "engine-hostile"), presence)
    raw, replies = raw_requester(broker, "dashboard-deep")
    try:
        properties = Properties(PacketTypes.PUBLISH)
        properties.ResponseTopic = topics.engine_response("dashboard", "dashboard-deep")
        properties.CorrelationData = correlation = uuid.uuid4().bytes
        raw.publish(topics.engine_request("dashboard", "dashboard-deep"), deep(100_000), qos=1,
                    properties=properties).wait_for_publish(5)
        (reply,) = replies.wait_for(1, timeout_s=10)
        error = json.loads(reply.payload)
        assert (error["id"], error["worker"], reply.properties.CorrelationData) == ("", "engine-hostile", correlation)
        assert "deep" in error["error"]
        answer = client("dashboard").request(make_request("after-deep", [("B", "E5")], visits=8), timeout_s=10)
        assert answer.id == "after-deep" and worker.alive
    finally:
        raw.disconnect()
        raw.loop_stop()
        worker.close()


def flood(count: int, seed: int) -> list[tuple[str, bytes]]:
    """``count`` mutated game events and statuses of board-2 that the bus must reject
    (checked here with the same decoder), none larger than the broker takes."""
    rng = random.Random(seed)
    seeds = [{**example, "board_id": "board-2"} for example in examples("game_event")]
    seeds += [{**example, "client_id": "board-2", "role": "board"} for example in examples("status")]
    out: list[tuple[str, bytes]] = []
    while len(out) < count:
        example = rng.choice(seeds)
        topic = topics.board_event("board-2") if "type" in example else topics.status("board", "board-2")
        _, payload = mutate(rng, example, max_bytes=300_000)
        if len(payload) > BROKER_PACKET_LIMIT - 1000:
            continue
        try:
            decode_incoming(topic, payload)
        except Rejected:
            out.append((topic, payload))
    return out


def test_a_fuzzed_flood_at_the_recorder_stores_nothing_and_the_next_move_is_stored(broker, presence,
                                                                                  tmp_path: Path) -> None:
    fuzz_the_recorder(broker, presence, f"sqlite:///{tmp_path / 'fuzz.db'}", "recorder-fuzz")


def test_the_same_flood_at_a_recorder_on_postgresql(broker, presence, postgres_url) -> None:
    fuzz_the_recorder(broker, presence, postgres_url, "recorder-fuzz-pg")


def fuzz_the_recorder(broker, presence, db_url: str, account: str) -> None:
    """300 fuzzed events and statuses through the broker into ``python -m dashboard.recorder``
    on ``db_url``: no row stored from them, the process alive, the next move stored."""
    recorder = start_service(spawn_recorder(broker, db_url, account), presence)
    board = broker.raw_client("board-2")
    events = [json.dumps(e.to_dict()).encode() for e in game_events("board-2", "g-fuzz", quiet_game(2))]
    event_topic = topics.board_event("board-2")
    try:
        for payload in events[:2]:
            board.publish(event_topic, payload, qos=1).wait_for_publish(5)
        assert len(wait_rows(db_url, "SELECT seq FROM game_events", 2)) == 2
        bad = flood(300, seed=17)
        for topic, payload in bad:
            board.publish(topic, payload, qos=1).wait_for_publish(10)
        board.publish(event_topic, events[2], qos=1).wait_for_publish(5)
        assert wait_rows(db_url, "SELECT game_id, seq FROM game_events ORDER BY seq", 3) == [
            ("g-fuzz", 0), ("g-fuzz", 1), ("g-fuzz", 2)]
        time.sleep(0.3)
        assert rows(db_url, "SELECT game_id, seq FROM game_events ORDER BY seq") == [
            ("g-fuzz", 0), ("g-fuzz", 1), ("g-fuzz", 2)]
        assert rows(db_url, "SELECT id FROM games") == [("g-fuzz",)]
        assert rows(db_url, "SELECT move_number FROM moves") == [(1,), (2,)]
        presence.wait(account, "online", recorder.started_ms, invalid=len(bad))
        assert recorder.alive
    finally:
        board.disconnect()
        board.loop_stop()
        recorder.close()


def test_a_status_from_the_future_does_not_hide_the_real_one(broker, client) -> None:
    feed = LiveFeed(broker.config("dashboard", client_id="dashboard-feed"))
    status_topic = topics.status("board", "board-2")

    def board2(feed: LiveFeed) -> list[Any]:
        return [p for p in feed.presence("board") if p.client_id == "board-2"]

    try:
        raw = broker.raw_client("board-2")
        ahead = {"client_id": "board-2", "role": "board", "state": "online", "reason": "connected",
                 "version": "0.1.0", "details": {"firmware": "ahead"}}
        raw.publish(status_topic, body({**ahead, "ts": now_ms() + DAY_MS}), qos=1, retain=True).wait_for_publish(5)
        assert feed.wait_for(lambda f: f.client is not None and f.client.stats["rejected"] >= 1, 10)
        assert board2(feed) == []  # refused: a day ahead of this host's clock
        raw.publish(status_topic, body({**ahead, "ts": now_ms() + 5 * 60_000}), qos=1, retain=True).wait_for_publish(5)
        assert feed.wait_for(lambda f: [p.details for p in board2(f)] == [{"firmware": "ahead"}], 10)  # tolerated
        raw.disconnect()
        raw.loop_stop()
        real = client("board-2")  # its birth: online, now
        assert feed.wait_for(lambda f: [(p.state, p.details) for p in board2(f)] == [("online", {})], 10)
        real.stop()
        assert feed.wait_for(lambda f: [(p.state, p.reason) for p in board2(f)] == [("offline", "shutdown")], 10)
    finally:
        feed.close()


# ---- the recorder's handler, in process --------------------------------------------------

class ReportingStub:
    """Stands in for the recorder's ``BusClient``: records refusals."""

    def __init__(self) -> None:
        self.refusals: list[str] = []

    def report_refusal(self, received: Received, reason: str, *, field: str | None = None) -> None:
        self.refusals.append(reason)

    def is_connected(self) -> bool:
        return True


def received(payload: dict[str, Any]) -> Received:
    """A game event as the bus client hands it over (``payload`` may bypass the schema)."""
    topic = topics.board_event(payload["board_id"])
    message = decode("game_event", {**payload, "handicap": 0} if payload["type"] == "game_started" else payload)
    return Received(topic=topic, info=topics.parse(topic), kind="game_event", message=message, payload=payload, qos=1)


def in_process_recorder(db_url: str, **options: Any) -> tuple[Recorder, ReportingStub]:
    config = RecorderConfig(bus=BusConfig(client_id="recorder", role="recorder", persistent_session=True),
                            db_url=db_url, **options)
    recorder = Recorder(config)
    upgrade_to_head(db_url)
    recorder.store = Store(make_engine(db_url, busy_timeout_ms=100))
    stub = ReportingStub()
    recorder.client = stub  # type: ignore[assignment]
    return recorder, stub


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    reason = postgres_server.available()
    if reason:
        pytest.skip(reason)
    server = postgres_server.PostgresServer().start()
    try:
        yield server.create_database("hostile")
    finally:
        server.stop()


def test_the_recorder_on_postgresql_rejects_an_out_of_range_value_and_stores_the_next(postgres_url) -> None:
    recorder, stub = in_process_recorder(postgres_url)
    events = [e.to_dict() for e in game_events("board-1", "g-pg", quiet_game(2))]
    started = time.monotonic()
    recorder._on_message(received({**events[0], "handicap": 2**40}))  # INTEGER: out of range on PostgreSQL
    assert time.monotonic() - started < 5 and recorder.counts["rejected"] == 1 and recorder.counts["db_retries"] == 0
    assert len(stub.refusals) == 1 and "out of range" in stub.refusals[0]
    for event in events:
        recorder._on_message(received(event))
    assert recorder.counts["applied"] == 3
    assert [m.vertex for m in recorder.store.get_game("g-pg").moves] == [v for _, v in quiet_game(2)]
    recorder.store.close()


def test_a_failure_only_one_message_meets_is_a_rejection_after_the_retry_limit(tmp_path: Path, monkeypatch) -> None:
    recorder, stub = in_process_recorder(f"sqlite:///{tmp_path / 'h.db'}", retry_min_s=0.05, retry_max_s=0.1,
                                         retry_limit_s=0.5)
    events = [e.to_dict() for e in game_events("board-1", "g-op", quiet_game(1))]
    real_ingest = recorder_module.ingest

    def ingest(sessions: Any, kind: str, payload: dict[str, Any]) -> Any:
        if payload.get("seq") == 1:  # a statement only this message makes fails, the database works
            raise OperationalError("INSERT ...", {}, Exception("a statement too complex"))
        return real_ingest(sessions, kind, payload)

    monkeypatch.setattr(recorder_module, "ingest", ingest)
    started = time.monotonic()
    recorder._on_message(received(events[1]))
    assert 0.5 <= time.monotonic() - started < 5
    assert recorder.counts["rejected"] == 1 and "took other writes" in stub.refusals[0]
    recorder._on_message(received(events[0]))
    assert recorder.counts["applied"] == 1
    recorder.store.close()


def test_a_locked_database_is_waited_for_not_rejected(tmp_path: Path) -> None:
    path = tmp_path / "locked.db"
    recorder, stub = in_process_recorder(f"sqlite:///{path}", retry_min_s=0.05, retry_max_s=0.1, retry_limit_s=0.3)
    (event,) = [e.to_dict() for e in game_events("board-1", "g-lock", [])]
    lock = sqlite3.connect(path, isolation_level=None)
    lock.execute("BEGIN EXCLUSIVE")
    worker = threading.Thread(target=recorder._on_message, args=(received(event),))
    worker.start()
    time.sleep(1.5)  # well past the retry limit: the probe finds the database locked too
    assert worker.is_alive() and recorder.counts["rejected"] == 0 and recorder.counts["db_retries"] >= 3
    lock.execute("ROLLBACK")
    lock.close()
    worker.join(10)
    assert recorder.counts["applied"] == 1 and stub.refusals == []
    recorder.store.close()
