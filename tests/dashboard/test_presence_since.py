"""Presence on the System page: "since" is when a client entered its state, not its last
status update (a worker refreshes its status every few seconds)."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from dashboard.live_feed import LiveFeed
from dashboard.views.system import presence_rows
from gobuddy.bus import topics
from gobuddy.bus.inbox import Received, decode_incoming


def status(state: str, ts: int, queue: int = 0) -> Received:
    topic = topics.status("engine", "engine-1")
    payload = {"client_id": "engine-1", "role": "engine", "state": state, "reason": "connected" if state == "online"
               else "connection_lost", "ts": ts, "version": "1", "details": {"queue_depth": queue}}
    info, kind, message = decode_incoming(topic, json.dumps(payload).encode())
    return Received(topic=topic, info=info, kind=kind, message=message, payload=payload, qos=1)


def shown(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


T = 1_790_000_000_000  # 2026-09-21


def test_since_is_when_the_state_began() -> None:
    clock = iter([T, T + 5_000, T + 10_000, T + 20_000])
    feed = LiveFeed(None, clock=lambda: next(clock))
    feed._on_status(status("online", T))
    feed._on_status(status("online", T + 5_000, queue=3))  # a refresh: still online since the first
    feed._on_status(status("online", T + 10_000, queue=1))
    (row,) = presence_rows(feed.presence("engine"))
    assert (row["state"], row["since"], row["details"]) == ("online", shown(T), "1 queued")
    feed._on_status(status("offline", T - 3_600_000))  # a will, dated at its connect
    (row,) = presence_rows(feed.presence("engine"))
    assert (row["state"], row["since"]) == ("offline", shown(T + 20_000))


@pytest.mark.parametrize("role, details, words", [
    ("engine", {"queue_depth": 2, "evals_per_s": 1850.5, "busy": 0,
                "model": "/srv/gobuddy/models/gobuddy-9x9.int8.onnx models/gobuddy-13x13.int8.onnx"},
     "2 queued · 1,850.5 evaluations/s · 0 busy replies · models gobuddy-9x9.int8.onnx, gobuddy-13x13.int8.onnx"),
    ("engine", {"queue_depth": 0}, "0 queued"),  # a status that says less: only what it says
    ("engine", {}, ""),
    ("board", {"engine": "ok", "unstored_events": 1200}, "engine ok · 1,200 events not stored yet"),
    ("recorder", {"queue_depth": 5}, ""),  # another role's details are not an engine's
])
def test_a_clients_details_are_told_in_words(role, details, words):
    from dashboard.views.system import presence_details

    assert presence_details(role, details) == words
