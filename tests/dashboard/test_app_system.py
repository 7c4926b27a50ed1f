"""The System page and the app's frame (AppTest, real Mosquitto): who is online, queue
depths, recent latencies; the dashboard's arguments and their errors."""

from __future__ import annotations

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


@pytest.mark.parametrize("argv, field, value", [
    ([], "db_url", "sqlite:///data/gobuddy.db"),
    (["--broker-host", "pi.local", "--broker-port", "8883"], "broker_port", 8883),
    (["--live-interval", "0.05"], "live_interval_s", 0.05),
])
def test_arguments(argv, field, value):
    assert getattr(from_args(argv), field) == value


@pytest.mark.parametrize("argv, words", [
    (["--db-url", "nonsense"], "--db-url"),
    (["--broker-port", "0"], "--broker-port"),
    (["--live-interval", "0"], "--live-interval"),
    (["--broker-password", "x", "--broker-password-file", "/nonexistent"], "not both"),
    (["--broker-password-file", "/nonexistent/pw"], "--broker-password-file"),
])
def test_argument_errors_name_the_argument(argv, words):
    with pytest.raises(ConfigError, match=words):
        from_args(argv)


def test_password_file_and_client_ids(tmp_path):
    secret = tmp_path / "pw"
    secret.write_text("s3cret\n")
    config = from_args(["--broker-host", "h", "--broker-password-file", str(secret)])
    assert config.broker_password == "s3cret"
    first, second = config.bus_config(), config.bus_config()
    assert first.role == "dashboard" and first.username == "dashboard" and first.password == "s3cret"
    assert first.client_id != second.client_id and first.client_id.startswith("dashboard-")
    with pytest.raises(ConfigError, match="no broker"):
        DashboardConfig().bus_config()


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
        assert engine["model"] == "stand-in tromp-taylor" and engine["state"] == "online"
        latencies = at.dataframe[1].value
        events = latencies[latencies["what"] == "game_event → dashboard"].iloc[0]
        assert events["samples"] >= 3
        assert any("Broker 127.0.0.1:" in m.value and "connected" in m.value for m in at.markdown)
        assert any(c.value == "Boards online: 1 · engine workers online: 1" for c in at.sidebar.caption)
