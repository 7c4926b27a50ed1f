"""Pytest fixtures shared by the dashboard's AppTests (``tests/dashboard/test_app_*.py``)
and the browser tests: a real Mosquitto, a migrated SQLite file, the stand-in engine
worker and recorder, and ``open_app`` which runs ``dashboard/app.py`` on one page with
``streamlit.testing.v1.AppTest``. Import the fixtures you use into the test module.

``open_app(page, broker=None, *args)`` sets ``sys.argv`` the way ``streamlit run ... --``
does, runs the app once, switches to ``page`` (``"views/games.py"``...) and runs it.
It serves "on" 127.0.0.1 (``server.address``, as the launcher does), so ``--auth auto``
asks for no sign-in; ``serving_on`` sets another address for a test.
The process-wide services the app caches are released after each test.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
import streamlit as st
from streamlit import config as streamlit_config
from streamlit.testing.v1 import AppTest

from dashboard.store import Store
from dashboard.store.migrate import upgrade_to_head
from tests.e2e.stand_ins import StandInRecorder, engine_for_tests
from tests.mqtt_broker import MosquittoBroker, find_mosquitto

REPO = Path(__file__).resolve().parents[2]
APP = REPO / "dashboard" / "app.py"


@pytest.fixture(scope="module")
def app_broker() -> Iterator[MosquittoBroker]:
    """A Mosquitto with the project's ACL for one test module."""
    if find_mosquitto() is None:
        pytest.skip("mosquitto is not installed")
    with MosquittoBroker(boards=("board-1", "board-2")) as broker:
        yield broker


@pytest.fixture(scope="session")
def _migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("dashboard-db") / "template.db"
    upgrade_to_head(f"sqlite:///{path}")
    return path


@pytest.fixture
def app_db_url(tmp_path: Path, _migrated_sqlite: Path) -> str:
    """A migrated SQLite database of the test's own."""
    path = tmp_path / "gobuddy.db"
    shutil.copyfile(_migrated_sqlite, path)
    return f"sqlite:///{path}"


@pytest.fixture
def app_store(app_db_url: str) -> Iterator[Store]:
    store = Store.open(app_db_url, migrate=False)
    yield store
    store.close()


@pytest.fixture
def stand_in_worker(app_broker: MosquittoBroker) -> Iterator[Any]:
    """An engine worker on the test's broker: the real one in process when it exists."""
    with engine_for_tests(app_broker.config("engine-1")) as worker:
        yield worker


@pytest.fixture
def stand_in_recorder(app_broker: MosquittoBroker, app_store: Store) -> Iterator[StandInRecorder]:
    with StandInRecorder(app_broker.config("recorder"), app_store) as recorder:
        yield recorder


def dashboard_args(db_url: str, broker: MosquittoBroker | None = None, *extra: str) -> list[str]:
    """The arguments after ``--`` for a dashboard on ``db_url`` (and ``broker``)."""
    args = ["--db", db_url]
    if broker is None:
        return args + ["--no-bus", *extra]
    return args + ["--broker-host", broker.host, "--broker-port", str(broker.port), "--username", "dashboard",
                   f"--password={broker.credentials['dashboard']}", *extra]  # it may start with "-"


@pytest.fixture
def serving_on() -> Iterator[Callable[[str | None], None]]:
    """``serving_on(address)``: the ``server.address`` option the app reads (restored after the test)."""
    before = streamlit_config.get_option("server.address")

    def set_address(address: str | None) -> None:
        streamlit_config.set_option("server.address", address)

    yield set_address
    streamlit_config.set_option("server.address", before)


@pytest.fixture
def open_app(monkeypatch: pytest.MonkeyPatch, app_db_url: str) -> Iterator[Callable[..., AppTest]]:
    address = streamlit_config.get_option("server.address")
    streamlit_config.set_option("server.address", "127.0.0.1")

    def open_page(page: str, broker: MosquittoBroker | None = None, *extra: str) -> AppTest:
        monkeypatch.setattr(sys, "argv", [str(APP), *dashboard_args(app_db_url, broker, *extra)])
        at = AppTest.from_file(str(APP), default_timeout=60)
        at.run()
        if page != "views/live.py":
            at.switch_page(page).run()
        return at

    yield open_page
    st.cache_resource.clear()  # releases the services: stops the test's bus client
    streamlit_config.set_option("server.address", address)


def services(at: AppTest) -> Any:
    """The ``Services`` the app handed to its page (store, feed, config)."""
    return at.session_state["gobuddy_services"]


def boards(at: AppTest) -> list[str]:
    """The SVG boards drawn on the page (inline in markdown), in page order."""
    return [m.value for m in at.markdown if 'class="go-board"' in m.value]


def no_exceptions(at: AppTest) -> None:
    """Fail with the app's own traceback when a run raised."""
    if at.exception:
        raise AssertionError("\n".join(str(e.value) + "\n" + "\n".join(e.stack_trace) for e in at.exception))
