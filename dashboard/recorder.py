"""The recorder: ``python -m dashboard.recorder`` persists what crosses the broker.

    python -m dashboard.recorder --broker-host 127.0.0.1 --broker-port 1883 --username recorder \\
        --password-file var/broker/secrets/recorder.password --db sqlite:///data/gobuddy.db

Broker options are the shared ones of ``gobuddy.bus.cli``.

At start it brings the database to the newest schema (``upgrade_to_head``), then keeps a
persistent MQTT session (clean_start=False on every connect, first included, with a
Session Expiry Interval: the broker queues what arrives while the recorder is away, across
broker restarts too) subscribed to:

| filter                             | stored through ``dashboard.ingest`` as                  |
|------------------------------------|---------------------------------------------------------|
| ``gobuddy/v1/board/+/event``       | game_event (every event, keyed by game and seq)         |
| ``gobuddy/v1/status/board/+``      | status (the boards' presence)                           |
| ``gobuddy/v1/engine/response/+/+`` | engine_answer: every final answer it may read (hints,   |
|                                    | the dashboard's analyses, genmoves); errors are skipped |
|                                    | and so are the workers' engine_progress                 |
| ``gobuddy/v1/board/+/led``         | engine_answer (copies of boards' own hints: no news)    |

Each message is applied in its own transaction and acknowledged only after it committed
(the bus client acknowledges a QoS 1 message when its handler returns). After each game
event it tells the board what of that game is stored (``game_stored`` on
``gobuddy/v1/board/<board_id>/stored``: every event up to ``seq``), so the board can keep
its events until they are in the database and send again what a broker lost (it
acknowledges before it saves to disk) or what came before a ``game_started`` this
recorder missed: delivery is end to end. A transient
database failure (unreachable, locked: ``ingest.TRANSIENT_ERRORS``) is retried with capped
backoff, blocking further messages; a recorder stopped or killed meanwhile leaves the
message unacknowledged, so the broker delivers it again. Once one message has failed
for ``retry_limit_s``, an empty write transaction probes the database: if it commits,
the message gets one more try at once, and if that fails while the database still takes
writes, the failure is the message's own and it is rejected; otherwise the database is
down or locked for every message and the retries go on (nothing is acknowledged, so
nothing is lost).
Ingest is idempotent, so a redelivered message changes nothing. Invalid messages never
get here (the bus client rejects and reports them); a valid message that the store
refuses (an event before its game's start, an illegal move, a value out of a column's
range) is logged, counted, reported on the recorder's error topic (kind ``refused``)
and acknowledged, never retried. Presence: retained online status with counters,
offline as last will and on a clean stop.
"""

from __future__ import annotations

import argparse
import logging
import socket
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

from dashboard.config import DEFAULT_DB_URL
from dashboard.ingest import Outcome, database_writable, ingest, stored_through
from dashboard.store import Store
from dashboard.store.engine import DEFAULT_BUSY_TIMEOUT_MS, make_engine, truncate_wal
from dashboard.store.migrate import upgrade_to_head
from gobuddy.bus import topics
from gobuddy.bus.cli import add_broker_arguments, bus_config_from_args
from gobuddy.bus.client import BusClient
from gobuddy.bus.config import BusConfig
from gobuddy.bus.game_events import GameStored
from gobuddy.bus.inbox import Received
from gobuddy.bus.lifecycle import connect, serve, stop_on_signals

log = logging.getLogger("dashboard.recorder")
RESPONSES_FILTER = f"{topics.ROOT}/engine/response/+/+"  # no builder in gobuddy.bus.topics yet


@dataclass(frozen=True)
class RecorderConfig:
    """How the recorder runs. ``sqlite_busy_timeout_ms``: how long an SQLite write waits
    for another writer's lock before it counts as a database error (other databases
    ignore it); ``retry_min_s``/``retry_max_s``: the capped backoff while the database
    fails; ``retry_limit_s``: how long one message may fail before the database is
    probed (see the module docstring); ``status_interval_s``: how often the counters are
    published."""

    bus: BusConfig
    db_url: str = DEFAULT_DB_URL
    sqlite_busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS
    retry_min_s: float = 0.2
    retry_max_s: float = 10.0
    retry_limit_s: float = 30.0
    status_interval_s: float = 10.0

    def __post_init__(self) -> None:
        if self.bus.role != "recorder":
            raise ValueError(f"bus.role: the recorder connects as 'recorder', not {self.bus.role!r}")
        if not self.bus.persistent_session:
            raise ValueError("bus.persistent_session: the recorder needs a persistent session")
        if "://" not in self.db_url:
            raise ValueError(f"--db: {self.db_url!r} is not a database URL (e.g. {DEFAULT_DB_URL})")
        if self.sqlite_busy_timeout_ms < 0:
            raise ValueError(f"--sqlite-busy-timeout: {self.sqlite_busy_timeout_ms} ms is negative")
        if not 0 < self.retry_min_s <= self.retry_max_s:
            raise ValueError("retry_min_s must be > 0 and <= retry_max_s")
        if self.retry_limit_s <= 0:
            raise ValueError("retry_limit_s must be > 0")


class Recorder:
    """Subscribes, stores, acknowledges; see the module docstring."""

    def __init__(self, config: RecorderConfig) -> None:
        self.config = config
        self.store: Store | None = None
        self.client: BusClient | None = None
        self._stopping = threading.Event()
        self._status_thread: threading.Thread | None = None
        self.counts = {"applied": 0, "duplicate": 0, "pending": 0, "ignored": 0, "rejected": 0, "db_retries": 0}

    def start(self, stop: threading.Event | None = None) -> None:
        """Migrate and open the database, then connect (retrying while the broker is
        unreachable, until ``stop`` is set). Raises ``ConnectionRefusedError`` for a
        refused account and the database's errors when it cannot be opened."""
        prepare_sqlite_dir(self.config.db_url)
        engine = make_engine(self.config.db_url, busy_timeout_ms=self.config.sqlite_busy_timeout_ms)
        upgrade_to_head(engine)
        self.store = Store(engine)
        def make_client() -> BusClient:
            client = BusClient(self.config.bus, logger=logging.getLogger(f"gobuddy.bus.{self.config.bus.client_id}"))
            for topic_filter in (topics.boards_filter("event"), topics.status_filter("board"), RESPONSES_FILTER,
                                 topics.boards_filter("led")):
                client.subscribe(topic_filter, self._on_message)
            client.set_status(host=socket.gethostname()[:255], database=make_url(self.config.db_url).get_backend_name())
            return client

        self.client = connect(make_client, (self._stopping, stop), log)
        if self.client is None:
            return
        self._status_thread = threading.Thread(target=self._status_loop, name="recorder-status", daemon=True)
        self._status_thread.start()
        log.info("recorder %s ready: database %s", self.config.bus.client_id,
                 make_url(self.config.db_url).render_as_string(hide_password=True))

    def stop(self) -> None:
        """Publish the offline status, disconnect, close the database."""
        self._stopping.set()
        if self.client is not None:
            self.client.stop()
        if self.store is not None:
            self.store.close()
        log.info("recorder stopped: %s", self.counts)

    def run(self, stop: threading.Event) -> None:
        """``start``, record until ``stop`` is set, then ``stop``."""
        serve(self, stop)

    # ---- storing (the bus client's dispatcher thread) ------------------------------------

    def _on_message(self, received: Received) -> None:
        kind = received.kind
        if kind in ("engine_error", "engine_progress"):  # nothing of them is stored
            return
        if kind == "engine_answer" and received.payload["is_during_search"]:
            self.counts["ignored"] += 1
            return
        outcome = self._store(kind, received)
        self.counts[outcome.status] = self.counts.get(outcome.status, 0) + 1
        if outcome.status == "rejected" and self.client is not None:
            self.client.report_refusal(received, outcome.detail)
        if kind == "game_event":
            self._tell_stored(received.payload["board_id"], received.payload["game_id"])

    def _tell_stored(self, board_id: str, game_id: str) -> None:
        """Publish what of ``game_id`` is stored (a failure only delays the board's re-send)."""
        try:
            seq = stored_through(self.store.sessions, game_id)  # type: ignore[union-attr]
            self.client.publish(topics.board_stored(board_id),  # type: ignore[union-attr]
                                GameStored(board_id=board_id, game_id=game_id, seq=seq,
                                           recorder=self.config.bus.client_id))
        except Exception as exc:
            log.warning("could not tell %s what of %s is stored: %s", board_id, game_id, exc)

    def _store(self, kind: str, received: Received) -> Outcome:
        """Apply one message, retrying transient database failures (see the module
        docstring for the bound). When the recorder stops meanwhile, raise only once the
        connection is gone, so the bus client cannot acknowledge the message."""
        delay = self.config.retry_min_s
        failing_since = time.monotonic()
        while True:
            try:
                return ingest(self.store.sessions, kind, received.payload)  # type: ignore[union-attr]
            except SQLAlchemyError as exc:
                self.counts["db_retries"] += 1
                if self._stopping.is_set():
                    deadline = time.monotonic() + 5.0
                    while self.client is not None and self.client.is_connected() and time.monotonic() < deadline:
                        time.sleep(0.05)
                    raise
                failing_for = time.monotonic() - failing_since
                if failing_for >= self.config.retry_limit_s:
                    outcome = self._last_try(kind, received, failing_for)
                    if outcome is not None:
                        return outcome
                log.warning("database error storing a %s from %s (retrying in %.1f s): %s", kind, received.topic,
                            delay, exc)
                self._stopping.wait(delay)
                delay = min(delay * 2, self.config.retry_max_s)

    def _last_try(self, kind: str, received: Received, failing_for: float) -> Outcome | None:
        """The probe after ``retry_limit_s`` of transient failures (see the module
        docstring): the message's outcome, or None to keep retrying."""
        sessions = self.store.sessions  # type: ignore[union-attr]
        if not database_writable(sessions):
            return None
        try:
            return ingest(sessions, kind, received.payload)
        except SQLAlchemyError as exc:
            self.counts["db_retries"] += 1
            if not database_writable(sessions):
                return None
            reason = (f"the database failed on this {kind} for {failing_for:.0f} s while it took other writes: "
                      f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}")
            log.warning("rejected a %s from %s: %s", kind, received.topic, reason)
            return Outcome("rejected", reason)

    def _status_loop(self) -> None:
        while not self._stopping.wait(self.config.status_interval_s):
            try:
                self.client.set_status(**self.counts, invalid=self.client.stats["rejected"])  # type: ignore[union-attr]
            except Exception as exc:
                log.warning("could not publish the status: %s", exc)
            try:
                truncate_wal(self.store.engine)  # type: ignore[union-attr]
            except Exception as exc:  # a full disk or a locked database: next time
                log.warning("could not checkpoint the database: %s", exc)


def prepare_sqlite_dir(db_url: str) -> None:
    """Create the folder of an SQLite file (SQLite creates the file, not its folder)."""
    url = make_url(db_url)
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        Path(url.database).expanduser().parent.mkdir(parents=True, exist_ok=True)


# ---- command line ------------------------------------------------------------------------

def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m dashboard.recorder",
                                description="Go Learning Buddy recorder: stores game events, presence and engine "
                                            "answers from the broker in the SQL history.")
    add_broker_arguments(p, default_username="recorder")
    p.add_argument("--session-expiry", type=int, default=7 * 24 * 3600,
                   help="seconds the broker keeps the session while the recorder is away (default 7 days)")
    p.add_argument("--db", "--db-url", dest="db", default=DEFAULT_DB_URL,
                   help="SQLAlchemy URL of the history, e.g. postgresql+psycopg://user@host/db "
                        f"(default {DEFAULT_DB_URL})")
    p.add_argument("--sqlite-busy-timeout", type=int, default=DEFAULT_BUSY_TIMEOUT_MS,
                   help=f"ms an SQLite write waits for another writer (default {DEFAULT_BUSY_TIMEOUT_MS})")
    p.add_argument("--status-interval", type=float, default=10.0, help="seconds between status updates (default 10)")
    p.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    return p


def parse_args(argv: Sequence[str] | None = None) -> tuple[RecorderConfig, str]:
    """(the recorder's configuration, the log level); usage errors name the argument."""
    p = parser()
    args = p.parse_args(argv)
    try:
        bus = bus_config_from_args(args, role="recorder", persistent_session=True,
                                   session_expiry_s=args.session_expiry)
        config = RecorderConfig(bus=bus, db_url=args.db, sqlite_busy_timeout_ms=args.sqlite_busy_timeout,
                                status_interval_s=args.status_interval)
    except ValueError as exc:
        p.error(str(exc))
    return config, args.log_level


def main(argv: Sequence[str] | None = None) -> int:
    config, level = parse_args(argv)
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    stop = stop_on_signals()
    try:
        Recorder(config).run(stop)
    except ConnectionRefusedError as exc:
        log.error("%s", exc)
        return 1
    except SQLAlchemyError as exc:
        log.error("cannot open the database %s: %s", make_url(config.db_url).render_as_string(hide_password=True), exc)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
