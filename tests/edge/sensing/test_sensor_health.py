"""Sensor health on the simulated board: noise and margins as the sensors are, a board
that is not the calibrated one named after a while (and a calibrated one never), the
light's alarm near its limits, and details that fit the status schema."""

from __future__ import annotations

import numpy as np

from edge.sensing.classify import Classifier, Frame
from edge.sensing.health import SensorHealth, hex_digits
from edge.simulation.sensor_model import SensorModel
from edge.simulation.simulator import calibrate
from gobuddy.bus.messages import Status


def follow(board: SensorModel, calibrated: SensorModel, seconds: float, light: float = 1.0) -> SensorHealth:
    cal = calibrate(calibrated)
    classifier, health = Classifier(cal), SensorHealth(cal)
    for k in range(int(seconds * 25)):
        readings = np.clip(board.read(k * 0.04, np.ones(81)) * light, 0, 1023).astype(int).tolist()
        health.update(readings, classifier.classify(Frame(k * 0.04, readings, k)), classifier)
    return health


def test_the_calibrated_board_is_healthy():
    model = SensorModel(seed=2)
    health = follow(model, model, 12.0)
    assert not health.mismatch and health.mismatch_message() is None
    assert health.ambient_alarm() is None and health.faults_message() is None
    noise = health.noise()
    assert 2 < np.median(noise) < 15  # the model's noise: 2.5 counts + 1% of ~520
    assert np.min(health.margin()) > 0.6
    details = health.details()
    Status(client_id="board-t1", role="board", state="online", reason="connected", ts=1767950000000,
           version="0.1.0", details={k: v for k, v in details.items() if v is not None}).validate()


def test_another_board_is_named_as_not_matching_its_calibration():
    health = follow(SensorModel(seed=9), SensorModel(seed=2), 12.0)
    assert health.mismatch
    message = health.mismatch_message()
    assert message.startswith("the board reads unlike its calibration at ") and "TURN DONE" in message


def test_light_near_a_limit_sounds_the_alarm():
    model = SensorModel(seed=2)
    bright = follow(model, model, 3.0, light=1.35)  # the brightest sensors near full scale
    assert bright.high < 1.45 and "full scale" in (bright.ambient_alarm() or "")
    dark = follow(model, model, 3.0, light=0.3)
    assert "shadows" in (dark.ambient_alarm() or "")


def test_hex_digits_clip():
    assert hex_digits([0, 255.4, 300, -5], 2) == "00FFFF00"
    assert hex_digits([1023, 4096], 3) == "3FFFFF"
