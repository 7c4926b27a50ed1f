"""The calibration procedure step by step, on simulated sensors: what the board asks for
(step, LEDs), what a person does, and what comes out.

``Bench`` is a person at a simulated board (``SensorModel``: per-point gain, lamp tilt,
noise, drift) with the procedure the agent runs: ``do`` puts stones (``X``/``O`` and GTP
points, ``leak`` for a stone set off its point) or takes them off (``-``), ``done`` and
``hold`` are TURN DONE pressed briefly or held, and a ``CAL`` is answered with the
average of 8 frames, as the firmware would.
"""

from __future__ import annotations

import numpy as np
import pytest

from edge.calibration.levels import Calibrator
from edge.calibration.procedure import (BLACK_STONES, CLEAR_BOARD, EMPTY_BOARD, WHITE_STONES, CalibrationProcedure,
                                        reference_points)
from edge.sensing.classify import Classifier, Frame
from edge.simulation.sensor_model import SensorModel, SensorModelConfig
from edge.simulation.simulator import calibrate
from gobuddy.go.coords import BLACK, WHITE, from_gtp, to_gtp

ROW7 = "A7 B7 C7 D7 E7 F7 G7 H7 J7"
ROW3 = "A3 B3 C3 D3 E3 F3 G3 H3 J3"


class Bench:
    def __init__(self, seed: int = 1, colour: bool = True, config: SensorModelConfig = SensorModelConfig(),
                 **options) -> None:
        self.model = SensorModel(config, seed=seed)
        self.transmission = np.ones(self.model.n)
        self.now = 100.0
        self.proc = CalibrationProcedure(9, colour=colour, settle_s=0.5, retry_s=2.0, **options)
        self.proc.start(self.now)

    def do(self, step: str, leak: float | None = None) -> None:
        head, *vertices = step.split()
        for v in vertices:
            p = from_gtp(v, 9)
            self.transmission[p] = 1.0 if head == "-" else self.model.stone({"X": BLACK, "O": WHITE}[head], leak)

    def frame(self) -> np.ndarray:
        return self.model.read(self.now, self.transmission)

    def measure(self) -> None:
        """Answer the CAL that is due now (one must be)."""
        assert self.proc.take_due(self.now) == "CAL 32"
        frames = [self.frame() for _ in range(8)]
        self.proc.on_caldata(np.rint(np.mean(frames, axis=0)).astype(int).tolist(), self.now)

    def wait(self, seconds: float) -> None:
        self.now += seconds

    def done(self) -> None:
        """TURN DONE, then the measurement once the settle time is over."""
        self.proc.on_done(self.now)
        assert self.proc.take_due(self.now) is None, "measured before the hand was gone"
        assert not self.proc.prompt.waiting and self.proc.prompt.message.startswith("measuring the ")
        self.wait(0.5)
        self.measure()

    def shows(self) -> tuple[str | None, str, bool]:
        """(step, LED command, whether the step failed)."""
        prompt = self.proc.prompt
        return (prompt.step if prompt else None, self.proc.led(), bool(prompt and prompt.problem))


def blink(vertices: str) -> str:
    return f"LED BLINK {vertices}"


def test_reference_rows() -> None:
    refs = reference_points(9)
    assert [to_gtp(p, 9) for p in refs[BLACK]] == ROW7.split()
    assert [to_gtp(p, 9) for p in refs[WHITE]] == ROW3.split()
    assert reference_points(5) == {BLACK: (0, 1, 2, 3, 4), WHITE: (20, 21, 22, 23, 24)}


def test_occupancy_sensing_measures_the_empty_board_only() -> None:
    bench = Bench(colour=False)
    assert bench.shows() == (EMPTY_BOARD, "LED OFF", False)
    bench.measure()
    cal = bench.proc.ready
    assert bench.proc.finished and bench.proc.prompt is None
    assert cal is not None and not cal.colour_sensing and cal.black_level is None
    assert np.allclose(cal.baseline, bench.model.baseline() * bench.model.ambient(bench.now), rtol=0.03)


def test_colour_sensing_step_by_step() -> None:
    bench = Bench()
    bench.measure()
    assert bench.shows() == (BLACK_STONES, blink(ROW7), False)
    assert bench.proc.prompt.message == ("lay a black stone on each point of row 7 (A7 to J7), then press TURN DONE")
    assert bench.proc.take_due(bench.now + 60) is None  # nothing is measured before TURN DONE
    bench.do(f"X {ROW7}")
    bench.done()
    assert bench.shows() == (WHITE_STONES, blink(ROW3), False)
    assert bench.proc.prompt.message.endswith("then press TURN DONE; the black stones may stay")
    bench.wait(20.0)  # the light drifts meanwhile
    bench.do(f"O {ROW3}")
    bench.done()
    cal = bench.proc.ready
    assert cal is not None and cal.colour_sensing
    assert 0.18 < cal.black_level < 0.30 and 0.50 < cal.white_level < 0.62
    assert bench.shows() == (CLEAR_BOARD, blink("A7 B7 C7 D7 E7 F7 G7 H7 J7 A3 B3 C3 D3 E3 F3 G3"), False)

    # Clearing, read with the new calibration: the LEDs blink what is left, then it is over.
    classifier, t = Classifier(cal), 0.0

    def frames(seconds: float) -> None:
        nonlocal t
        for _ in range(round(seconds * 25)):
            t += 0.04
            bench.proc.on_sighting(classifier.classify(Frame(t, bench.frame().tolist())))

    frames(1.0)
    assert bench.shows()[1] == blink("A7 B7 C7 D7 E7 F7 G7 H7 J7 A3 B3 C3 D3 E3 F3 G3")
    bench.do(f"- {ROW7} A3 B3 C3 D3 E3 F3 G3")
    frames(1.0)
    assert bench.shows() == (CLEAR_BOARD, blink("H3 J3"), False)
    assert bench.proc.prompt.message == "calibrated for colour sensing: take the stones off H3, J3"
    bench.do("- H3 J3")
    frames(1.0)
    assert bench.proc.finished and bench.shows() == (None, "LED OFF", False)


def test_missing_stones_are_named_and_blink() -> None:
    bench = Bench(seed=2)
    bench.measure()
    bench.do("X A7 B7 D7 E7 F7 H7 J7")  # C7 and G7 forgotten
    bench.done()
    assert bench.shows() == (BLACK_STONES, blink("C7 G7"), True)
    prompt = bench.proc.prompt
    assert prompt.problem.startswith("the black reference stones at C7, G7 read ")
    assert prompt.problem.endswith(" of the empty baseline: are they on their points?")
    assert prompt.message == ("lay a black stone on each point of row 7 (A7 to J7), then press TURN DONE; "
                              "or hold TURN DONE to go on without colour sensing")
    bench.do("X C7 G7")
    bench.done()
    assert bench.shows() == (WHITE_STONES, blink(ROW3), False)
    bench.do("O A3 B3 C3 D3 E3 F3 G3 H3")  # J3 forgotten
    bench.done()
    assert bench.shows() == (WHITE_STONES, blink("J3"), True)
    bench.do("O J3")
    bench.done()
    assert bench.proc.ready is not None and bench.proc.ready.colour_sensing


def test_colours_not_apart_name_the_stone_and_start_over_from_black() -> None:
    bench = Bench(seed=3)
    bench.measure()
    bench.do(f"X {ROW7}")
    bench.do("X E7", leak=0.45)  # set far off its point: lets half the light past
    bench.done()
    assert bench.shows() == (WHITE_STONES, blink(ROW3), False)
    bench.do(f"O {ROW3}")
    bench.done()
    assert bench.shows() == (BLACK_STONES, blink("E7"), True)
    assert bench.proc.prompt.problem.startswith("black and white stones are not told apart at E7 (black 0.5")
    assert bench.proc.prompt.problem.endswith("of the empty board; set those stones on their points and keep "
                                              "hands off")
    assert bench.proc.prompt.message == (
        "measure both colours again: lay a black stone on each point of row 7 (A7 to J7), then press TURN DONE, "
        "then the white ones; or hold TURN DONE to go on without colour sensing")
    assert bench.proc.ready is None
    bench.do("- E7")
    bench.do("X E7", leak=0.0)
    bench.done()
    assert bench.shows() == (WHITE_STONES, blink(ROW3), False)
    bench.done()  # the white stones are still there
    assert bench.proc.ready is not None and bench.proc.ready.colour_sensing


def test_hardware_that_cannot_tell_colours_goes_on_with_occupancy_sensing() -> None:
    bench = Bench(seed=4, config=SensorModelConfig(black=0.30, white=0.36))
    bench.measure()
    bench.do(f"X {ROW7}")
    bench.done()
    bench.do(f"O {ROW3}")
    bench.done()
    assert bench.shows() == (BLACK_STONES, "LED PROBLEM", True)
    assert bench.proc.prompt.problem.startswith("black and white stones read alike (black reads 0.3")
    assert bench.proc.prompt.problem.endswith("colour sensing needs 0.15 between them): this board senses "
                                              "occupancy only")
    bench.proc.on_hold(bench.now)
    cal = bench.proc.ready
    assert bench.proc.finished and cal is not None and not cal.colour_sensing and cal.black_level is None


def test_giving_up_keeps_the_calibration_in_use() -> None:
    previous = calibrate(SensorModel(seed=5))
    bench = Bench(seed=5, previous=previous)
    bench.measure()
    bench.proc.on_hold(bench.now)
    assert bench.proc.finished and bench.proc.ready is previous


def test_a_failing_recalibration_of_the_empty_board_can_be_given_up() -> None:
    previous = calibrate(SensorModel(seed=5))
    bench = Bench(seed=5, previous=previous)
    assert bench.proc.take_due(bench.now) == "CAL 32"
    readings = bench.frame().tolist()
    readings[from_gtp("E5", 9)] = 3
    bench.proc.on_caldata(readings, bench.now)
    assert bench.proc.prompt.message == ("clear the board: measuring it again in 6 s; or hold TURN DONE to keep the "
                                         "calibration in use")
    bench.proc.on_hold(bench.now)
    assert bench.proc.finished and bench.proc.ready is previous


def test_with_nothing_to_fall_back_on_the_empty_board_step_cannot_be_given_up() -> None:
    bench = Bench(seed=5)
    bench.proc.on_hold(bench.now)
    assert not bench.proc.finished and bench.proc.take_due(bench.now) == "CAL 32"


def test_a_dark_empty_board_is_measured_again_later() -> None:
    bench = Bench(seed=6)
    bench.do("X D4")
    assert bench.proc.take_due(bench.now) == "CAL 32"
    readings = bench.frame().tolist()
    readings[from_gtp("D4", 9)] = 12
    bench.proc.on_caldata(readings, bench.now)
    assert bench.shows() == (EMPTY_BOARD, blink("D4"), True)
    assert bench.proc.prompt.problem == ("the empty board reads darker than 40 at D4: is something on the board, "
                                         "or a sensor broken?")
    assert bench.proc.prompt.message == "clear the board: measuring it again in 6 s"
    assert bench.proc.take_due(bench.now + 5.9) is None
    bench.do("- D4")
    bench.wait(6.0)
    bench.measure()
    assert bench.shows() == (BLACK_STONES, blink(ROW7), False)


def test_a_lost_cal_is_sent_again_and_stray_caldata_is_ignored() -> None:
    bench = Bench(seed=7)
    assert bench.proc.take_due(bench.now) == "CAL 32"
    assert bench.proc.take_due(bench.now + 1) is None  # one at a time
    bench.proc.on_failed(bench.now)  # the board rebooted, its CAL is lost
    assert bench.proc.take_due(bench.now + 1.9) is None
    bench.wait(2.0)
    bench.measure()
    assert bench.proc.step == BLACK_STONES
    bench.proc.on_caldata(bench.frame().tolist(), bench.now)  # nobody asked: nothing happens
    assert bench.shows() == (BLACK_STONES, blink(ROW7), False)


def test_refuses_a_cal_the_firmware_cannot_do() -> None:
    with pytest.raises(ValueError, match="scans must be 1..64"):
        CalibrationProcedure(9, colour=True, scans=65)


def test_calibrator_levels_follow_a_change_of_light() -> None:
    """Reference frames taken in 10% less light than the empty board read the same levels."""
    model = SensorModel(seed=8)
    cal = Calibrator(9)
    cal.add_empty(np.rint(model.baseline()).astype(int).tolist())
    for colour, level in ((BLACK, 0.2), (WHITE, 0.55)):
        points = reference_points(9)[colour]
        frame = model.baseline() * 0.9
        frame[list(points)] *= level
        cal.add_stones(np.rint(frame).astype(int).tolist(), colour, points)
    result = cal.finish()
    assert result.black_level == pytest.approx(0.2, abs=0.005)
    assert result.white_level == pytest.approx(0.55, abs=0.005)
