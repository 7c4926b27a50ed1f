"""Area scoring as a table: board, komi, dead stones -> black, white, neutral, result."""

from __future__ import annotations

import random

import numpy as np
import pytest

from gobuddy.go.coords import from_gtp
from gobuddy.go.playout import play_out
from gobuddy.go.position import Position
from gobuddy.go.scoring import Score, area_score, ownership, result_string, tromp_taylor_margin

WALL = """
. X O . .
. X O . .
. X O . .
. X O . .
. X O . .
"""

DAME = """
X X . O O
X X . O O
X X . O O
X X . O O
X X . O O
"""

DEAD_BLACK_STONE = """
. X O . .
. X O . .
. X O X .
. X O . .
. X O . .
"""

# A seki with two shared liberties (D7, D6): the inner chains C7-C6-C5-D5 (white) and
# E7-E6-E5 (black) have only those two liberties, which touch nothing else, and
# whoever fills one ataris itself. The outer walls are alive with several eyes each.
SEKI = """
. X O . X O .
X X O . X O O
. X O O X O .
X X X X O O O
. X . X O . O
X X X X O O O
. X . X O . O
"""

# Eye against eye with one shared liberty (D7): black's inner chain (B7 ... C6) has
# the eye A7, white's inner chain (E7 ... G6) the eye G7; filling D7 is self-atari for
# either side. Each eye counts for its owner, D7 for nobody.
SEKI_WITH_EYES = """
. X X . O O .
X X X O O O O
O O O X X X X
. O O X X . X
O O O X X X X
. O O X X . X
O O O X X X X
"""

TABLE = [
    # name, board, komi, dead (GTP), black, white, neutral, result
    ("territory", WALL, 0, [], 10, 15, 0, "W+5"),
    ("territory komi 7", WALL, 7, [], 10, 15, 0, "W+12"),
    ("dame is neutral: jigo", DAME, 0, [], 10, 10, 5, "0"),
    ("dame, komi 0.5", DAME, 0.5, [], 10, 10, 5, "W+0.5"),
    ("dame, negative komi", DAME, -2, [], 10, 10, 5, "B+2"),
    ("stone not marked dead spoils territory", DEAD_BLACK_STONE, 0, [], 11, 5, 9, "B+6"),
    ("dead stone counts for the other side", DEAD_BLACK_STONE, 0, ["D3"], 10, 15, 0, "W+5"),
    ("seki liberties neutral, stones count", SEKI, 7, [], 25, 22, 2, "W+4"),
    ("seki komi 0", SEKI, 0, [], 25, 22, 2, "B+3"),
    ("seki komi 3 is jigo", SEKI, 3, [], 25, 22, 2, "0"),
    ("seki komi 6.5", SEKI, 6.5, [], 25, 22, 2, "W+3.5"),
    ("eyes in a seki count for their owner", SEKI_WITH_EYES, 0, [], 26, 22, 1, "B+4"),
    ("seki with eyes, komi 4 is jigo", SEKI_WITH_EYES, 4, [], 26, 22, 1, "0"),
    ("seki with eyes, komi 7", SEKI_WITH_EYES, 7, [], 26, 22, 1, "W+3"),
    ("Tromp-Taylor: empty 9x9, komi 7", ("." * 9 + "\n") * 9, 7, [], 0, 0, 81, "W+7"),
    ("empty 9x9, komi 0", ("." * 9 + "\n") * 9, 0, [], 0, 0, 81, "0"),
]


@pytest.mark.parametrize("name,board,komi,dead,black,white,neutral,result", TABLE,
                         ids=[row[0] for row in TABLE])
def test_area_score(name, board, komi, dead, black, white, neutral, result):
    pos = Position.from_ascii(board)
    points = [from_gtp(v, pos.size) for v in dead]
    score = area_score(pos, komi, points)
    assert (score.black, score.white, score.neutral) == (black, white, neutral)
    assert score.result == result
    assert score.margin == black - white - komi
    if not dead:
        assert tromp_taylor_margin(pos, komi) == score.margin


def test_ownership_marks_stones_territory_and_dame():
    pos = Position.from_ascii(DAME)
    own = ownership(pos)
    assert own.dtype == np.int8 and own.shape == (25,)
    assert own.reshape(5, 5).tolist() == [[1, 1, 0, -1, -1]] * 5
    dead = ownership(Position.from_ascii(DEAD_BLACK_STONE), [from_gtp("D3", 5)])
    assert dead.reshape(5, 5)[:, 3:].tolist() == [[-1, -1]] * 5


@pytest.mark.parametrize("margin,text", [
    (3.5, "B+3.5"), (-0.5, "W+0.5"), (0, "0"), (0.0, "0"), (12.0, "B+12"), (-7, "W+7"),
    (361.5, "B+361.5"), (-0.25, "W+0.25"),
])
def test_result_string(margin, text):
    assert result_string(margin) == text


def test_score_winner():
    assert Score(10, 5, 7.0, 0).winner == -1
    assert Score(10, 5, 0.0, 0).winner == 1
    assert Score(10, 5, 5.0, 0).winner == 0


@pytest.mark.parametrize("dead,message", [(["A1"], "A1 holds no stone"), ([99], "not on a 5x5")])
def test_bad_dead_points_are_named(dead, message):
    pos = Position.from_ascii(WALL)
    points = [from_gtp(v, 5) if isinstance(v, str) else v for v in dead]
    with pytest.raises(ValueError, match=message):
        area_score(pos, 7, points)


@pytest.mark.parametrize("size", [9, 13, 19])
def test_fast_margin_matches_area_score_on_playout_ends(size):
    rng = random.Random(size)
    for _ in range(20):
        pos = Position(size, superko=False)
        play_out(pos, rng, max_moves=rng.randrange(10, 4 * size * size))
        assert tromp_taylor_margin(pos, 6.5) == area_score(pos, 6.5).margin
