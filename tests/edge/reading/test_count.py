"""The count at the end on the board, as the reconciler and the agent's count see it: END
(or the second pass, started by the agent) counts first; the stones counted dead blink;
the board is not read meanwhile; accepting ends the game with them lifted; going back to
playing takes back the pass that ended it; dead stones blink a stone of each group first."""

from __future__ import annotations

import pytest

from edge.end_count import blink_order
from gobuddy.go.coords import WHITE, from_gtp, to_gtp
from gobuddy.go.scoring import area_score
from tests.edge.scripted_board import ScriptedBoard, board_from_ascii


def counting_board(moves: str) -> ScriptedBoard:
    board = ScriptedBoard(moves)
    board.rec.count_first = True
    return board


# (title, moves before, steps: (script, expected events with LEDs))
SCENARIOS = [
    ("END counts first; the dead blink; accepting ends with them lifted", "E5 C4", [
        ("end", ["count"]),
        ("dead C4", ["led blink C4"]),
        ("X G7", []),  # the board is not read while the players look at the count
        ("- G7", []),
        ("accept", ["end B+74", "led off"]),
    ]),
    ("END, then back to playing: nothing to take back; the board is read again", "E5 C4", [
        ("end", ["count"]),
        ("dead C4", ["led blink C4"]),
        ("resume", ["led off"]),
        ("X G7", ["move B G7"]),
    ]),
    ("a stone lifted toggles its group: alive, put back (no change), lifted again: dead", "E5 C4 E4 C5", [
        ("end", ["count"]),
        ("dead C4 C5", ["led blink C5 C4"]),  # a stone of each dead group first
        ("- C4", ["count dead", "led off"]),  # alive now: nothing blinks
        ("O C4", []),  # put back: the group stays alive
        ("- C5", ["count dead C5 C4", "led blink C5 C4"]),
        ("O C5", []),
        ("- E4", ["count dead C5 E5 C4 E4", "led blink C5 E5 C4 E4"]),  # black's group, not proposed
        ("accept", ["end W+7", "led off"]),  # every stone counted dead: an empty board, komi decides
    ]),
    ("a single stone: lifted and put back toggles it; left off, it is off (dead)", "E5 C4 D5", [
        ("end", ["count"]),
        ("dead C4", ["led blink C4"]),
        ("- C4", []),
        ("O C4", ["count dead", "led off"]),  # back on its point: the lift toggled it alive
        ("- D5; wait 0.5; O D5", ["count dead D5 E5", "led blink D5 E5"]),  # black's D5 E5 toggled dead
        ("accept", ["end W+88", "led off"]),  # white's C4 alone owns the board
    ]),
    ("a group taken off whole counts dead, whatever the toggles (the Japanese way)", "E5 C4 E4 C5", [
        ("end", ["count"]),
        ("dead C4 C5", ["led blink C5 C4"]),
        ("- C4", ["count dead", "led off"]),  # the first stone off toggles it alive...
        ("- C5", ["count dead C5 C4", "led blink C5 C4"]),  # ...every stone off: dead
        ("X G7", []),  # a stone put down meanwhile is no move
        ("accept", ["end B+74", "led off"]),
    ]),
    ("a stone lifted while counting is read once play resumes (here: the last move taken back)", "E5 C4", [
        ("end", ["count"]),
        ("dead C4", ["led blink C4"]),
        ("- C4", []),  # toggled, but every stone of its group is off: still dead
        ("resume", ["undo W C4", "led off"]),
    ]),
]


@pytest.mark.parametrize("title, moves, steps", SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_scenario(title: str, moves: str, steps: list[tuple[str, list[str]]]) -> None:
    board = counting_board(moves)
    for script, expected in steps:
        assert board.step(script, leds=True) == expected, script


def test_after_two_passes_going_back_takes_the_last_pass_back() -> None:
    board = counting_board("E5 C4 pass pass")
    assert board.rec.start_count() and board.rec.counting == ()
    assert board.step("dead C4", leds=True) == ["led blink C4"]
    assert board.step("resume", leds=True) == ["undo W pass", "led off"]
    assert not board.game.both_passed() and board.game.to_play == WHITE
    assert board.step("O G3") == ["move W G3"]


def test_accepted_count_is_the_area_count_with_the_dead_lifted() -> None:
    board = counting_board("E5 C4 D4 D5")
    board.step("end; dead D5 C4")
    board.step("accept")
    dead = (from_gtp("D5", 9), from_gtp("C4", 9))
    assert board.game.result == area_score(board.game.position, 7.0, dead).result == "B+74"


def test_without_count_first_end_ends_at_once() -> None:
    board = ScriptedBoard("E5 C4")
    assert board.step("end") == ["end W+7"] and board.game.ended


def test_blink_order_points_at_every_group_first() -> None:
    board = board_from_ascii("""
        . . . . . . . . .
        . O O . . . . . .
        . O . . . . . . .
        . . . . . . X . .
        . . . . . . X X .
        . . . . . . . . .
        . . . . . O . . .
        . . . . . . . . .
        . . . . . . . . .""")
    dead = tuple(from_gtp(v, 9) for v in "B8 C8 B7 G6 G5 H5 F3".split())
    order = [to_gtp(p, 9) for p in blink_order(dead, tuple(board), 9)]
    assert order[:3] == ["B8", "G6", "F3"] and sorted(order) == sorted(to_gtp(p, 9) for p in dead)
