"""Scenarios at the board: what players do, what the reconciler records or names.

Each scenario is (title, moves already played, steps); a step is a script for
``ScriptedBoard`` (X/O put stones, ``-`` takes them off, buttons, hands, waits) and the
events it must produce, described as short strings. The board is held still for 0.6 s
after each step, so every step ends on a settled board.
"""

from __future__ import annotations

import pytest

from edge.game import GameSettings, Mode
from edge.reading.reconcile import ReconcileConfig
from gobuddy.go.coords import WHITE, from_gtp
from tests.edge.scripted_board import ScriptedBoard

# B C5, W D5, B E5, W A1, B D6, W B1: black D4 will capture the white stone at D5.
CAPTURE = "C5 D5 E5 A1 D6 B1"
# B D6, W E6, B C5, W F5, B D4, W E4, B A9, W D5: black E5 takes a ko.
KO = "D6 E6 C5 F5 D4 E4 A9 D5"
# Black E5 and E6 surrounded but for F6: white F6 captures both; black may play E5 again.
ATARI2 = "E5 E4 E6 D5 A1 D6 A2 E7 A3 F5 A4"

SCENARIOS = [
    ("moves in turn", "", [
        ("X E5", ["move B E5"]),
        ("O C3", ["move W C3"]),
        ("X G7", ["move B G7"]),
    ]),
    ("a capture, its stone taken off seconds later", CAPTURE, [
        ("X D4", ["move B D4 x D5"]),
        ("wait 2", []),
        ("- D5", []),
        ("O E4", ["move W E4"]),
    ]),
    ("a capture taken off before the board settled", CAPTURE, [
        ("X D4; - D5", ["move B D4 x D5"]),
        ("O E4", ["move W E4"]),
    ]),
    ("captured stones still on the board at the next move", CAPTURE, [
        ("X D4", ["move B D4 x D5"]),
        ("O G3", ["problem captures_not_removed D5"]),
        ("- D5", ["cleared captures_not_removed", "move W G3"]),
        ("X G4", ["move B G4"]),
    ]),
    ("a stone played where a captured stone was taken off", CAPTURE, [
        ("X D4; - D5", ["move B D4 x D5"]),
        ("O A2", ["move W A2"]),
        ("X D5", ["move B D5"]),
    ]),
    ("wrong colour, then the right stone", "", [
        ("O E5", ["problem wrong_color E5"]),
        ("X E5", ["cleared wrong_color", "move B E5"]),
    ]),
    ("wrong colour because black forgot to pass", "E5", [
        ("X D4", ["problem wrong_color D4"]),
        ("pass", ["pass W", "cleared wrong_color", "move B D4"]),
    ]),
    ("two stones at once, one taken back", "", [
        ("X E5 F5", ["problem two_stones E5 F5"]),
        ("- F5", ["cleared two_stones", "move B E5"]),
    ]),
    ("both players too fast", "", [
        ("X E5; O C3", ["problem two_stones E5 C3"]),
        ("- C3", ["cleared two_stones", "move B E5"]),
        ("O C3", ["move W C3"]),
    ]),
    ("the next stone before the board settled: the board showed the order", "", [
        ("X E5; wait 0.25; O C3", ["move B E5", "move W C3"]),
    ]),
    ("... but not the other order", "", [
        ("O C3; wait 0.25; X E5", ["problem two_stones E5 C3"]),
    ]),
    ("a stone lifted and put back", "E5 C3 G7", [
        ("- E5", ["problem stone_lifted E5"]),
        ("X E5", ["cleared stone_lifted"]),
        ("O C7", ["move W C7"]),
    ]),
    ("a stone moved and put back", "E5 C3 G7", [
        ("- E5; X E6", ["problem stone_moved E5 E6"]),
        ("- E6; X E5", ["cleared stone_moved"]),
        ("O C7", ["move W C7"]),
    ]),
    ("suicide", "A2 E5 B1", [
        ("O A1", ["problem illegal_point A1"]),
        ("- A1", ["cleared illegal_point"]),
        ("O E4", ["move W E4"]),
    ]),
    ("ko: no retaking at once, retaking later", KO, [
        ("X E5; - D5", ["move B E5 x D5"]),
        ("O D5", ["problem ko D5"]),
        ("- D5", ["cleared ko"]),
        ("O A3", ["move W A3"]),
        ("X A2", ["move B A2"]),
        ("O D5; - E5", ["move W D5 x E5"]),
    ]),
    ("undo: the last stone lifted", "E5 C3", [
        ("- C3", ["undo W C3"]),
        ("O C4", ["move W C4"]),
    ]),
    ("undo of a move and the reply at once", "E5 C3 G7", [
        ("- G7; - C3", ["undo B G7", "undo W C3"]),
        ("O G3", ["move W G3"]),
    ]),
    ("undo of a capture: the captured stone must come back too", CAPTURE, [
        ("X D4; - D5", ["move B D4 x D5"]),
        ("- D4", ["problem stone_lifted D4"]),
        ("O D5", ["cleared stone_lifted", "undo B D4"]),
        ("X D4; - D5", ["move B D4 x D5"]),
    ]),
    ("undo button: the board must follow", "E5 C3", [
        ("undo", ["undo W C3", "problem board_mismatch C3"]),
        ("- C3", ["cleared board_mismatch"]),
        ("O D3", ["move W D3"]),
    ]),
    ("pass button", "E5", [
        ("pass", ["pass W"]),
        ("X D4", ["move B D4"]),
    ]),
    ("a pass pressed while the last stone settles waits for it", "E5", [
        ("O C3; wait 0.1; pass", ["move W C3", "pass B"]),
        ("O D3", ["move W D3"]),
    ]),
    ("hands over the board never make moves", "E5", [
        ("hand D4 D5 E4 2.5", []),
        ("flash O C3 0.2", []),
        ("hand O C3 / C4 D3 1.0", []),
        ("O C3", ["move W C3"]),
    ]),
    ("a reading that stays unclear is named, then clears", "E5", [
        ("hand O C3 / C4 4.0", ["problem unclear_reading C4", "cleared unclear_reading"]),
        ("O C3", ["move W C3"]),
    ]),
    ("a stone on a corner point counts only after a wait", "E5", [
        ("O A1", []),
        ("wait 1", ["move W A1"]),
    ]),
    ("a corner stone followed quickly by the next move", "E5", [
        ("O A1; wait 0.5; X C3", []),
        ("wait 0.5", ["move W A1", "move B C3"]),
    ]),
    ("a pass pressed while a corner stone waits", "E5", [
        ("O J9; wait 0.4; pass", []),
        ("wait 0.5", ["move W J9", "pass B"]),
    ]),
    ("end pressed as a stone lands: the stone counts first", "E5 C3", [
        ("X G7; end", ["move B G7", "end W+6"]),
    ]),
    ("end pressed while a corner stone waits", "E5", [
        ("O J1; wait 0.2; end", []),
        ("wait 1", ["move W J1", "end W+7"]),
    ]),
    ("end waits for the hand over the board: its stone counts", "E5", [
        ("hand C4 0.3; end; hand C4 0.3; O C3", ["move W C3", "end W+7"]),
    ]),
    ("a stone on a dead sensor: the next stone's colour tells it", "E5 C3", [
        ("mask G7", []),
        ("X G7", []),
        ("O C7", ["move B G7", "move W C7"]),
        ("X D4", ["move B D4"]),
    ]),
    ("a glint over two points: a difference waits for it to pass", "E5 C3", [
        ("mask G7 H7; O C7", []),
        ("wait 0.5", ["problem wrong_color C7"]),
    ]),
    ("a stone on a dead sensor that captures: the captures tell it", "C5 D5 E5 A1 D6 B1", [
        ("mask D4", []),
        ("X D4; - D5", ["move B D4 x D5"]),
        ("O E4", ["move W E4"]),
    ]),
    ("a stone on a dead sensor, then two stones in turn: the turn order tells it", "E5 C3", [
        ("mask G7", []),
        ("X G7", []),
        ("O C7; wait 0.25; X D4", ["move B G7", "move W C7", "move B D4"]),
    ]),
    ("two faulty sensors, one recovers: the one place left tells the hidden move", "E5 C3", [
        ("mask G7 H7; wait 1", []),
        ("X G7", []),
        ("O C7", ["problem wrong_color C7"]),
        ("unmask H7", ["cleared wrong_color", "move B G7", "move W C7"]),
    ]),
    ("captured stones taken off and one played again unseen (a reboot): the turn order tells it", ATARI2, [
        ("O F6", ["move W F6 x E6 E5"]),
        ("dark 1.5; - E6", []),
        ("O C3", ["move B E5", "move W C3"]),
    ]),
    ("... but seen all along, the stone left lying is named", ATARI2, [
        ("O F6", ["move W F6 x E6 E5"]),
        ("- E6", []),
        ("O C3", ["problem captures_not_removed E5"]),
    ]),
    ("a dead sensor next to a wrong colour: named, never guessed", "E5 C3", [
        ("mask G7 H7; wait 1", []),
        ("O C7", ["problem wrong_color C7"]),
        ("- C7; X C7", ["cleared wrong_color", "move B C7"]),
    ]),
]


@pytest.mark.parametrize("title,moves,steps", SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_scenario(title: str, moves: str, steps: list[tuple[str, list[str]]]) -> None:
    board = ScriptedBoard(moves)
    assert board.first == []
    for script, expected in steps:
        assert board.step(script) == expected, f"{title}: after {script!r}"


def test_captures_blink_until_taken_off() -> None:
    board = ScriptedBoard(CAPTURE)
    assert board.step("X D4", leds=True) == ["move B D4 x D5", "led blink D5"]
    assert board.rec.pending == (from_gtp("D5", 9),)
    assert board.step("- D5", leds=True) == ["led off"]


def test_problem_points_blink_and_go_dark_when_cleared() -> None:
    board = ScriptedBoard("")
    assert board.step("X E5 F5", leds=True) == ["problem two_stones E5 F5", "led blink E5 F5"]
    assert board.step("- E5 F5", leds=True) == ["cleared two_stones", "led off"]


@pytest.mark.parametrize("moves,script,message", [
    (CAPTURE, "X D4; wait 1; O G3", "remove the captured white stone at D5"),
    ("", "O E5", "a white stone was placed at E5, but it is black's turn"),
    ("", "X E5 F5", "2 stones appeared at once, at E5, F5: take back those that were not played, one move at a time"),
    ("", "X E5; O C3", "two stones appeared at once: take the white stone at C3 off until the black stone at E5 is recorded"),
    ("E5 C3 G7", "- E5", "the black stone at E5 was lifted: put it back"),
    ("E5 C3 G7", "- E5 C3", "the black stone at E5 and the white stone at C3 were lifted: put them back"),
    ("E5 C3 G7", "- E5; X E6", "the black stone at E5 moved to E6: put it back on E5"),
    ("E5 C3 G7", "- G7; X G6", "the black stone at G7 moved to G6: put it back on G7, or take it off to take the move back"),
    ("A2 E5 B1", "O A1", "white may not play A1: it would be suicide; take the stone back"),
    (KO + " E5", "- D5; O D5", "white may not retake the ko at D5 yet: take the stone back and play elsewhere first"),
    (CAPTURE, "X D4; - D5; wait 1; - D4",
     "the black stone at D4 was lifted: put it back, or to take the move back also put back the white stone at D5 it captured"),
])
def test_messages(moves: str, script: str, message: str) -> None:
    board = ScriptedBoard(moves)
    board.step(script)
    assert board.rec.problem is not None
    assert board.rec.problem.message == message


def test_new_game_on_a_board_still_holding_stones() -> None:
    board = ScriptedBoard(physical="""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . X X . . . .
        . . X O O X . . .
        . . X O X . . . .
        . . . X . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """)
    assert board.first == ["problem board_mismatch D6 E6 C5 D5 E5 F5 C4 D4 E4 D3"]
    assert board.rec.problem.message == (
        "set up the board for the new game: take off the 7 black stones at D6, E6, C5, F5, C4, E4, D3 "
        "and the 3 white stones at D5, E5, D4")
    board.step("- D6 E6 C5 D5 E5 F5 C4 D4 E4 D3")
    assert board.rec.problem is None
    assert board.step("X E5") == ["move B E5"]


def test_captures_not_removed_names_all_stones() -> None:
    board = ScriptedBoard("D6 D5 E6 E5 C5 D4 F5 A1 C4 B1 D3 A2")  # W D5 E5 D4 in atari at E4
    assert board.step("X E4") == ["move B E4 x D5 E5 D4"]
    board.step("O G3")
    assert board.rec.problem.message == "remove the 3 captured white stones at D5, E5, D4"


def test_hint_lights_until_the_position_changes() -> None:
    board = ScriptedBoard("E5", GameSettings(mode=Mode.HINTS_EVERY_MOVE))
    assert board.step("hint D4", leds=True) == ["led steady D4"]
    assert board.step("O D4", leds=True) == ["move W D4", "led off"]
    board.rec.show_hint(board.game.position.n - 1, board.game.move_number - 1)  # stale: ignored
    assert board.rec.led_pattern().mode == "off"


ENGINE = GameSettings(mode=Mode.VS_ENGINE, engine_color=WHITE)


def test_engine_stone_must_go_where_the_engine_said() -> None:
    board = ScriptedBoard("E5", ENGINE)
    assert board.step("O C3") == ["problem engine_stone_misplaced C3"]
    assert "before the engine chose its move" in board.rec.problem.message
    assert board.step("- C3") == ["cleared engine_stone_misplaced"]
    assert board.step("engine D4", leds=True) == ["led steady D4"]
    assert board.step("O C3") == ["problem engine_stone_misplaced C3 D4"]
    assert board.rec.problem.message == "engine stone placed at C3, expected D4: move it to D4"
    assert board.step("- C3; O D4") == ["cleared engine_stone_misplaced", "move W D4"]
    assert board.step("X F5") == ["move B F5"]


def test_engine_stone_placed_early_counts_once_the_engine_agrees() -> None:
    board = ScriptedBoard("E5", ENGINE)
    assert board.step("O D4") == ["problem engine_stone_misplaced D4"]
    assert board.step("engine D4") == ["cleared engine_stone_misplaced", "move W D4"]


def test_engine_pass_and_stale_answers() -> None:
    board = ScriptedBoard("E5", ENGINE)
    assert board.rec.expect_engine_move(30, board.game.move_number - 1) == []  # stale
    assert board.rec.press_pass() == []  # the human cannot pass for the engine
    assert board.step("engine pass") == ["pass W"]
    assert board.step("X D4") == ["move B D4"]


def test_handicap_stones_must_be_placed_first() -> None:
    board = ScriptedBoard(settings=GameSettings(handicap=2, komi=0.5), physical="." * 81)
    assert board.first == ["problem board_mismatch G7 C3"]
    assert board.rec.problem.message == "place the black handicap stones at G7, C3"
    assert board.step("X C3 G7") == ["cleared board_mismatch"]
    assert board.step("O E5") == ["move W E5"]


def test_occupancy_only_board_colours_follow_the_turn() -> None:
    board = ScriptedBoard(CAPTURE, occupancy=True)
    assert board.step("# D4") == ["move B D4 x D5"]
    assert board.step("- D5") == []
    assert board.step("# E4") == ["move W E4"]
    assert board.step("# F4 F5") == ["problem two_stones F5 F4"]
    assert board.step("- F5") == ["cleared two_stones", "move B F4"]
    assert board.step("- F4") == ["undo B F4"]


def test_no_corner_wait_when_configured_off() -> None:
    board = ScriptedBoard("E5", config=ReconcileConfig(corner_wait_s=0))
    assert board.step("O A1") == ["move W A1"]


def test_game_end_stops_reading() -> None:
    board = ScriptedBoard("E5 pass")
    assert board.step("pass") == ["pass B"]
    assert board.game.both_passed()
    assert [e.result for e in board.rec.end()[:1]] == ["B+74"]
    assert board.step("X D4") == []
