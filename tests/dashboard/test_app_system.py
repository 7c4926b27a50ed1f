"""The System page and the app's frame (AppTest, real Mosquitto): who is online, each
board's sensing and calibration (what a calibrating board waits for, what went wrong),
queue depths, recent latencies; the dashboard's arguments and their errors."""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dashboard.board_sensing import board_sensing
from dashboard.config import ConfigError, DashboardConfig, from_args
from dashboard.views.system import percentile, summary
from edge.calibration.board import BoardCalibration
from edge.calibration.procedure import reference_points
from edge.simulation.sensor_model import SensorModel
from gobuddy.bus import BusClient
from gobuddy.go.coords import BLACK, from_gtp
from tests.e2e.fixtures import (_migrated_sqlite, app_broker, app_db_url, no_exceptions, open_app,  # noqa: F401
                                services, stand_in_worker)
from tests.e2e.stand_ins import ScriptedBoard


def table(at: Any, column: str) -> Any:
    """The page's first table with ``column``."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


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
    ([], {"status_interval_s": 2.0}),
    (["--status-interval", "60"], {"status_interval_s": 60.0}),
    ([], {"play_sizes": (9, 13)}),  # the shipped models' sizes, where the levels are calibrated
    (["--play-sizes", "9,13"], {"play_sizes": (9, 13)}),
    (["--play-sizes", "13"], {"play_sizes": (13,)}),
])
def test_arguments(argv, expected):
    config = from_args(argv)
    assert {name: getattr(config, name) for name in expected} == expected


@pytest.mark.parametrize("argv, words", [
    (["--db", "nonsense"], "--db"),
    (["--broker-port", "0"], "port"),
    (["--live-interval", "0"], "--live-interval"),
    (["--live-interval", "soon"], "--live-interval"),
    (["--status-interval", "0.1"], "--status-interval"),
    (["--password-file", "/nonexistent/dashboard.password"], "--password-file"),
    (["--username", "no spaces"], "client id"),
    (["--play-sizes", "9,nine"], "--play-sizes"),
    (["--play-sizes", "9,9"], "--play-sizes"),
    (["--play-sizes", "1"], "--play-sizes"),
    (["--play-sizes", ","], "--play-sizes"),
])
def test_argument_errors_name_the_argument(argv, words):
    with pytest.raises(ConfigError, match=words):
        from_args(argv)


def test_the_launchers_arguments(tmp_path):
    """As launcher/__main__.py and docker-compose.yml start the dashboard."""
    secret = tmp_path / "dashboard.password"
    secret.write_text("s3cret\n")
    argv = ["--broker-host", "127.0.0.1", "--broker-port", "1884", "--password-file", str(secret),
            "--username", "dashboard", "--db", "sqlite:///var/gobuddy.db"]
    config = from_args(argv)
    assert (config.bus.username, config.bus.password, config.bus.role) == ("dashboard", "s3cret", "dashboard")
    assert config.bus.client_id == "dashboard"  # the broker binds the client id to the account
    assert from_args(list(argv)) is config
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
        assert table(at, "sensing").to_dict("records") == [  # the stand-in says nothing of its calibration
            {"board": "board-1", "state": "online", "link": "ok", "sensing": "—", "calibration": "—"}]
        presence = table(at, "role")
        assert set(presence["role"]) >= {"board", "engine", "dashboard"}
        engine = presence[presence["role"] == "engine"].iloc[0]
        assert engine["state"] == "online" and engine["details"].startswith("0 queued · ")
        assert "models gobuddy-9x9" in engine["details"] and "models/" not in engine["details"]  # names, not paths
        latencies = table(at, "what")
        events = latencies[latencies["what"] == "game_event → dashboard"].iloc[0]
        assert events["samples"] >= 3
        assert any("Broker 127.0.0.1:" in m.value and "connected" in m.value for m in at.markdown)
        assert any(c.value == "Boards online: 1 · engine workers online: 1" for c in at.sidebar.caption)


BLACK_ROW = "lay a black stone on each point of row 7 (A7 to J7), then press TURN DONE"
C7_MISSING = "the black reference stone at C7 reads"


@pytest.mark.parametrize("online, details, expected", [
    (True, {"calibrated": True, "sensing": "color"}, ("colour", "calibrated", None, None)),
    (True, {"calibrated": True, "sensing": "occupancy"}, ("occupancy", "calibrated", None, None)),
    (True, {"calibrated": False, "calibration": "empty_board", "calibration_message": "measuring the empty board"},
     ("none yet", "calibrating: measuring the empty board", "measuring the empty board", None)),
    (True, {"calibrated": True, "sensing": "occupancy", "calibration": "black_stones",
            "calibration_message": BLACK_ROW, "calibration_problem": "C7 is off its point"},
     ("occupancy", "calibrating: black reference stones", BLACK_ROW, "C7 is off its point")),
    (True, {"calibrated": False, "calibration": "white_stones", "calibration_message": "lay white stones"},
     ("none yet", "calibrating: white reference stones", "lay white stones", None)),
    (True, {"calibrated": True, "sensing": "color", "calibration": "clear_board",
            "calibration_message": "take them off"},
     ("colour", "calibrating: clearing the board", "take them off", None)),
    (False, {"calibrated": False, "calibration": "black_stones", "calibration_message": BLACK_ROW,
             "calibration_problem": "C7 is off its point"}, ("none yet", "not calibrated", None, None)),
    (True, {"firmware": "1.0.0"}, ("—", "—", None, None)),  # an agent that does not say
    (True, {}, ("—", "—", None, None)),
])
def test_a_boards_sensing_and_calibration_in_words(online, details, expected):
    b = board_sensing("board-1", online, details)
    assert (b.sensing, b.calibration, b.message, b.problem) == expected
    assert (b.board_id, b.online) == ("board-1", online)


def failed_black_step(tmp_path: Path) -> dict[str, Any]:
    """The status facts of a real ``BoardCalibration`` (colour sensing) whose black step
    failed: the empty board measured, then row 7 laid without C7."""
    model = SensorModel(seed=11)
    empty = np.rint(model.baseline()).astype(int)
    cal = BoardCalibration("board-1", tmp_path, lambda command: Future(), lambda: None, threading.RLock(),
                           logging.getLogger("test.system"), colour=True, settle_s=0.0)
    cal.tick(0.0, True, 9)
    cal.tick(0.1, True, 9)  # CAL over the empty board
    cal.on_caldata(empty.tolist(), 0.2)
    cal.on_done(False, 1.0, None)
    cal.tick(1.1, True, 9)  # CAL over the black stones
    black = empty.copy()
    for point in reference_points(9)[BLACK]:
        if point != from_gtp("C7", 9):
            black[point] = round(black[point] * model.stone(BLACK))
    cal.on_caldata(black.tolist(), 1.2)
    return cal.status()


def test_the_system_page_shows_each_boards_sensing_and_what_a_calibration_waits_for(open_app, app_broker,
                                                                                    tmp_path):
    calibrating = failed_black_step(tmp_path)
    assert calibrating["calibration"] == "black_stones" and calibrating["calibration_problem"].startswith(C7_MISSING)
    board_1, board_2 = BusClient(app_broker.config("board-1")), BusClient(app_broker.config("board-2"))
    board_1.set_status(firmware="1.0.0", **calibrating)  # validated against schemas/status.schema.json on send
    board_2.set_status(firmware="1.0.0", calibrated=True, sensing="color")
    board_1.start()
    board_2.start()
    try:
        at = open_app("views/system.py", app_broker)
        feed = services(at).feed
        assert feed.wait_for(lambda f: {p.client_id: p.details.get("calibration") for p in f.presence("board")}
                             == {"board-1": "black_stones", "board-2": None}, 10)
        at.run()
        no_exceptions(at)
        assert table(at, "sensing").to_dict("records") == [
            {"board": "board-1", "state": "online", "link": "ok", "sensing": "none yet",
             "calibration": "calibrating: black reference stones"},
            {"board": "board-2", "state": "online", "link": "ok", "sensing": "colour", "calibration": "calibrated"}]
        message = calibrating["calibration_message"]
        assert message.startswith(BLACK_ROW)
        assert [i.value for i in at.info] == [f"board-1: {message}"]
        assert [w.value for w in at.warning] == [f"board-1, calibration problem: {calibrating['calibration_problem']}"]

        board_1.set_status(calibrated=True, sensing="occupancy", calibration=None, calibration_message=None,
                           calibration_problem=None)  # given up: the empty baseline alone
        assert feed.wait_for(lambda f: all(p.details.get("sensing") for p in f.presence("board")), 10)
        at.run()
        no_exceptions(at)
        assert table(at, "sensing")["sensing"].tolist() == ["occupancy", "colour"]
        assert not at.info and not at.warning
    finally:
        board_1.stop()
        board_2.stop()


def test_an_admin_asks_a_board_to_recalibrate_from_the_health_panel(open_app, app_broker):
    """On loopback the dashboard acts as admin: the health panel of an online board offers
    "Recalibrate", and a click sends that board a board_command."""
    from gobuddy.bus import topics
    from tests.dashboard.test_sensor_health import edge_details
    from tests.mqtt_broker import Inbox

    board = BusClient(app_broker.config("board-1"))
    commands = Inbox()
    board.subscribe(topics.board_command("board-1"), commands)
    board.set_status(firmware="1.0.0", calibrated=True, sensing="occupancy", **edge_details())
    board.start()
    try:
        at = open_app("views/system.py", app_broker)
        feed = services(at).feed
        assert feed.wait_for(lambda f: any(p.details.get("health_levels") or p.details.get("calibrated")
                                           for p in f.presence("board")), 10)
        at.run()
        no_exceptions(at)
        (button,) = [b for b in at.button if b.label == "Recalibrate board-1"]
        button.click().run()
        no_exceptions(at)
        (received,) = commands.wait_for(1)
        assert (received.message.command, received.message.by) == ("recalibrate", "dashboard")
        assert any("Asked board-1 to recalibrate" in s.value for s in at.success)
    finally:
        board.stop()
