"""The browser tests' stack, started once per module: Mosquitto, a SQLite history, an
engine worker and the recorder (the real ``python -m engine_worker`` with a small
random-weight model, and ``python -m dashboard.recorder``, when they exist; the
``stand_ins`` otherwise), the dashboard served by ``streamlit run`` on loopback, and
headless Chromium."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest

from dashboard.store import Store
from tests.e2e.fixtures import dashboard_args
from tests.e2e.harness import (ServiceProcess, StreamlitServer, broker_args, browser_missing, chromium, engine_worker,
                               recorder, wait_online)
from tests.mqtt_broker import MosquittoBroker, find_mosquitto


@dataclass
class Stack:
    broker: MosquittoBroker
    store: Store
    server: StreamlitServer
    browser: Any
    tmp: Path


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    reason = browser_missing() or (None if find_mosquitto() else "mosquitto is not installed")
    if reason:
        pytest.skip(reason)
    tmp = tmp_path_factory.mktemp("e2e")
    url = f"sqlite:///{tmp / 'gobuddy.db'}"
    store = Store.open(url)
    with contextlib.ExitStack() as stack:
        broker = stack.enter_context(MosquittoBroker(boards=("board-1", "board-2")))
        services = [stack.enter_context(engine_worker(broker, tmp)),
                    stack.enter_context(recorder(broker, store, url, tmp))]
        server = stack.enter_context(StreamlitServer(dashboard_args(url, broker), log_path=tmp / "streamlit.log"))
        wait_online(broker.config("observer"), {"engine": 1, "recorder": 1},
                    [s for s in services if isinstance(s, ServiceProcess)])
        browser = stack.enter_context(chromium())
        warm = browser.new_page()  # the first load imports everything: do it once, untimed
        warm.goto(server.url(""))
        warm.wait_for_selector("h1", timeout=60_000)
        warm.close()
        yield Stack(broker, store, server, browser, tmp)
    store.close()


@contextlib.contextmanager
def real_engine_stack(tmp: Path, worker_args: list[str], dashboard_extra: list[str]) -> Iterator[Stack]:
    """The stack with the real engine worker (``python -m engine_worker`` with
    ``worker_args`` after the broker's) and recorder as processes, and the dashboard
    with ``dashboard_extra``; the caller skips first when a part is missing."""
    url = f"sqlite:///{tmp / 'gobuddy.db'}"
    store = Store.open(url)
    with contextlib.ExitStack() as stack:
        broker = stack.enter_context(MosquittoBroker(boards=("board-1",)))
        services = [stack.enter_context(ServiceProcess(
                        "engine_worker", [*broker_args(broker, "engine-e2e-1"), *worker_args], tmp / "engine_worker.log")),
                    stack.enter_context(ServiceProcess(
                        "dashboard.recorder", [*broker_args(broker, "recorder-e2e"), "--db", url],
                        tmp / "recorder.log"))]
        server = stack.enter_context(StreamlitServer(dashboard_args(url, broker, *dashboard_extra),
                                                     log_path=tmp / "streamlit.log"))
        wait_online(broker.config("observer"), {"engine": 1, "recorder": 1}, services)
        browser = stack.enter_context(chromium())
        warm = browser.new_page()
        warm.goto(server.url(""))
        warm.wait_for_selector("h1", timeout=60_000)
        warm.close()
        yield Stack(broker, store, server, browser, tmp)
    store.close()


@pytest.fixture
def page(stack: Stack) -> Iterator[Any]:
    # tall: Streamlit scrolls inside its own container, so a screenshot shows one viewport
    context = stack.browser.new_context(viewport={"width": 1400, "height": 1800}, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(30_000)
    yield page
    context.close()
