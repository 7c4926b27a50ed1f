"""The ladder reader on its own: results, lines, breakers, and its bounds."""

from __future__ import annotations

import pytest

from gobuddy.explain.ladder import CAPTURED, ESCAPES, UNKNOWN, read_ladder
from gobuddy.go.coords import BLACK, GTP_COLUMNS, from_gtp, to_gtp
from gobuddy.go.position import Position


def board(size: int, black: str = "", white: str = "") -> Position:
    """A position from stone lists in GTP (an ASCII 19x19 board says less than its stones)."""
    rows = [["."] * size for _ in range(size)]
    for stones, mark in ((black, "X"), (white, "O")):
        for v in stones.split():
            rows[size - int(v[1:])][GTP_COLUMNS.index(v[0])] = mark
    return Position.from_ascii("\n".join(" ".join(r) for r in rows))


def after_atari(white_extra: str = "", black_extra: str = "") -> Position:
    """The classic start: white D4, black C4 D3 E3, black has just ataried at D5."""
    pos = board(19, f"C4 D3 E3 {black_extra}", f"D4 {white_extra}")
    pos.play(from_gtp("D5", 19), BLACK)
    return pos


def line(reading) -> str:
    return " ".join(to_gtp(p, 19) for p in reading.line)


def test_the_ladder_runs_to_the_far_corner_and_works() -> None:
    reading = read_ladder(after_atari(), from_gtp("D4", 19), attacker_to_move=False)
    assert reading.result == CAPTURED
    assert line(reading).startswith("E4 F4 E5 E6 F5 G5 F6 F7")
    assert reading.chases >= 25 and reading.breaker is None


@pytest.mark.parametrize("breaker", ["P15", "Q17", "G8", "K10"])
def test_a_white_stone_on_the_path_breaks_it_and_is_named(breaker: str) -> None:
    reading = read_ladder(after_atari(breaker), from_gtp("D4", 19), attacker_to_move=False)
    assert reading.result == ESCAPES
    assert to_gtp(reading.breaker, 19) == breaker
    assert reading.chases >= 5


def test_a_black_stone_on_the_path_keeps_it_working() -> None:
    reading = read_ladder(after_atari(black_extra="P15"), from_gtp("D4", 19), attacker_to_move=False)
    assert reading.result == CAPTURED


def test_a_white_stone_off_the_path_does_not_break_it() -> None:
    assert read_ladder(after_atari("C16"), from_gtp("D4", 19), attacker_to_move=False).result == CAPTURED


def test_escaping_by_capturing_a_chasing_stone() -> None:
    reading = read_ladder(after_atari("E7 E8"), from_gtp("D4", 19), attacker_to_move=False)
    assert reading.result == ESCAPES
    assert [to_gtp(p, 19) for p in reading.captures_at] == ["E6"]


def test_with_the_attacker_to_move() -> None:
    pos = board(19, "C4 D3 E3", "D4")
    reading = read_ladder(pos, from_gtp("D4", 19), attacker_to_move=True)
    assert reading.result == CAPTURED and to_gtp(reading.line[0], 19) == "D5"


def test_the_depth_bound_gives_unknown() -> None:
    reading = read_ladder(after_atari(), from_gtp("D4", 19), attacker_to_move=False, max_depth=10)
    assert reading.result == UNKNOWN and reading.line == ()


def test_the_node_budget_gives_unknown() -> None:
    reading = read_ladder(after_atari(), from_gtp("D4", 19), attacker_to_move=False, budget=5)
    assert reading.result == UNKNOWN


@pytest.mark.parametrize("attacker_to_move", [True, False])
def test_a_chain_with_too_many_liberties_is_no_ladder(attacker_to_move: bool) -> None:
    pos = board(9, "", "E5")
    assert read_ladder(pos, from_gtp("E5", 9), attacker_to_move).result == UNKNOWN


def test_an_empty_point_is_refused() -> None:
    with pytest.raises(ValueError):
        read_ladder(board(9), from_gtp("E5", 9), True)


def test_the_position_is_not_changed() -> None:
    pos = after_atari()
    text, seen = pos.to_ascii(), set(pos.seen)
    read_ladder(pos, from_gtp("D4", 19), attacker_to_move=False)
    assert pos.to_ascii() == text and pos.seen == seen
