"""The System page's sensor health: the edge's status details decoded (and refused
whole when malformed), the table weakest first, the heat map, the alarms in words; and
the page rendering them (AppTest)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.sensor_health import board_health, margin_figure, point_rows
from dashboard.views.system import link_alarm, link_state
from edge.sensing.classify import Classifier, Frame
from edge.sensing.health import SensorHealth
from edge.simulation.sensor_model import SensorModel
from edge.simulation.simulator import calibrate


def edge_details(seed: int = 3, frames: int = 60) -> dict[str, Any]:
    """What a real edge agent's SensorHealth puts in its status after ``frames`` frames."""
    model = SensorModel(seed=seed)
    cal = calibrate(model)
    classifier, health = Classifier(cal), SensorHealth(cal)
    for k in range(frames):
        readings = model.read(k * 0.04, np.ones(81)).tolist()
        frame = Frame(k * 0.04, readings, k)
        health.update(readings, classifier.classify(frame), classifier)
    health.note_unclear([40, 40])
    return {k: v for k, v in health.details().items() if v is not None}


def test_the_edge_details_decode():
    details = edge_details()
    health = board_health(details)
    assert health is not None and health.size == 9
    assert health.unclear[40] == 2 and health.ambient is not None and 0.8 < health.ambient < 1.2
    assert health.black is not None and health.white is not None and health.black < health.white
    assert all(-10 < d < 10 for d in health.drift_pct)
    assert health.alarms == ()


@pytest.mark.parametrize("key, value", [
    ("health_noise", "0"), ("health_reading", "XYZ" * 81), ("health_margin", "00" * 80), ("health_levels", 7),
])
def test_malformed_health_is_dropped_whole(key, value):
    details = edge_details()
    details[key] = value
    health = board_health(details)
    assert health is None or key == "health_levels" and health.ambient is None


def test_rows_weakest_first_and_the_heat_map():
    details = edge_details()
    details["health_margin"] = "64" * 40 + "05" + "64" * 40  # E5 at 5%
    health = board_health(details)
    rows = point_rows(health, limit=3)
    assert rows[0]["point"] == "E5" and rows[0]["margin %"] == 5 and rows[0]["unclear"] == 2
    assert rows[0]["black"] < rows[0]["white"] < rows[0]["empty"]
    fig = margin_figure(health)
    assert fig.data[0].z.shape == (9, 9) and fig.data[0].z[4][4] == 5


def test_alarms_in_words():
    details = {**edge_details(), "link_problem": "board_silent", "link_message": "no frame for 3.2 s",
               "sensor_faults": "E5 reads no light"}
    health = board_health(details)
    assert health.alarms[0].startswith("board_silent: the board sends no frames (no frame for 3.2 s)")
    assert "E5 reads no light" in health.alarms
    assert link_state(True, details) == "board_silent" and link_state(False, details) == "—"
    assert link_alarm(details).startswith("board_silent")


def _page(details) -> None:  # AppTest runs its source alone: no annotations from this module
    from dashboard.live_feed import Presence
    from dashboard.views.system import render_health

    render_health([Presence("board-kitchen", "board", "online", "connected", 0, details, 0)])


def test_the_page_shows_the_health_of_a_board():
    details = {**edge_details(), "calibration_mismatch": "the board reads unlike its calibration at E5: recalibrate"}
    at = AppTest.from_function(_page, args=(details,)).run(timeout=30)
    assert not at.exception
    assert any("unlike its calibration" in e.value for e in at.error)
    assert any("hold TURN DONE" in i.value for i in at.info)
    assert at.dataframe[0].value.shape[0] == 81
