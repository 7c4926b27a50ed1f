"""Game events on the wire and the game rebuilt from them; LED commands for patterns."""

from __future__ import annotations

import pytest

from edge.reading import problems as pr
from edge.link.board_view import led_command
from edge import game as board_game
from edge.game import GameSettings, Mode
from edge.journal.game_journal import GameLog, restore
from edge.journal.offline_queue import Entry
from edge.reading.reconcile import LedPattern
from gobuddy.bus.messages import GameEvent
from gobuddy.go.coords import WHITE, from_gtp

EVENT = "gobuddy/v1/board/board-t1/event"


def played(moves: str, settings: GameSettings = GameSettings()) -> tuple[GameLog, list[dict]]:
    log = GameLog("board-t1", "board-t1-g1", settings, settings.new_game())
    events = [log.started().to_dict()]
    for vertex in moves.split():
        if vertex == "undo":
            event = board_game.undo(log.game)
        elif vertex == "pass":
            event = board_game.pass_move(log.game)
        else:
            event = board_game.play(log.game, from_gtp(vertex, 9))
        events.append(log.wire(event).to_dict())
    return log, events


def test_wire_events_validate_and_count_seq():
    log, events = played("E5 C3 undo D4 pass")
    assert [e["seq"] for e in events] == [0, 1, 2, 3, 4, 5]
    assert [e["type"] for e in events] == ["game_started", "move", "move", "undo", "move", "pass"]
    assert events[3]["move_number"] == 2 and events[4]["move_number"] == 2
    for e in events:
        GameEvent.from_dict(e)
    log.state().validate()


def test_problem_kinds_go_on_the_wire_as_named():
    log, _ = played("E5")
    event = log.wire(pr.ProblemRaised(1, "board_mismatch", ("C3", "C3"), "x" * 600))
    assert (event.kind, event.points, len(event.message)) == ("board_mismatch", ("C3",), 500)
    event.validate()
    cleared = log.wire(pr.ProblemCleared(1, "engine_stone_misplaced"))
    assert cleared.kind == "engine_stone_misplaced"
    cleared.validate()


def test_replay_rebuilds_position_seq_and_problem():
    original, events = played("E5 C3 G7 undo D7 pass")
    problem = original.wire(pr.ProblemRaised(5, "wrong_color", ("F4",), "white at F4")).to_dict()
    rebuilt = GameLog.from_events(events + [problem], GameSettings())
    assert rebuilt.game.moves == original.game.moves
    assert rebuilt.seq == problem["seq"] and rebuilt.problem.kind == "wrong_color"
    assert rebuilt.game.position.key() == original.game.position.key()


def test_replay_stops_at_an_event_that_does_not_fit():
    _, events = played("E5 C3")
    bad = dict(events[2], seq=3, move_number=3, vertex="E5", color="B")  # E5 is occupied
    rebuilt = GameLog.from_events(events + [bad], GameSettings())
    assert rebuilt.game.move_number == 2 and rebuilt.seq == 2


def test_restore_takes_the_last_game_or_adopted_state():
    _, first = played("E5")
    log, second = played("C3 D4", GameSettings(mode=Mode.VS_ENGINE, engine_color=WHITE))
    second = [dict(e, game_id="board-t1-g2") for e in second]
    entries = [Entry(i + 1, EVENT, p) for i, p in enumerate(first + second)]
    record = restore(entries, EVENT, GameSettings())
    assert record.game_id == "board-t1-g2" and record.game.move_number == 2
    assert record.settings.mode is Mode.VS_ENGINE and record.game.engine_color == WHITE
    state = record.state()
    entries.append(Entry(99, "", {"kind": "adopted_state", "state": state.to_dict()}))
    more = record.wire(board_game.play(record.game, from_gtp("G7", 9))).to_dict()
    entries.append(Entry(100, EVENT, more))
    again = restore(entries, EVENT, GameSettings())
    assert again.game.move_number == 3 and again.seq == more["seq"]
    assert restore([], EVENT, GameSettings()) is None


def G(vertices: str) -> tuple[int, ...]:
    return tuple(from_gtp(v, 9) for v in vertices.split())


@pytest.mark.parametrize("pattern, problem, command", [
    (LedPattern("off"), None, "LED OFF"),
    (LedPattern("steady", G("D4")), None, "LED POINT D4"),
    (LedPattern("blink", G("C3 G7")), None, "LED BLINK C3 G7"),
    (LedPattern("blink", G("C3")), "captures_not_removed", "LED BLINK C3"),
    (LedPattern("blink", G("C3")), "wrong_color", "LED PROBLEM"),
    (LedPattern("all_blink"), "unclear_reading", "LED PROBLEM"),
    (LedPattern("blink", G(" ".join(f"{c}{r}" for c in "ABCDEFGHJ" for r in "12"))), None,
     "LED BLINK " + " ".join(f"{c}{r}" for c in "ABCDEFGHJ" for r in "12")[:47]),
])
def test_led_commands(pattern, problem, command):
    assert led_command(pattern, problem, 9) == command
    assert len(command) + 5 <= 64
