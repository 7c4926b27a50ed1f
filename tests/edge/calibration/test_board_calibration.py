"""The agent's side of calibration: a stored calibration, when a run starts, its CAL
commands (one refused), what it stores, and the status facts it gives."""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future

import numpy as np

from edge.calibration.board import BoardCalibration
from edge.calibration.levels import CalibrationStore
from edge.sensing.classify import Sighting
from edge.simulation.sensor_model import SensorModel
from edge.simulation.simulator import calibrate

MODEL = SensorModel(seed=11)
EMPTY = np.rint(MODEL.baseline()).astype(int).tolist()


class Agent:
    """What the agent gives ``BoardCalibration``: a board that records commands, a
    change counter."""

    def __init__(self, tmp_path, **options) -> None:
        self.sent: list[str] = []
        self.futures: list[Future] = []
        self.changes = 0
        self.now = 0.0
        self.cal = BoardCalibration("board-1", tmp_path, self.send, self.changed, threading.RLock(),
                                    logging.getLogger("test.calibration"), clock=lambda: self.now, **options)

    def send(self, command: str) -> Future:
        self.sent.append(command)
        self.futures.append(Future())
        return self.futures[-1]

    def changed(self) -> None:
        self.changes += 1


def test_a_stored_calibration_is_used_as_it_is(tmp_path, caplog) -> None:
    CalibrationStore(tmp_path).save("board-1", calibrate(MODEL, colour=False))
    with caplog.at_level(logging.WARNING):
        agent = Agent(tmp_path, colour=True)
    assert "the stored calibration senses occupancy only: hold TURN DONE" in caplog.text
    agent.cal.tick(0.0, True, 9)
    assert not agent.cal.active and agent.sent == [] and agent.cal.classifier is not None
    assert agent.cal.status() == {"calibrated": True, "sensing": "occupancy", "calibration": None,
                                  "calibration_message": None, "calibration_problem": None}


def test_with_none_stored_the_empty_board_is_measured_and_stored(tmp_path) -> None:
    agent = Agent(tmp_path)
    agent.cal.tick(0.0, False, 9)  # no board connected: nothing yet
    assert not agent.cal.active and agent.sent == []
    agent.cal.tick(0.0, True, 9)
    assert agent.cal.active and agent.cal.led() == "LED OFF" and agent.changes == 1
    assert agent.cal.status()["calibration"] == "empty_board"
    agent.cal.tick(0.1, True, 9)
    assert agent.sent == ["CAL 32"]
    agent.now = 0.2
    agent.futures[0].set_exception(TimeoutError("the reply to 'CAL 32' was lost"))
    agent.cal.tick(1.0, True, 9)
    assert agent.sent == ["CAL 32"]  # again only after retry_s
    agent.cal.tick(2.2, True, 9)
    assert agent.sent == ["CAL 32", "CAL 32"]
    agent.cal.on_caldata(EMPTY, 2.5)
    assert not agent.cal.active and agent.changes == 2
    stored = CalibrationStore(tmp_path).load("board-1")
    assert stored is not None and stored == agent.cal.calibration and not stored.colour_sensing
    assert agent.cal.status() == {"calibrated": True, "sensing": "occupancy", "calibration": None,
                                  "calibration_message": None, "calibration_problem": None}


def test_done_held_recalibrates_only_an_empty_board(tmp_path) -> None:
    CalibrationStore(tmp_path).save("board-1", calibrate(MODEL))
    agent = Agent(tmp_path)
    empty = Sighting(1.0, (0,) * 81)
    stone = Sighting(1.0, (0,) * 40 + (1,) + (0,) * 40)
    assert agent.cal.on_done(False, 1.0, empty) is False  # a short press is not for calibration
    assert agent.cal.on_done(True, 1.0, stone) is True
    agent.cal.tick(1.0, True, 9)
    assert not agent.cal.active
    assert agent.cal.on_done(True, 1.0, None) is True  # nothing read yet: refused too
    agent.cal.tick(1.0, True, 9)
    assert not agent.cal.active
    agent.cal.on_done(True, 1.0, empty)
    agent.cal.tick(1.0, True, 9)
    assert agent.cal.active
