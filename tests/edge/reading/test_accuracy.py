"""Whole games through the simulated board: the record must equal the game played.

Every game is played by hand on ``BoardSimulator``: per-point gains, ambient drift,
noise, hand shadows on the way in and out, stones off-centre, captures taken off late,
idle hands passing over the board, lost frames, passes as button presses. Time is
simulated, so a game of three minutes takes a fraction of a second. Seeds are fixed:
the suite is deterministic. ``bench/bench_edge_accuracy.py`` runs the same at scale.
"""

from __future__ import annotations

import numpy as np
import pytest

from edge.sensing.classify import Classifier, Frame
from edge.reading.problems import ProblemRaised
from edge.reading.reconcile import LedPattern, Reconciler
from edge.simulation.sensor_model import Hand, SensorModel, SensorModelConfig
from edge.simulation.simulator import BoardSimulator, Timing, calibrate, game_inputs, random_game
from gobuddy.go.coords import BLACK, WHITE, from_gtp
from gobuddy.go.game import Game, Played, Undone
from tests.edge.scripted_board import board_from_ascii


# Occupancy-only hardware: both stone colours take about the same light.
OCCUPANCY_HARDWARE = SensorModelConfig(black=0.30, white=0.36)


def play_simulated_game(seed: int, config: SensorModelConfig, references: bool,
                        colour: bool) -> tuple[list[int], Reconciler, list]:
    model = SensorModel(config, seed=seed)
    cal = calibrate(model, colour=references)
    assert cal.colour_sensing == colour
    moves = random_game(seed=seed, min_moves=60, max_moves=90)
    rec = Reconciler(Game(), Classifier(cal))
    events = rec.run(game_inputs(BoardSimulator(model, seed=seed), moves))
    return moves, rec, events


def check_game(seed: int, config: SensorModelConfig = SensorModelConfig(), references: bool = True,
               colour: bool = True) -> None:
    moves, rec, events = play_simulated_game(seed, config, references, colour)
    recorded = [point for _, point in rec.game.moves]
    assert recorded == moves, f"seed {seed}: the record differs from the game"
    stones = sum(1 for m in moves if m != 81)
    assert sum(isinstance(e, Played) and e.point != 81 for e in events) == stones, f"seed {seed}: a move was taken back"
    assert not any(isinstance(e, Undone) for e in events)
    assert [e for e in events if isinstance(e, ProblemRaised)] == [], f"seed {seed}: a needless problem"


@pytest.mark.parametrize("block", range(5))
def test_fifty_games_with_colour_sensing(block: int) -> None:
    for seed in range(1000 + 10 * block, 1010 + 10 * block):
        check_game(seed)


def test_games_on_occupancy_only_hardware() -> None:
    for seed in range(2000, 2006):
        check_game(seed, OCCUPANCY_HARDWARE, colour=False)


def test_games_calibrated_without_reference_stones() -> None:
    for seed in range(3000, 3004):
        check_game(seed, references=False, colour=False)


STILL_HANDS_BOARD = """
. X X O . . . . .
X . X O . O . . .
X X X O O . . . .
O O O . . . X . .
. . . . X X . X .
. . O . X . X X X
. O . O . X X . X
. . O . O X . X X
. . . O . X X X .
"""

# A hand held perfectly still for 2 s (longer than any settling time) over the
# mid-game board above: x, y in points from A9 (off the board below zero or past 8),
# the shadow's radius and depth. Black eyes at B8 and H3, white's at D6 and E1.
STILL_HANDS = [
    (1.0, 1.0, 1.0, 0.45),   # a small shadow right over black's eye at B8
    (1.0, 1.0, 2.0, 0.9),    # a deep wide one over it
    (7.0, 6.0, 1.2, 0.6),    # over black's eye at H3
    (3.0, 3.0, 1.2, 0.6),    # over white's area near D6
    (4.0, 8.5, 1.6, 0.75),   # beside white's eye at E1, half off the board
    (4.0, -0.8, 1.6, 0.9),   # off the top edge
    (-0.8, 5.0, 2.0, 0.9),   # off the left edge
    (4.0, 4.0, 2.5, 0.6),    # over the centre
]


@pytest.mark.parametrize("occupancy", [False, True])
@pytest.mark.parametrize("to_play", [BLACK, WHITE])
def test_hands_held_still_never_make_moves(occupancy: bool, to_play: int) -> None:
    stones = board_from_ascii(STILL_HANDS_BOARD)
    for x, y, radius, depth in STILL_HANDS:
        model = SensorModel(seed=3)
        cal = calibrate(model, colour=not occupancy)
        transmission = np.array([model.stone(c) if c else 1.0 for c in stones])
        game = Game(9, setup_black=tuple(p for p, c in enumerate(stones) if c == BLACK),
                    setup_white=tuple(p for p, c in enumerate(stones) if c == WHITE), first_to_play=to_play)
        rec = Reconciler(game, Classifier(cal))
        hand = Hand(x, y, radius, depth)
        events = []
        for k in range(175):  # 3 s quiet, 2 s hand, 2 s quiet
            events += rec.feed(Frame(k * 0.04, model.read(k * 0.04, transmission, hand if 75 <= k < 125 else None), k))
        moves = [e for e in events if isinstance(e, Played)]
        assert moves == [], f"hand at ({x}, {y}) r={radius} depth={depth} made {moves}"
        assert rec.problem is None


def test_a_stone_placed_under_a_wide_hand_is_one_move() -> None:
    model = SensorModel(seed=9)
    cal = calibrate(model)
    sim = BoardSimulator(model, seed=9)
    rec = Reconciler(Game(), Classifier(cal))
    rec.run(sim.idle(1.0))
    sim.timing = Timing(hand_radius=(2.5, 2.5), hand_depth=(0.7, 0.7))
    events = rec.run(sim.place(from_gtp("E5", 9), BLACK) + sim.idle(1.0))
    assert [e for e in events if not isinstance(e, LedPattern)] == [Played(1, BLACK, from_gtp("E5", 9))]
