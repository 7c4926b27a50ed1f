"""Helpers of the service tests: the services as real subprocesses, presence, games.

    worker = spawn_worker(broker, model, "engine-a")        # python -m engine_worker ...
    recorder = spawn_recorder(broker, db_url)               # python -m dashboard.recorder ...
    presence.wait_online("engine-a", since_ms=worker.started_ms)

``Service`` writes the process's stderr to a log file and can wait for a line in it;
``Presence`` is an observer client collecting every retained status; ``quiet_game`` is
a legal game without captures.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from sqlalchemy import create_engine, text

from gobuddy.bus import topics
from gobuddy.bus.client import BusClient
from gobuddy.bus.engine_messages import EngineRequest, Position
from gobuddy.bus.game_events import GameStarted, MovePlayed
from gobuddy.bus.message import now_ms
from gobuddy.go.coords import GTP_COLUMNS
from tests.mqtt_broker import REPO, Inbox, MosquittoBroker


class Service:
    """One service process; its stderr goes to ``log_path``."""

    def __init__(self, name: str, argv: list[str], log_path: Path) -> None:
        self.name = name
        self.log_path = log_path
        self.started_ms = now_ms()
        self._log = open(log_path, "ab")
        self.process = subprocess.Popen([sys.executable, *argv], cwd=REPO, stdout=subprocess.DEVNULL,
                                        stderr=self._log)

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_for_log(self, pattern: str, timeout_s: float = 15.0, count: int = 1) -> list[str]:
        """Wait until ``count`` log lines match the regular expression ``pattern``."""
        deadline = time.monotonic() + timeout_s
        regex = re.compile(pattern)
        while True:
            found = [line for line in self.log_text().splitlines() if regex.search(line)]
            if len(found) >= count:
                return found
            if time.monotonic() > deadline or not self.alive:
                raise AssertionError(f"{self.name}: no {count} lines matching {pattern!r} "
                                     f"(alive: {self.alive}); log:\n{self.log_text()[-3000:]}")
            time.sleep(0.05)

    def signal(self, sig: int, timeout_s: float = 15.0) -> int:
        """Send ``sig`` and wait for the exit status."""
        if self.alive:
            self.process.send_signal(sig)
        return self.process.wait(timeout_s)

    def close(self) -> None:
        if self.alive:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self._log.close()


def broker_args(broker: MosquittoBroker, username: str) -> list[str]:
    """The shared broker options (``gobuddy.bus.cli``): the account (made if need be) and
    its own password file, as a deployment hands each service."""
    broker.ensure_account(username)
    return ["--broker-host", broker.host, "--broker-port", str(broker.port),
            "--password-file", str(broker.password_file(username)), "--username", username]


def spawn_worker(broker: MosquittoBroker, model: Path, worker_id: str, *extra: str) -> Service:
    """``python -m engine_worker`` as the engine account ``worker_id`` (``engine-<name>``)."""
    argv = ["-m", "engine_worker", *broker_args(broker, worker_id), "--model", str(model),
            "--status-interval", "0.5", "--log-level", "DEBUG", *extra]
    return Service(worker_id, argv, broker.workdir / f"{worker_id}.log")


SHIPPED_MODEL = Path(__file__).resolve().parents[2] / "models" / "gobuddy-9x9.onnx"


@contextmanager
def shipped_worker(broker: MosquittoBroker, presence: Presence, worker_id: str) -> Iterator[Service]:
    """An engine worker with the shipped model, online, whose searches are bounded by the
    requests alone (``--visits`` high); closed on leaving."""
    service = spawn_worker(broker, SHIPPED_MODEL, worker_id, "--visits", "1000000")
    try:
        yield start_service(service, presence)
    finally:
        service.close()


def spawn_recorder(broker: MosquittoBroker, db_url: str, client_id: str = "recorder", *extra: str) -> Service:
    """``python -m dashboard.recorder`` as the recorder account ``client_id`` (``recorder[-<name>]``)."""
    argv = ["-m", "dashboard.recorder", *broker_args(broker, client_id), "--db", db_url,
            "--session-expiry", "600", "--status-interval", "0.3", *extra]
    return Service(client_id, argv, broker.workdir / f"{client_id}.log")


class Presence:
    """An observer of every client's retained status."""

    def __init__(self, broker: MosquittoBroker) -> None:
        self.inbox = Inbox()
        self.client = BusClient(broker.config("observer"))
        self.client.subscribe(topics.status_filter(), self.inbox)
        self.client.start()

    def wait(self, client_id: str, state: str, since_ms: int, timeout_s: float = 30.0, **details: Any) -> Any:
        """The first status of ``client_id`` in ``state`` made at or after ``since_ms``
        whose details include ``details`` (values compared with >= for numbers)."""
        def match(received: Any) -> bool:
            status = received.message
            if status.client_id != client_id or status.state != state or status.ts < since_ms:
                return False
            return all(_at_least(status.details.get(key), value) for key, value in details.items())

        try:
            return self.inbox.wait_for(1, timeout_s=timeout_s, where=match)[0].message
        except AssertionError:
            seen = [r.message for r in self.inbox.items if r.message.client_id == client_id][-5:]
            raise AssertionError(f"no {state} status of {client_id} since {since_ms} with {details}; "
                                 f"its last ones: {seen}") from None

    def close(self) -> None:
        self.client.stop()


def _at_least(found: Any, wanted: Any) -> bool:
    if isinstance(wanted, (int, float)) and not isinstance(wanted, bool):
        return isinstance(found, (int, float)) and found >= wanted
    return found == wanted


@contextmanager
def running(service: Service, presence: Presence) -> Iterator[Service]:
    """``service`` once it is online (``start_service``), closed on the way out."""
    try:
        yield start_service(service, presence)
    finally:
        service.close()


def start_service(service: Service, presence: Presence, timeout_s: float = 30.0) -> Service:
    """Wait until ``service`` announced itself online (its subscriptions are then in place)."""
    try:
        presence.wait(service.name, "online", service.started_ms, timeout_s)
    except AssertionError:
        raise AssertionError(f"{service.name} did not come online; log:\n{service.log_text()[-3000:]}") from None
    return service


# ---- games and requests ------------------------------------------------------------------

def quiet_game(count: int, size: int = 9) -> list[tuple[str, str]]:
    """``count`` alternating moves that capture nothing: rows 9, 7, 5, ... left to right,
    so every stone keeps an empty point above or below it."""
    points = [f"{GTP_COLUMNS[c]}{row}" for row in range(size, 0, -2) for c in range(size)]
    if count > len(points):
        raise ValueError(f"a quiet game on {size}x{size} has at most {len(points)} moves")
    return [("B" if n % 2 == 0 else "W", points[n]) for n in range(count)]


def game_events(board_id: str, game_id: str, moves: list[tuple[str, str]], first_seq: int = 0) -> list[Any]:
    """``game_started`` (when ``first_seq`` is 0) and one ``move`` per move, seq numbered."""
    events: list[Any] = []
    if first_seq == 0:
        events.append(GameStarted(board_id=board_id, game_id=game_id, seq=0, move_number=0, size=9, komi=7.0,
                                  rules="chinese", handicap=0, setup=(), to_play="B", mode="two_players",
                                  players=None))
    for n, (color, vertex) in enumerate(moves, start=1):
        events.append(MovePlayed(board_id=board_id, game_id=game_id, seq=n, move_number=n, color=color,
                                 vertex=vertex, captures=()))
    return events


def make_request(request_id: str, moves: list[tuple[str, str]] | tuple = (), *, board_id: str | None = None,
                 purpose: str = "analysis", visits: int = 8, deadline_s: float = 10.0,
                 max_time_ms: int | None = None, size: int = 9, **extra: Any) -> EngineRequest:
    return EngineRequest(id=request_id, board_id=board_id, purpose=purpose, max_visits=visits,
                         max_time_ms=max_time_ms, deadline_ms=now_ms() + int(deadline_s * 1000),
                         position=Position(size=size, komi=7.0, rules="chinese", moves=tuple(moves)), **extra)


# ---- the database ------------------------------------------------------------------------

def rows(db_url: str, sql: str) -> list[tuple]:
    """The rows of a read-only query on the recorder's database."""
    engine = create_engine(db_url)
    try:
        with engine.connect() as connection:
            return [tuple(row) for row in connection.execute(text(sql))]
    finally:
        engine.dispose()


def wait_rows(db_url: str, sql: str, count: int, timeout_s: float = 20.0) -> list[tuple]:
    """Poll ``sql`` until it returns at least ``count`` rows; return them."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = rows(db_url, sql)
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.1)
