"""Calibration: baselines, stone levels, colour or occupancy sensing, and the store."""

from __future__ import annotations

import json

import numpy as np
import pytest

from edge.calibration.levels import Calibration, CalibrationError, CalibrationStore, Calibrator, check_apart
from edge.simulation.sensor_model import SensorModel, SensorModelConfig
from edge.simulation.simulator import calibrate
from gobuddy.go.coords import BLACK, WHITE, from_gtp

N = 81


def test_simulated_board_calibrates_for_colour() -> None:
    model = SensorModel(seed=1)
    cal = calibrate(model, t=0.0)
    expected = model.baseline() * model.ambient(0.0)
    assert np.allclose(cal.baseline, expected, rtol=0.02)
    assert cal.colour_sensing
    assert 0.18 < cal.black_level < 0.30 and 0.50 < cal.white_level < 0.65
    assert cal.stone_level == cal.white_level


def test_stones_of_nearly_one_level_mean_occupancy_sensing() -> None:
    model = SensorModel(SensorModelConfig(black=0.20, white=0.26), seed=2)
    cal = calibrate(model)
    assert not cal.colour_sensing
    assert cal.stone_level == pytest.approx(max(cal.black_level, cal.white_level))


def test_no_reference_stones_means_occupancy_sensing() -> None:
    cal = calibrate(SensorModel(seed=3), colour=False)
    assert not cal.colour_sensing and cal.black_level is None and cal.white_level is None
    assert cal.stone_level == 0.55


def test_a_dark_empty_point_is_named() -> None:
    c = Calibrator(9)
    readings = [600] * N
    readings[from_gtp("D4", 9)] = 12
    c.add_empty(readings)
    with pytest.raises(CalibrationError, match="darker than 40 at D4"):
        c.finish()


def test_a_reference_stone_that_is_not_there_is_named() -> None:
    c = Calibrator(9)
    c.add_empty([600] * N)
    readings = [600] * N
    readings[from_gtp("C3", 9)] = 120
    c.add_stones(readings, BLACK, [from_gtp("C3", 9), from_gtp("G7", 9)])
    with pytest.raises(CalibrationError, match="black reference stone at G7 reads 1.00"):
        c.finish()


def test_every_missing_reference_stone_is_named() -> None:
    c = Calibrator(9)
    c.add_empty([600] * N)
    readings = [600] * N
    readings[from_gtp("C3", 9)] = 330
    c.add_stones(readings, WHITE, [from_gtp(v, 9) for v in ("C3", "G3", "J3")])
    with pytest.raises(CalibrationError) as caught:
        c.finish()
    assert str(caught.value) == ("the white reference stones at G3, J3 read 1.00, 1.00 of the empty baseline: "
                                 "are they on their points?")
    assert caught.value.points == (from_gtp("G3", 9), from_gtp("J3", 9))


APART = [  # black ratios, white ratios (GTP: ratio of the empty baseline), the error or None, the points it names
    ("C7 .20 D7 .22", "C3 .55 D3 .57", None, ""),
    ("C7 .20 D7 .48", "C3 .55 D3 .57",
     "black and white stones are not told apart at D7 (black 0.48): black reads 0.34, white 0.56 of the empty "
     "board; set those stones on their points and keep hands off", "D7"),
    ("C7 .20 D7 .22", "C3 .30 D3 .56 E3 .58",
     "black and white stones are not told apart at C3 (white 0.30): black reads 0.21, white 0.56 of the empty "
     "board; set those stones on their points and keep hands off", "C3"),
    ("C7 .30 D7 .30", "C3 .36 D3 .36",
     "black and white stones read alike (black reads 0.30, white 0.36 of the empty board; colour sensing needs "
     "0.15 between them): this board senses occupancy only", ""),
    ("", "C3 .55", "colour sensing needs reference stones of both colours", ""),
]


@pytest.mark.parametrize("black, white, message, named", APART)
def test_black_and_white_must_read_apart(black: str, white: str, message: str | None, named: str) -> None:
    def ratios(text: str) -> dict[int, float]:
        words = text.split()
        return {from_gtp(v, 9): float(r) for v, r in zip(words[::2], words[1::2])}

    if message is None:
        check_apart(ratios(black), ratios(white), 0.15, 9)
        return
    with pytest.raises(CalibrationError) as caught:
        check_apart(ratios(black), ratios(white), 0.15, 9)
    assert str(caught.value) == message
    assert caught.value.points == tuple(from_gtp(v, 9) for v in named.split())


def test_colour_sensing_required_names_what_is_in_the_way() -> None:
    c = Calibrator(9)
    c.add_empty([500] * N)
    for colour, levels in ((BLACK, {"C7": 100, "D7": 240}), (WHITE, {"C3": 275, "D3": 285})):
        readings = [500] * N
        for v, r in levels.items():
            readings[from_gtp(v, 9)] = r
        c.add_stones(readings, colour, [from_gtp(v, 9) for v in levels])
    assert not c.finish().colour_sensing  # occupancy sensing when colour is merely wanted
    with pytest.raises(CalibrationError, match=r"not told apart at D7 \(black 0.48\)"):
        c.finish(require_colour=True)


@pytest.mark.parametrize("readings,message", [
    ([600] * 80, "80 readings, expected 81"),
    ([600] * 80 + [1024], "out of range 0..1023 at J1"),
])
def test_bad_frames_are_refused(readings: list[int], message: str) -> None:
    with pytest.raises(CalibrationError, match=message):
        Calibrator(9).add_empty(readings)


def test_nothing_to_calibrate_from() -> None:
    with pytest.raises(CalibrationError, match="no frame of the empty board"):
        Calibrator(9).finish()


def test_averaged_baseline_and_levels() -> None:
    c = Calibrator(9)
    c.add_empty([600] * N)
    c.add_empty([400] * N)
    stones = [500] * N
    stones[0], stones[1] = 100, 110  # A9, B9: black, 0.20 and 0.22 of 500
    c.add_stones(stones, BLACK, [0, 1])
    stones = [500] * N
    stones[2], stones[3] = 275, 280  # C9, D9: white, 0.55 and 0.56
    c.add_stones(stones, WHITE, [2, 3])
    cal = c.finish(created="2026-01-09T10:00")
    assert cal.baseline == (500.0,) * N
    assert cal.black_level == pytest.approx(0.21) and cal.white_level == pytest.approx(0.555)
    assert cal.colour_sensing and cal.spread == pytest.approx(0.01)
    assert cal.created == "2026-01-09T10:00"


def test_store_round_trip_and_redo(tmp_path) -> None:
    store = CalibrationStore(tmp_path)
    assert store.load("board-1") is None
    first = calibrate(SensorModel(seed=4))
    path = store.save("board-1", first)
    assert path == tmp_path / "calibration" / "board-1.json"
    assert store.load("board-1") == Calibration.from_json(json.loads(path.read_text()))
    assert store.load("board-1").baseline == pytest.approx(first.baseline, abs=1e-3)
    second = calibrate(SensorModel(seed=5), colour=False)  # redone on request
    store.save("board-1", second)
    assert not store.load("board-1").colour_sensing
    assert store.forget("board-1") and store.load("board-1") is None


def test_store_reports_unreadable_files(tmp_path) -> None:
    store = CalibrationStore(tmp_path)
    store.root.mkdir(parents=True)
    (store.root / "board-2.json").write_text("{not json")
    with pytest.raises(CalibrationError, match="board-2.json"):
        store.load("board-2")
    data = calibrate(SensorModel(seed=6)).to_json()
    del data["baseline"]
    (store.root / "board-3.json").write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match="field 'baseline' is missing"):
        store.load("board-3")


@pytest.mark.parametrize("board_id", ["../etc", "a/b", "", "board 1"])
def test_store_refuses_unsafe_board_ids(tmp_path, board_id: str) -> None:
    with pytest.raises(CalibrationError, match="not a usable board id"):
        CalibrationStore(tmp_path).path(board_id)


def test_calibration_checks_itself() -> None:
    with pytest.raises(CalibrationError, match="baseline has 3 values, expected 81"):
        Calibration(9, (1.0, 2.0, 3.0))
    with pytest.raises(CalibrationError, match="needs both"):
        Calibration(9, (500.0,) * N, black_level=0.2, colour_sensing=True)
