"""The teacher on the board, as the reconciler and the teacher see it: a mistake blinks
its stone and the better point until the learner lifts the stone (taken back, kept as a
variation), presses TURN DONE or plays on (kept); which moves are judged, and how long
the engine's reply waits for a judgement."""

from __future__ import annotations

import pytest

from edge.game import GameSettings, Mode
from edge.journal.game_journal import GameLog
from edge.reading.led_pattern import LedPattern
from edge.teacher import LEVELS, Mistake, Teacher
from gobuddy.bus.messages import GameEvent, MoveJudgement, Tolerance
from gobuddy.go.coords import BLACK, WHITE, from_gtp
from gobuddy.go.game import TakenBack
from tests.edge.scripted_board import ScriptedBoard


def p(vertex: str) -> int:
    return from_gtp(vertex, 9)


# (title, moves before, steps: (script, expected events with LEDs))
SCENARIOS = [
    ("a mistake lifted is taken back; the better point is played", "E5 C4", [
        ("X B2", ["move B B2"]),
        ("mistake C3 6.5", ["led blink B2 C3"]),
        ("- B2", ["undo B B2", "taken_back B B2", "led off"]),
        ("X C3", ["move B C3"]),
    ]),
    ("a mistake kept with TURN DONE", "E5 C4", [
        ("X B2", ["move B B2"]),
        ("mistake C3 6.5", ["led blink B2 C3"]),
        ("done", ["kept B B2", "led off"]),
        ("done", []),
        ("O D4", ["move W D4"]),
    ]),
    ("the other player plays on: the mistake is kept", "E5", [
        ("O B2", ["move W B2"]),
        ("mistake - 3", ["led blink B2"]),
        ("X D4", ["kept W B2", "move B D4", "led off"]),
    ]),
    ("UNDO takes the mistake back too; the board is then set back", "E5 C4", [
        ("X B2", ["move B B2"]),
        ("mistake C3 6.5", ["led blink B2 C3"]),
        ("undo", ["undo B B2", "taken_back B B2", "problem board_mismatch B2", "led blink B2"]),
        ("- B2", ["cleared board_mismatch", "led off"]),
    ]),
    ("a mistake that captured: lifted, with the captured stone put back", "E5 D5 D4 pass C5 pass", [
        ("X D6; - D5", ["move B D6 x D5"]),
        ("mistake - 2", ["led blink D6"]),
        ("- D6; O D5", ["undo B D6", "taken_back B D6", "led off"]),
    ]),
    ("a pass keeps the mistake", "E5", [
        ("O B2", ["move W B2"]),
        ("mistake C3 4", ["led blink B2 C3"]),
        ("pass", ["kept W B2", "pass B", "led off"]),
    ]),
]


@pytest.mark.parametrize("title, moves, steps", SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_scenario(title: str, moves: str, steps: list[tuple[str, list[str]]]) -> None:
    board = ScriptedBoard(moves)
    for script, expected in steps:
        assert board.step(script, leds=True) == expected, script


def test_the_taken_back_move_is_kept_as_a_variation_with_its_loss() -> None:
    board = ScriptedBoard("E5 C4")
    board.step("X B2")
    board.step("mistake C3 6.5")
    board.step("- B2")
    assert board.game.variations == [TakenBack(3, BLACK, p("B2"), 6.5, p("C3"))]
    assert board.game.moves == [(BLACK, p("E5")), (WHITE, p("C4"))]


def test_a_mistake_not_about_the_last_move_is_not_shown() -> None:
    board = ScriptedBoard("E5 C4 B2")
    stale = Mistake(2, WHITE, p("C4"), p("D4"), 3.0, 0.1, "25 kyu")
    assert board.rec.show_mistake(stale) == []
    assert board.rec.mistake is None


def test_a_problem_blinks_before_the_mistake() -> None:
    board = ScriptedBoard("E5 C4")
    board.step("X B2")
    board.step("mistake C3 6.5")
    assert board.step("X G7", leds=True) == ["problem wrong_color G7", "led blink G7"]
    assert board.step("- G7", leds=True) == ["cleared wrong_color", "led blink B2 C3"]


def judgement(move: str, color: str, mistake: bool, best: str = "C3") -> MoveJudgement:
    return MoveJudgement(move=move, color=color, level="25 kyu", points_lost=6.5 if mistake else 0.5,
                         winrate_lost=0.2 if mistake else 0.01, best=best, winrate=0.4, score_lead=-2.0,
                         mistake=mistake, tolerance=Tolerance(points=4.0, winrate=0.1, safe_winrate=None), visits=200,
                         searched="candidate")


@pytest.mark.parametrize("moves, call, expected", [
    ("E5 C4 B2", judgement("B2", "B", True), Mistake(3, BLACK, from_gtp("B2", 9), from_gtp("C3", 9), 6.5, 0.2,
                                                     "25 kyu")),
    ("E5 C4 B2", judgement("B2", "B", True, best="pass"), Mistake(3, BLACK, from_gtp("B2", 9), None, 6.5, 0.2,
                                                                  "25 kyu")),
    ("E5 C4 B2", judgement("B2", "B", False), None),   # no mistake
    ("E5 C4 B2", judgement("C4", "W", True), None),    # about another move
    ("E5 C4 B2 D4", judgement("B2", "B", True), None),  # the board moved on
])
def test_mistake_of_a_judgement(moves: str, call: MoveJudgement, expected: Mistake | None) -> None:
    assert Mistake.of(call, ScriptedBoard(moves).game) == expected


# (settings, moves, judged?)
WHO = [
    (GameSettings(), "E5", True),                                        # two players: both learn
    (GameSettings(), "E5 C4", True),
    (GameSettings(), "E5 pass", False),                                  # a pass has no stone to lift
    (GameSettings(mode=Mode.VS_ENGINE, engine_color=WHITE), "E5", True),     # the person
    (GameSettings(mode=Mode.VS_ENGINE, engine_color=WHITE), "E5 C4", False),  # the engine
    (GameSettings(), "", False),
]


@pytest.mark.parametrize("settings, moves, judged", WHO)
def test_whose_moves_are_judged(settings: GameSettings, moves: str, judged: bool) -> None:
    game = ScriptedBoard(moves, settings).game
    assert (Teacher("25 kyu", 10.0).wants("g", game) is not None) == judged
    assert Teacher(None, 10.0).wants("g", game) is None  # no teacher: nothing judged


def test_a_judgement_out_holds_the_engine_until_it_comes_fails_or_is_too_late() -> None:
    game = ScriptedBoard("E5", GameSettings(mode=Mode.VS_ENGINE, engine_color=WHITE)).game
    teacher = Teacher("25 kyu", 10.0)
    key = teacher.wants("g", game)
    assert key is not None
    teacher.asked(key, "r1", now=100.0)
    assert teacher.wants("g", game) is None  # asked once
    assert teacher.holds("g", game, now=105.0)
    teacher.answered("r1")
    assert not teacher.holds("g", game, now=105.0) and teacher.wants("g", game) is None
    teacher.new_game()
    key = teacher.wants("g", game)
    teacher.asked(key, "r2", now=100.0)
    teacher.failed("r2")  # no worker: the move stands
    assert not teacher.holds("g", game, now=100.5) and teacher.failures == 1
    teacher.new_game()
    teacher.asked(teacher.wants("g", game), "r3", now=100.0)
    assert not teacher.holds("g", game, now=110.5)  # too late: the move stands
    assert teacher.wants("g", game) is None


def test_a_move_played_again_after_a_take_back_is_judged_again() -> None:
    board = ScriptedBoard("E5 C4")
    teacher = Teacher("25 kyu", 10.0)
    board.step("X B2")
    teacher.asked(teacher.wants("g", board.game), "r1")
    teacher.answered("r1")
    board.step("mistake C3 6.5")
    board.step("- B2")
    board.step("X B2")
    assert teacher.wants("g", board.game) is not None


def test_the_decisions_on_the_wire_and_the_journal_rebuilds_the_variation() -> None:
    board = ScriptedBoard()
    record = GameLog("board-1", "board-1-g", GameSettings(), board.game)
    events = [record.started()]
    for script in ("X E5", "O C4", "X B2", "mistake C3 6.5", "- B2", "X C3", "O G7", "mistake - 2", "done"):
        board.step(script)
        events += [record.wire(e) for e in board.events if not isinstance(e, LedPattern)]
    wire = [e.to_dict() for e in events]
    for payload in wire:
        GameEvent.from_dict(payload)  # valid on the wire
    teaching = [(e["type"], e.get("verdict"), e["move_number"], e["vertex"], e.get("points_lost"), e.get("better"))
                for e in wire if e["type"] in ("undo", "teaching")]
    assert teaching == [("undo", None, 3, "B2", None, None), ("teaching", "taken_back", 3, "B2", 6.5, "C3"),
                        ("teaching", "kept", 4, "G7", 2.0, None)]
    again = GameLog.from_events(wire, GameSettings())
    assert again.game.variations == board.game.variations == [TakenBack(3, BLACK, p("B2"), 6.5, p("C3"))]
    assert again.game.moves == board.game.moves


def test_the_levels_the_board_offers_are_the_engines() -> None:
    from gobuddy.ai.levels import level_names

    assert list(LEVELS) == level_names()
