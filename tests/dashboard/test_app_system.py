"""The System page and the app's frame (AppTest, real Mosquitto): who is online, queue
depths, recent latencies; the dashboard's arguments and their errors."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from dashboard.config import ConfigError, DashboardConfig, from_args
from dashboard.views.system import percentile, summary
from tests.e2e.fixtures import (_migrated_sqlite, app_broker, app_db_url, no_exceptions, open_app,  # noqa: F401
                                services, stand_in_worker)
from tests.e2e.stand_ins import ScriptedBoard


@pytest.mark.parametrize("values, q, expected", [
    ([5.0], 0.5, 5.0), ([1, 2, 3, 4, 100], 0.5, 3), ([1, 2, 3, 4, 100], 0.95, 100), ([3, 1, 2], 0.0, 1),
])
def test_percentiles(values, q, expected):
    assert percentile(values, q) == expected


def test_summary_of_no_samples():
    assert summary([]) == {"samples": 0, "p50 ms": None, "p95 ms": None, "max ms": None}


@pytest.mark.parametrize("argv, expected", [
    ([], {"db_url": "sqlite:///data/gobuddy.db", "broker_address": "127.0.0.1:1883", "has_broker": True}),
    (["--no-bus", "--db", "sqlite:///x.db"], {"db_url": "sqlite:///x.db", "has_broker": False}),
    (["--db-url", "postgresql+psycopg://u@h/db"], {"db_url": "postgresql+psycopg://u@h/db"}),
    (["--broker-host", "pi.local", "--broker-port", "8883"], {"broker_address": "pi.local:8883"}),
    (["--live-interval", "0.05"], {"live_interval_s": 0.05}),
])
def test_arguments(argv, expected):
    config = from_args(argv)
    assert {name: getattr(config, name) for name in expected} == expected


@pytest.mark.parametrize("argv, words", [
    (["--db", "nonsense"], "--db"),
    (["--broker-port", "0"], "port"),
    (["--live-interval", "0"], "--live-interval"),
    (["--live-interval", "soon"], "--live-interval"),
    (["--credentials", "/nonexistent/credentials.json"], "--credentials"),
    (["--client-id", "no spaces"], "client id"),
])
def test_argument_errors_name_the_argument(argv, words):
    with pytest.raises(ConfigError, match=words):
        from_args(argv)


def test_the_launchers_arguments(tmp_path):
    """As launcher/__main__.py and docker-compose.yml start the dashboard."""
    credentials = tmp_path / "credentials.json"
    credentials.write_text(json.dumps({"dashboard": "s3cret", "engine": "other"}))
    argv = ["--broker-host", "127.0.0.1", "--broker-port", "1884", "--credentials", str(credentials),
            "--username", "dashboard", "--db", "sqlite:///var/gobuddy.db"]
    config = from_args(argv)
    assert (config.bus.username, config.bus.password, config.bus.role) == ("dashboard", "s3cret", "dashboard")
    assert config.bus.client_id.startswith("dashboard-")
    assert from_args(list(argv)) is config  # one client id for the life of the process
    assert from_args(argv + ["--client-id", "dash-2"]).bus.client_id == "dash-2"
    with pytest.raises(ConfigError, match="role 'dashboard'"):
        DashboardConfig(bus=replace(config.bus, role="engine"))


def test_a_bad_argument_is_shown_on_the_page(open_app):
    at = open_app("views/live.py", None, "--live-interval", "99")
    assert "The dashboard cannot start: --live-interval" in at.error[0].value


def test_who_is_online_and_how_fast(open_app, app_broker, stand_in_worker):
    with ScriptedBoard(app_broker.config("board-1")) as board:
        at = open_app("views/system.py", app_broker)
        feed = services(at).feed
        board.start("board-1-sys")
        board.play("E5 C3")
        assert feed.wait_for(lambda f: len(f.presence("engine")) == 1 and len(f.presence("board")) == 1
                             and len([d for d in f.delays() if d[0] == "game_event"]) >= 3, 10)
        at.run()
        no_exceptions(at)
        metrics = {m.label: m.value for m in at.metric}
        assert metrics["Boards online"] == "1" and metrics["Engine workers online"] == "1"
        assert metrics["Engine queue"] == "0" and metrics["Recorder"] == "offline"
        presence = at.dataframe[0].value
        assert set(presence["role"]) >= {"board", "engine", "dashboard"}
        engine = presence[presence["role"] == "engine"].iloc[0]
        assert engine["state"] == "online" and engine["queue"] == 0
        latencies = at.dataframe[1].value
        events = latencies[latencies["what"] == "game_event → dashboard"].iloc[0]
        assert events["samples"] >= 3
        assert any("Broker 127.0.0.1:" in m.value and "connected" in m.value for m in at.markdown)
        assert any(c.value == "Boards online: 1 · engine workers online: 1" for c in at.sidebar.caption)
