"""End-to-end delivery: the broker killed (SIGKILL) at random moments during bursts of game
events, 50 times, with the real recorder (``python -m dashboard.recorder``) on SQLite and
the edge agent's own outbox (``OfflineQueue``, ``QueueSender``, ``StoredFollower``) on a
persistent session: every event ends up stored exactly once.

Mosquitto acknowledges a QoS 1 message before it is on disk (``autosave_interval 1``), so
a kill loses what it acknowledged since its last save; only the recorder's ``game_stored``
and the board's re-send of what stays unstored close that window."""

from __future__ import annotations

import random
import time
from dataclasses import replace

from edge.journal.offline_queue import OfflineQueue, QueueSender, StoredFollower
from gobuddy.bus import topics
from gobuddy.bus.client import BusClient
from tests.services.processes import game_events, quiet_game, rows, spawn_recorder, start_service

KILLS = 50
MOVES_PER_GAME = 40


def test_every_event_is_stored_exactly_once_through_fifty_broker_kills(broker, presence, tmp_path) -> None:
    db_url = f"sqlite:///{tmp_path / 'e2e.db'}"
    recorder = start_service(spawn_recorder(broker, db_url), presence)
    games = [game_events("board-1", f"g-kill-{g}", quiet_game(MOVES_PER_GAME)) for g in range(6)]
    events = [event for game in games for event in game]
    bus = BusClient(replace(broker.config("board-1", persistent_session=True), session_expiry_s=3600))
    queue = OfflineQueue(tmp_path / "outbox")
    follower = StoredFollower(bus, "board-1", queue)
    sender = QueueSender(queue, lambda topic, payload: bus.publish(topic, payload), bus.is_connected,
                         resend_after_s=2.0, resend_max_s=4.0, recorder_online=follower.recorder_online)
    bus.start(wait=False)
    sender.start()
    rng = random.Random(2026)
    try:
        burst = -(-len(events) // KILLS)
        for kill in range(KILLS):
            for event in events[kill * burst:(kill + 1) * burst]:
                queue.append(topics.board_event("board-1"), event.to_dict())
            time.sleep(rng.uniform(0.0, 0.25))
            broker.kill()
            time.sleep(rng.uniform(0.0, 0.2))
            broker.start()
        expected = sorted((e.game_id, e.seq) for e in events)
        deadline = time.monotonic() + 120
        stored: list[tuple] = []
        while time.monotonic() < deadline:
            stored = sorted(rows(db_url, "SELECT game_id, seq FROM game_events WHERE game_id LIKE 'g-kill-%'"))
            if stored == expected:
                break
            time.sleep(0.5)
        missing = sorted(set(expected) - set(stored))
        assert stored == expected, f"{len(missing)} events missing, first {missing[:5]}; re-sends {sender.resent}"
        moves = rows(db_url, "SELECT game_id, COUNT(*) FROM moves WHERE game_id LIKE 'g-kill-%' GROUP BY game_id")
        assert sorted(moves) == [(f"g-kill-{g}", MOVES_PER_GAME) for g in range(6)]
        assert recorder.alive
    finally:
        sender.stop()
        bus.stop()
        recorder.close()


def test_a_game_whose_start_the_recorder_missed_is_stored_whole(broker, presence, tmp_path) -> None:
    """The recorder was not there for game_started (a new database, a lost session): it
    refuses the later events, tells the board it has nothing (-1), and the board sends
    the game again from its start."""
    bus = BusClient(replace(broker.config("board-2", persistent_session=True), session_expiry_s=3600))
    queue = OfflineQueue(tmp_path / "outbox")
    follower = StoredFollower(bus, "board-2", queue)
    sender = QueueSender(queue, lambda topic, payload: bus.publish(topic, payload), bus.is_connected,
                         resend_after_s=1.5, recorder_online=follower.recorder_online)
    bus.start()
    sender.start()
    events = game_events("board-2", "g-late", quiet_game(6))
    db_url = f"sqlite:///{tmp_path / 'late.db'}"
    try:
        queue.append(topics.board_event("board-2"), events[0].to_dict())  # nobody records it
        deadline = time.monotonic() + 5
        while queue.delivered < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        recorder = start_service(spawn_recorder(broker, db_url, "recorder-late"), presence)
        for event in events[1:]:
            queue.append(topics.board_event("board-2"), event.to_dict())
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and len(rows(db_url, "SELECT seq FROM game_events")) < len(events):
            time.sleep(0.3)
        assert sorted(rows(db_url, "SELECT seq FROM game_events WHERE game_id = 'g-late'")) == \
            [(seq,) for seq in range(len(events))]
        assert sender.resent >= 1 and recorder.alive
        recorder.close()
    finally:
        sender.stop()
        bus.stop()


def test_a_play_game_whose_start_the_recorder_missed_is_stored_whole(broker, presence, tmp_path) -> None:
    """The same for the dashboard's Play page: its LiveFeed keeps what it published
    until the recorder says it is stored."""
    from dashboard.live_feed import LiveFeed
    from gobuddy.bus.redelivery import Redelivery

    feed = LiveFeed(broker.config("dashboard"), redelivery=Redelivery(1.5, 5.0))  # quicker than a deployment
    events = game_events("web-3", "g-play-late", quiet_game(4))
    db_url = f"sqlite:///{tmp_path / 'play.db'}"
    try:
        deadline = time.monotonic() + 10
        while not feed.connected() and time.monotonic() < deadline:
            time.sleep(0.05)
        feed.publish(topics.board_event("web-3"), events[0])  # nobody records it
        recorder = start_service(spawn_recorder(broker, db_url, "recorder-play"), presence)
        for event in events[1:]:
            feed.publish(topics.board_event("web-3"), event)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and feed.outbox.unstored():
            time.sleep(0.3)
        assert sorted(rows(db_url, "SELECT seq FROM game_events WHERE game_id = 'g-play-late'")) == \
            [(seq,) for seq in range(len(events))]
        assert feed.outbox.resent >= 1 and feed.outbox.unstored() == 0
        recorder.close()
    finally:
        feed.close()
