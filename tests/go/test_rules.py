"""The rules as tables: a board, moves in GTP, each move's verdict, the board after."""

from __future__ import annotations

import pytest

from gobuddy.go.coords import BLACK, WHITE, color_from_str, from_gtp, to_gtp
from gobuddy.go.game import Game, GameError, Ruleset
from gobuddy.go.handicap import (HandicapError, fixed_handicap_points, free_handicap_points,
                                 max_fixed_handicap)
from gobuddy.go.position import IllegalMove, Position


def board(text: str) -> str:
    return "\n".join(" ".join(line.split()) for line in text.strip().splitlines())


# name, start, moves ("B C3" legal; "W B3 ko": must be refused with that reason), after
CAPTURES = [
    ("single stone in the centre", """
        . . . . .
        . . X . .
        . X O X .
        . . . . .
        . . . . .""", ["B C2"], """
        . . . . .
        . . X . .
        . X . X .
        . . X . .
        . . . . ."""),
    ("two chains at once", """
        . X . X .
        X O . O X
        . X . X .
        . . . . .
        . . . . .""", ["B C4"], """
        . X . X .
        X . X . X
        . X . X .
        . . . . .
        . . . . ."""),
    ("last liberty on the edge", """
        . . . . .
        X . . . .
        O X . . .
        . . . . .
        . . . . .""", ["B A2"], """
        . . . . .
        X . . . .
        . X . . .
        X . . . .
        . . . . ."""),
    ("single stone in the corner", """
        . . . . .
        . . . . .
        . . . . .
        . . . . .
        O X . . .""", ["B A2"], """
        . . . . .
        . . . . .
        . . . . .
        X . . . .
        . X . . ."""),
    ("three stones in the corner", """
        . . . . .
        . . . . .
        . . . . .
        O X . . .
        O O X . .""", ["W E5", "B A3"], """
        . . . . O
        . . . . .
        X . . . .
        . X . . .
        . . X . ."""),
    ("a capture is not suicide", """
        . O X . .
        O X . . .
        . . . . .
        . . . . .
        . . . . .""", ["B A5"], """
        X . X . .
        O X . . .
        . . . . .
        . . . . .
        . . . . ."""),
    ("suicide of one stone", """
        . . . . .
        . . . . .
        . . . . .
        O . . . .
        . O . . .""", ["B A1 suicide", "B A2 occupied", "W A1"], """
        . . . . .
        . . . . .
        . . . . .
        O . . . .
        O O . . ."""),
    ("suicide of several stones", """
        . . . . .
        . . . . .
        . . . . .
        O O O . .
        . X O . .""", ["B A1 suicide"], None),
    ("suicide of a chain; the other side may play there", """
        . . . . .
        . . . . .
        O O O . .
        X X O . .
        . X O . .""", ["B A1 suicide", "W A1"], """
        . . . . .
        . . . . .
        O O O . .
        . . O . .
        O . O . ."""),
]


def _play_table(pos: Position, moves: list[str]) -> None:
    for entry in moves:
        words = entry.split()
        color, point = color_from_str(words[0]), from_gtp(words[1], pos.size)
        expected = words[2] if len(words) == 3 else None
        assert pos.illegal_reason(point, color) == expected, entry
        if expected is None:
            pos.play(point, color)
        else:
            with pytest.raises(IllegalMove, match=expected):
                pos.play(point, color)


@pytest.mark.parametrize("name,start,moves,after", CAPTURES, ids=[row[0] for row in CAPTURES])
def test_captures_and_suicide(name, start, moves, after):
    pos = Position.from_ascii(start)
    before = str(pos)
    _play_table(pos, moves)
    assert str(pos) == (board(after) if after else before)


KO = """
. . . . .
. X O . .
X O . O .
. X O . .
. . . . ."""


@pytest.mark.parametrize("superko", [True, False])
def test_simple_ko_forbids_the_immediate_recapture(superko):
    pos = Position.from_ascii(KO, superko=superko)
    _play_table(pos, ["B C3", "W B3 ko", "W E5", "B E1", "W B3", "B C3 ko"])
    assert pos.captures == {BLACK: 1, WHITE: 1}
    assert to_gtp(pos.ko, 5) == "C3"


# Sending two, returning one: W D2 takes one, B D3 takes two, and W D1 would bring
# back the start position (with the other side to move).
CYCLE = """
O . O O
X O O X
X X X .
X . X O"""


def _setup(text: str, superko: bool) -> Position:
    """``from_ascii`` with a superko history that starts at the finished setup (see
    ``test_from_ascii_history_holds_only_the_setup``)."""
    pos = Position.from_ascii(text, to_play=WHITE, superko=superko)
    pos.seen = {pos.hash}
    return pos


def test_positional_superko_forbids_what_simple_ko_allows():
    strict, simple = _setup(CYCLE, superko=True), _setup(CYCLE, superko=False)
    for pos in (strict, simple):
        _play_table(pos, ["W D2", "B D3"])
        assert pos.ko is None  # two stones were taken: no simple ko
    _play_table(strict, ["W D1 superko"])
    _play_table(simple, ["W D1"])
    assert str(simple) == board(CYCLE)


def test_from_ascii_history_holds_only_the_setup():
    pos = Position.from_ascii(CYCLE, to_play=WHITE, superko=True)
    _play_table(pos, ["W D2", "B D3"])  # B D3 recreates "all but D1", a half-done setup


@pytest.mark.parametrize("size,stones,expected", [
    (9, 2, "C3 G7"), (9, 4, "C3 G7 C7 G3"), (9, 5, "C3 G7 C7 G3 E5"),
    (9, 9, "C3 G7 C7 G3 C5 G5 E3 E7 E5"),
    (13, 3, "D4 K10 D10"), (13, 6, "D4 K10 D10 K4 D7 K7"), (13, 8, "D4 K10 D10 K4 D7 K7 G4 G10"),
    (19, 2, "D4 Q16"), (19, 3, "D4 Q16 D16"), (19, 4, "D4 Q16 D16 Q4"),
    (19, 5, "D4 Q16 D16 Q4 K10"), (19, 6, "D4 Q16 D16 Q4 D10 Q10"),
    (19, 7, "D4 Q16 D16 Q4 D10 Q10 K10"), (19, 8, "D4 Q16 D16 Q4 D10 Q10 K4 K16"),
    (19, 9, "D4 Q16 D16 Q4 D10 Q10 K4 K16 K10"),
    (7, 4, "C3 E5 C5 E3"), (10, 4, "C3 H8 C8 H3"),
])
def test_fixed_handicap_points(size, stones, expected):
    assert " ".join(to_gtp(p, size) for p in fixed_handicap_points(size, stones)) == expected


@pytest.mark.parametrize("size,stones,message", [
    (9, 1, "from 2 to 9"), (9, 10, "from 2 to 9"), (19, 0, "from 2 to 9"),
    (8, 5, "from 2 to 4"), (7, 5, "from 2 to 4"), (6, 2, "not defined on a 6x6"),
])
def test_invalid_handicap_is_named(size, stones, message):
    with pytest.raises(HandicapError, match=message):
        fixed_handicap_points(size, stones)


@pytest.mark.parametrize("size,stones,starts", [
    (9, 4, "C3 G7 C7 G3"), (9, 12, "C3 G7 C7 G3 C5 G5 E3 E7 E5"), (5, 3, "C3"), (2, 3, "B1"),
    (19, 30, "D4 Q16 D16 Q4 D10 Q10 K4 K16 K10"),
])
def test_free_handicap_points_spread_and_start_fixed(size, stones, starts):
    points = free_handicap_points(size, stones)
    assert len(points) == len(set(points)) == stones
    assert " ".join(to_gtp(p, size) for p in points).startswith(starts)
    assert points == free_handicap_points(size, stones)  # deterministic
    with pytest.raises(HandicapError, match=f"from 2 to {size * size - 1}"):
        free_handicap_points(size, size * size)


def test_max_fixed_handicap():
    assert [max_fixed_handicap(s) for s in (5, 7, 8, 9, 12, 13, 19, 25)] == [0, 4, 4, 9, 4, 9, 9, 9]


def test_undo_replays_captures_and_counts():
    game = Game(5, Ruleset("chinese", 0.5))
    for color, vertex in [(BLACK, "B1"), (WHITE, "A1"), (BLACK, "A2")]:
        game.play(from_gtp(vertex, 5), color)
    assert game.position.board[from_gtp("A1", 5)] == 0 and game.position.captures[BLACK] == 1
    game.undo()
    assert game.position.board[from_gtp("A1", 5)] == WHITE and game.position.captures[BLACK] == 0
    assert game.position.to_play == BLACK
    game.undo()
    game.undo()
    assert game.position.hash == Position(5).hash and game.moves == []
    with pytest.raises(GameError, match="no move to undo"):
        game.undo()


def test_undo_restores_the_ko_ban_and_keeps_handicap():
    game = Game(5, Ruleset("chinese", 0.5, simple_ko=True), setup_black=(from_gtp("E5", 5), from_gtp("E1", 5)),
                first_to_play=WHITE, handicap=2)
    start = Position.from_ascii(KO)
    for p, v in enumerate(start.board):
        if v:
            game.play(p, v)
    game.play(from_gtp("C3", 5), BLACK)
    game.play(from_gtp("D5", 5), WHITE)
    game.undo()
    assert game.position.illegal_reason(from_gtp("B3", 5), WHITE) == "ko"
    while game.moves:
        game.undo()
    assert game.position.to_play == WHITE
    assert sorted(to_gtp(p, 5) for p, v in enumerate(game.position.board) if v) == ["E1", "E5"]
