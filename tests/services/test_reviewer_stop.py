"""The game reviewer as a service (``python -m dashboard.review --watch``, as ``make
run`` starts it) stops cleanly on SIGTERM, as every other service does: exit status 0,
not -15 — whether it waits for the engine on the bus or between looks without one."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from dashboard.store import Store
from tests.dashboard.conftest import WireGame, send
from tests.mqtt_broker import REPO, MosquittoBroker
from tests.services.processes import Presence, Service, broker_args, start_service


def spawn_reviewer(broker: MosquittoBroker, db_url: str, log: Path) -> Service:
    """``python -m dashboard.review --watch 30`` as the reviewer account, as ``make run`` starts it."""
    return Service("reviewer", ["-m", "dashboard.review", *broker_args(broker, "reviewer"), "--db", db_url,
                                "--watch", "30", "--log-level", "INFO"], log)


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'review.db'}"
    Store.open(url).close()  # migrated
    return url


def test_sigterm_while_waiting_for_the_engine_on_the_bus_exits_0(broker, presence: Presence, db_url, tmp_path):
    reviewer = start_service(spawn_reviewer(broker, db_url, tmp_path / "reviewer.log"), presence)
    try:
        assert reviewer.signal(signal.SIGTERM) == 0, reviewer.log_text()[-3000:]
    finally:
        reviewer.close()


def test_sigterm_between_looks_without_an_engine_exits_0(db_url):
    store = Store.open(db_url)
    g = WireGame("g-1").play("E5 C3")
    send(store, *g.events, g.end("B+R", "resign"))  # a finished game: its review is the first look's line
    store.close()
    argv = [sys.executable, "-m", "dashboard.review", "--no-engine", "--db", db_url, "--watch", "30"]
    with subprocess.Popen(argv, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as reviewer:
        try:
            lines = []
            for line in reviewer.stdout:  # type: ignore[union-attr]
                lines.append(line)
                if line.startswith("reviewed 1 game"):
                    break  # the first look is done: it waits for the next one
            reviewer.send_signal(signal.SIGTERM)
            assert reviewer.wait(15) == 0, "".join(lines) + reviewer.stdout.read()  # type: ignore[union-attr]
        finally:
            if reviewer.poll() is None:
                reviewer.kill()
