"""Benson's pass-alive chains and pass-alive territory, as a table of boards."""

from __future__ import annotations

import pytest

from gobuddy.go.coords import BLACK, WHITE, from_gtp, to_gtp
from gobuddy.go.pass_alive import pass_alive
from gobuddy.go.position import Position
from tests.engine_worker.test_gtp import DEAD_STONE
from tests.go.test_scoring import SEKI

TWO_EYES = DEAD_STONE  # walls with several eyes each, a black stone dead in white's eye at F3

ONE_EYE = """
. X . . . . .
X X . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
"""

TABLE = [
    # name, board, colour, a stone that is pass-alive (or ""), one that is not, dead stones
    ("walls with several eyes; a stone in white's eye", TWO_EYES, WHITE, "E7", "", ["F3"]),
    ("black's wall", TWO_EYES, BLACK, "B7", "", []),
    ("one eye is not enough", ONE_EYE, BLACK, "", "B7", []),
    ("seki chains are never pass-alive", SEKI, BLACK, "B7", "E7", []),
    ("nor the white one", SEKI, WHITE, "F7", "C7", []),
]


@pytest.mark.parametrize("name,board,colour,alive,not_alive,dead", TABLE, ids=[t[0] for t in TABLE])
def test_pass_alive(name, board, colour, alive, not_alive, dead):
    pos = Position.from_ascii(board)
    proved = pass_alive(pos, colour)
    if alive:
        assert from_gtp(alive, pos.size) in proved.stones
    if not_alive:
        assert from_gtp(not_alive, pos.size) not in proved.stones
    assert sorted(to_gtp(p, pos.size) for p in proved.dead) == dead
    assert proved.dead <= proved.territory


def test_empty_board_and_bad_colour():
    assert not pass_alive(Position(9), BLACK).stones
    with pytest.raises(ValueError):
        pass_alive(Position(9), 0)
