"""Named problems: the difference between board and game, and the words for it."""

from __future__ import annotations

import json

import pytest

from edge.reading import problems
from edge.sensing.classify import STONE
from edge.game import GameSettings
from edge.journal.game_journal import GameLog
from edge.reading.problems import (BOARD_MISMATCH, KO, STONE_LIFTED, WRONG_COLOR, Context, Problem, board_diff,
                           captures_not_removed, diagnose, illegal, raised, unclear)
from gobuddy.bus.validation import SCHEMA_DIR
from gobuddy.go.coords import BLACK, EMPTY, WHITE, from_gtp
from gobuddy.go.game import Played


def pts(vertices: str) -> tuple[int, ...]:
    return tuple(from_gtp(v, 9) for v in vertices.split())


def board(**stones: str) -> list[int]:
    """``board(X="D4 E5", O="C3")``: a 9x9 board with those stones."""
    b = [EMPTY] * 81
    for key, color in (("X", BLACK), ("O", WHITE), ("S", STONE)):
        for p in pts(stones.get(key, "")):
            b[p] = color
    return b


def test_board_diff_sorts_out_what_changed() -> None:
    expected = board(X="D4 E5", O="C3")
    seen = tuple(board(X="D4 F5", O="E5", S="G7"))  # F5 new, C3 gone, E5 white, G7 a leftover
    diff = board_diff(expected, seen, leftovers={from_gtp("G7", 9): WHITE})
    assert diff.added == ((from_gtp("F5", 9), BLACK),)
    assert diff.removed == ((from_gtp("C3", 9), WHITE),)
    assert diff.recoloured == ((from_gtp("E5", 9), BLACK, WHITE),)
    assert diff.leftover == pts("G7") and not diff.matches


def test_stone_matches_either_colour_and_leftovers_are_allowed() -> None:
    expected = board(X="D4", O="C3")
    diff = board_diff(expected, tuple(board(S="D4 C3", O="G7")), leftovers={from_gtp("G7", 9): WHITE})
    assert diff.matches and diff.leftover == pts("G7")


@pytest.mark.parametrize("reason,kind,message", [
    ("suicide", "illegal_point", "black may not play D4: it would be suicide; take the stone back"),
    ("ko", KO, "black may not retake the ko at D4 yet: take the stone back and play elsewhere first"),
    ("superko", KO, "black may not play D4: it would repeat an earlier position (superko); take the stone back"),
])
def test_illegal_points(reason: str, kind: str, message: str) -> None:
    assert illegal(from_gtp("D4", 9), BLACK, reason, 9) == Problem(kind, pts("D4"), message)


def test_captured_stones_in_words() -> None:
    assert captures_not_removed(pts("D4 D5 E5"), WHITE, 9).message == \
        "remove the 3 captured white stones at D4, D5, E5"
    assert captures_not_removed(pts("D4"), BLACK, 9).message == "remove the captured black stone at D4"


CTX = Context(size=9, to_play=BLACK, moves_played=10, last_move=Played(10, WHITE, from_gtp("C3", 9)))


@pytest.mark.parametrize("expected,seen,ctx,kind,message", [
    (board(X="D4", O="C3"), board(O="D4 C3"), CTX, WRONG_COLOR, "a stone has the wrong colour: D4 should be black"),
    (board(X="D4", O="C3"), board(X="D4"), CTX, STONE_LIFTED, "the white stone at C3 was lifted: put it back"),
    (board(X="D4", O="C3"), board(X="E4", O="C3 G7"), CTX, BOARD_MISMATCH,
     "the board does not match the game: take off the white stone at G7 and the black stone at E4; "
     "put back the black stone at D4"),
    (board(X="D4", O="C3"), board(X="D4 E4"), Context(9, BLACK, 10, CTX.last_move, after_undo=True),
     BOARD_MISMATCH, "after the undo, set the board as recorded: take off the black stone at E4; "
                     "put back the white stone at C3"),
    (board(), board(X="A1 B1 C1"), Context(9, BLACK, 0, None), BOARD_MISMATCH,
     "set up the board for the new game: take off the 3 black stones at A1, B1, C1"),
])
def test_diagnosis(expected, seen, ctx, kind: str, message: str) -> None:
    problem = diagnose(board_diff(expected, tuple(seen), {}), ctx)
    assert (problem.kind, problem.message) == (kind, message)


def test_events_carry_gtp_vertices() -> None:
    event = raised(unclear(pts("D4 E5"), 9), 9, 12)
    assert (event.move_number, event.kind, event.points) == (12, "unclear_reading", ("D4", "E5"))


def test_every_kind_named_here_goes_on_the_wire_as_it_is() -> None:
    """Each problem kind of ``edge.reading.problems`` is in the schema's ``problem_kind`` and
    reaches the wire unchanged, raised and cleared."""
    listed = json.loads((SCHEMA_DIR / "common.schema.json").read_text())["$defs"]["problem_kind"]["enum"]
    kinds = [value for name, value in vars(problems).items() if name.isupper() and isinstance(value, str)]
    assert len(kinds) == 10 and set(kinds) <= set(listed)
    log = GameLog("board-t1", "board-t1-g1", GameSettings(), GameSettings().new_game())
    log.started()
    for kind in kinds:
        event = log.wire(problems.ProblemRaised(0, kind, ("C3", "D4"), f"the board has a {kind} problem"))
        event.validate()
        assert event.kind == kind and log.state().problem.kind == kind
        cleared = log.wire(problems.ProblemCleared(0, kind))
        cleared.validate()
        assert cleared.kind == kind
