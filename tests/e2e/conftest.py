"""The browser tests' stack, started once per module: Mosquitto, a SQLite history, an
engine worker and a recorder (the stand-ins of ``stand_ins``: TODO(e2e) use
``python -m engine_worker`` and ``python -m dashboard.recorder`` once they exist), the
dashboard served by ``streamlit run`` on loopback, and headless Chromium."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest

from dashboard.store import Store
from tests.e2e.fixtures import dashboard_args
from tests.e2e.harness import StreamlitServer, browser_missing, chromium
from tests.e2e.stand_ins import StandInRecorder, StandInWorker
from tests.mqtt_broker import MosquittoBroker, find_mosquitto


@dataclass
class Stack:
    broker: MosquittoBroker
    store: Store
    server: StreamlitServer
    browser: Any
    worker: StandInWorker
    recorder: StandInRecorder
    log: Path


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    reason = browser_missing() or (None if find_mosquitto() else "mosquitto is not installed")
    if reason:
        pytest.skip(reason)
    tmp = tmp_path_factory.mktemp("e2e")
    url = f"sqlite:///{tmp / 'gobuddy.db'}"
    store = Store.open(url)
    log = tmp / "streamlit.log"
    with MosquittoBroker(boards=("board-1", "board-2")) as broker, \
            StandInWorker(broker.config("engine")) as worker, \
            StandInRecorder(broker.config("recorder"), store) as recorder, \
            StreamlitServer(dashboard_args(url, broker), log_path=log) as server, \
            chromium() as browser:
        warm = browser.new_page()  # the first load imports everything: do it once, untimed
        warm.goto(server.url(""))
        warm.wait_for_selector("h1", timeout=60_000)
        warm.close()
        yield Stack(broker, store, server, browser, worker, recorder, log)
    store.close()


@pytest.fixture
def page(stack: Stack) -> Iterator[Any]:
    # tall: Streamlit scrolls inside its own container, so a screenshot shows one viewport
    context = stack.browser.new_context(viewport={"width": 1400, "height": 1800}, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(30_000)
    yield page
    context.close()
