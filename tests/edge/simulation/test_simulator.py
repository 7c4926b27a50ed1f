"""The board stand-in: the light model, hands, timing, and the games that drive it."""

from __future__ import annotations

import os

import numpy as np
import pytest

from edge.sensing.classify import ButtonPress, Frame
from edge.simulation.sensor_model import Hand, SensorModel, SensorModelConfig
from edge.simulation.simulator import (BoardSimulator, RealTimePacer, SimulatedBoard, game_inputs, gnugo_game,
                            random_game)
from gobuddy.go.coords import BLACK, EMPTY, WHITE, from_gtp
from gobuddy.go.position import Position

GNUGO = "/usr/games/gnugo"
E5 = from_gtp("E5", 9)


def test_readings_follow_the_light_model() -> None:
    model = SensorModel(seed=1)
    empty = np.ones(81)
    frames = np.array([model.read(0.0, empty) for _ in range(50)], dtype=float)
    assert frames.min() >= 0 and frames.max() <= 1023
    mean = frames.mean(axis=0)
    assert np.allclose(mean, model.baseline() * model.ambient(0.0), rtol=0.02)
    assert mean.std() / mean.mean() > 0.1  # points differ: gains and the lamp's tilt
    assert frames.std(axis=0).mean() == pytest.approx(2.5 + 0.01 * mean.mean(), rel=0.25)


def test_stone_levels_with_spread_and_leak() -> None:
    model = SensorModel(SensorModelConfig(stone_spread=0.0, max_leak=0.12), seed=2)
    assert model.stone(BLACK, leak=0.0) == pytest.approx(0.20)
    assert model.stone(WHITE, leak=0.1) == pytest.approx(0.55 * 0.9 + 0.1)
    blacks = [model.stone(BLACK) for _ in range(200)]
    assert 0.20 <= min(blacks) and max(blacks) <= 0.20 * 0.88 + 0.12 + 1e-9
    with pytest.raises(ValueError, match="not a colour"):
        model.stone(EMPTY)


def test_a_hand_shades_a_soft_disc() -> None:
    model = SensorModel(seed=3)
    shade = model.shadow(Hand(x=4.0, y=4.0, radius=1.5, depth=0.6))
    assert shade[E5] == pytest.approx(1 - 0.6 / (1 + np.exp(-1.5 / 0.35)))
    assert shade[from_gtp("E4", 9)] < 0.75 < shade[from_gtp("E3", 9)] < 0.95 < shade[from_gtp("E2", 9)]
    assert shade[from_gtp("A9", 9)] > 0.999
    assert np.all(model.shadow(None) == 1.0)


def test_ambient_drifts_slowly_within_bounds() -> None:
    model = SensorModel(seed=4)
    levels = [model.ambient(t) for t in np.arange(0, 600, 0.5)]
    assert 0.89 <= min(levels) and max(levels) <= 1.11
    assert max(abs(a - b) for a, b in zip(levels, levels[1:])) < 0.01


def test_frames_come_at_the_frame_rate_with_time_and_sequence() -> None:
    sim = BoardSimulator(SensorModel(seed=5), seed=5)
    frames = sim.idle(4.0)
    times = [f.t for f in frames]
    assert 95 <= len(frames) <= 100 and sim.t == pytest.approx(4.0)
    assert all(b > a for a, b in zip(times, times[1:]))
    assert frames[-1].seq == 100  # lost frames still use up their number
    assert all(isinstance(f, Frame) and len(f.readings) == 81 for f in frames)


def test_a_stone_placed_by_hand() -> None:
    model = SensorModel(seed=6)
    sim = BoardSimulator(model, seed=6)
    sim.idle(0.5)
    frames = sim.place(E5, WHITE)
    assert sim.colors[E5] == WHITE
    base = model.baseline()
    ratios = np.array([np.asarray(f.readings) / base for f in frames])
    d5 = from_gtp("E4", 9)  # the hand comes from white's side (the top), then leaves
    assert ratios[:, d5].min() < 0.9 < ratios[-1, d5]
    assert 0.45 < ratios[-1, E5] < 0.7


def test_captures_taken_off_later_by_the_capturing_side() -> None:
    sim = BoardSimulator(SensorModel(seed=7), seed=7)
    d5, d4 = from_gtp("D5", 9), from_gtp("D4", 9)
    sim.setup({d5: WHITE, from_gtp("C5", 9): BLACK, from_gtp("E5", 9): BLACK, from_gtp("D6", 9): BLACK})
    sim.play(d4, BLACK, [d5])
    assert sim.colors[d4] == BLACK and sim.colors[d5] == EMPTY


def test_random_games_are_legal_long_and_end_with_two_passes() -> None:
    moves = random_game(seed=11, min_moves=60, max_moves=90)
    assert moves == random_game(seed=11, min_moves=60, max_moves=90)
    pos = Position(9)
    for m in moves:
        pos.play(m)
    assert sum(m != 81 for m in moves) >= 60
    assert moves[-2:] == [81, 81] and 81 not in moves[-3:-2]


def test_game_inputs_show_every_move_and_press_pass() -> None:
    moves = [from_gtp(v, 9) for v in "E5 C3 pass G7 pass pass".split()]
    sim = BoardSimulator(SensorModel(seed=8), seed=8)
    inputs = list(game_inputs(sim, moves))
    presses = [i for i in inputs if isinstance(i, ButtonPress)]
    assert [p.button for p in presses] == ["pass"] * 3
    assert all(b.t >= a.t - 0.01 for a, b in zip(inputs, inputs[1:]))
    assert sim.board() == tuple(BLACK if p == moves[0] else WHITE if p in (moves[1], moves[3]) else EMPTY
                                for p in range(81))


@pytest.mark.skipif(not os.path.exists(GNUGO), reason="GNU Go is not installed")
def test_gnugo_plays_a_legal_game() -> None:
    moves = gnugo_game(seed=3, max_moves=30)
    pos = Position(9)
    for m in moves:
        pos.play(m)
    assert moves[-2:] == [81, 81] and len(moves) >= 10


def test_real_time_pacing_with_an_injected_clock() -> None:
    clock = [100.0]
    slept: list[float] = []

    def sleep(s: float) -> None:
        slept.append(round(s, 3))
        clock[0] += s

    items = [ButtonPress(t, "pass") for t in (5.0, 5.5, 5.5, 7.0)]
    out = list(SimulatedBoard(items, RealTimePacer(now=lambda: clock[0], sleep=sleep)).inputs())
    assert out == items and slept == [0.5, 1.5]
