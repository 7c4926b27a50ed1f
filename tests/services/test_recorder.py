"""The recorder (``python -m dashboard.recorder``) against a real Mosquitto and SQLite:
every game event stored exactly once through recorder restarts (SIGTERM and SIGKILL),
broker restarts, and re-sent duplicates."""

from __future__ import annotations

import signal
import sqlite3
import time
from pathlib import Path

import pytest

from gobuddy.bus import topics
from gobuddy.bus.client import BusClient
from tests.services.processes import (
    game_events,
    quiet_game,
    rows,
    spawn_recorder,
    start_service,
    wait_rows,
)

EVENTS = "SELECT seq, type, move_number FROM game_events WHERE game_id = '{game}' ORDER BY seq"
MOVES = "SELECT move_number, color, vertex FROM moves WHERE game_id = '{game}' ORDER BY move_number"


def sent_rows(events: list) -> tuple[list[tuple], list[tuple]]:
    """What the database must hold after ``events``: (event rows, move rows)."""
    logged = [(e.seq, e.TYPE, e.move_number) for e in events]
    moves = [(e.move_number, e.color, e.vertex) for e in events if e.TYPE == "move"]
    return logged, moves


def assert_stored_exactly(db_url: str, game: str, events: list) -> None:
    logged, moves = sent_rows(events)
    assert wait_rows(db_url, EVENTS.format(game=game), len(logged)) == logged
    time.sleep(0.3)  # a duplicate would come now, and must change nothing
    assert rows(db_url, EVENTS.format(game=game)) == logged
    assert rows(db_url, MOVES.format(game=game)) == moves


def publish(board: BusClient, events: list, *, wait: bool = True) -> list:
    deliveries = [board.publish(topics.board_event(board.client_id), event) for event in events]
    if wait:
        for delivery in deliveries:
            delivery.wait(10)
    return deliveries


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'history' / 'gobuddy.db'}"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_events_published_while_the_recorder_is_down_are_stored_when_it_returns(broker, presence, client, db_url,
                                                                              sig) -> None:
    game, name = f"g-restart-{sig.name}", f"recorder-{sig.name.lower()}"
    events = game_events("board-1", game, quiet_game(30))
    recorder = start_service(spawn_recorder(broker, db_url, name), presence)
    board = client("board-1", persistent_session=True, session_expiry_s=300)
    try:
        publish(board, events[:6])
        assert len(wait_rows(db_url, EVENTS.format(game=game), 6)) == 6
        burst = publish(board, events[6:16], wait=False)  # the recorder dies while these arrive
        time.sleep(0.01)
        assert recorder.signal(sig) == (0 if sig == signal.SIGTERM else -signal.SIGKILL)
        for delivery in burst:
            delivery.wait(10)
        publish(board, events[16:])  # queued by the broker in the recorder's session
        assert len(rows(db_url, EVENTS.format(game=game))) < len(events)
        recorder = start_service(spawn_recorder(broker, db_url, name), presence)
        assert_stored_exactly(db_url, game, events)
    finally:
        recorder.close()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_broker_restart_mid_game_loses_and_doubles_nothing(broker, presence, client, db_url, sig) -> None:
    game, name = f"g-broker-{sig.name}", f"recorder-b-{sig.name.lower()}"
    events = game_events("board-2", game, quiet_game(40))
    recorder = start_service(spawn_recorder(broker, db_url, name), presence)
    board = client("board-2", persistent_session=True, session_expiry_s=300)
    try:
        publish(board, events[:15])
        assert len(wait_rows(db_url, EVENTS.format(game=game), 15)) == 15
        if sig == signal.SIGKILL:
            broker.wait_for_autosave()  # what the broker acknowledged is on disk
        broker.stop(sig)
        during = publish(board, events[15:25], wait=False)  # kept by the board's client until it reconnects
        broker.start()
        for delivery in during:
            delivery.wait(15)
        publish(board, events[25:])
        assert_stored_exactly(db_url, game, events)
        assert recorder.alive
    finally:
        recorder.close()


def test_a_resent_event_changes_nothing(broker, presence, client, db_url) -> None:
    game = "g-duplicates"
    events = game_events("board-1", game, quiet_game(8))
    recorder = start_service(spawn_recorder(broker, db_url, "recorder-dup"), presence)
    board = client("board-1", persistent_session=True, session_expiry_s=300)
    try:
        publish(board, events)
        publish(board, events[3:7] + events[:2])  # the edge agent's offline queue may re-send
        assert_stored_exactly(db_url, game, events)
        status = presence.wait("recorder-dup", "online", recorder.started_ms, applied=len(events), duplicate=6)
        assert status.details["rejected"] == 0
    finally:
        recorder.close()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_an_event_the_database_did_not_take_comes_again(broker, presence, client, db_url, sig) -> None:
    """Acknowledged only after the commit: a recorder stopped while the database refuses
    a write (locked here) leaves the event in its session, and stores it when back."""
    game, name = f"g-locked-{sig.name}", f"recorder-lock-{sig.name.lower()}"
    events = game_events("board-1", game, quiet_game(4))
    recorder = start_service(spawn_recorder(broker, db_url, name, "--sqlite-busy-timeout", "300"), presence)
    board = client("board-1", persistent_session=True, session_expiry_s=300)
    try:
        publish(board, events[:2])
        assert len(wait_rows(db_url, EVENTS.format(game=game), 2)) == 2
        lock = sqlite3.connect(db_url.removeprefix("sqlite:///"), isolation_level=None)
        lock.execute("BEGIN EXCLUSIVE")
        try:
            publish(board, events[2:])
            recorder.wait_for_log(r"database error storing a game_event .*retrying", timeout_s=20)
            recorder.signal(sig)
        finally:
            lock.execute("ROLLBACK")
            lock.close()
        assert len(rows(db_url, EVENTS.format(game=game))) == 2
        recorder = start_service(spawn_recorder(broker, db_url, name), presence)
        assert_stored_exactly(db_url, game, events)
    finally:
        recorder.close()
