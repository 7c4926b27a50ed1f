"""The players' choices in a count, group by group (``CountGroups``): lifts toggle, a
group all off is dead, choices survive a snapshot; and the journal's count notes
(``edge.journal.count_journal``) give back only a count still under way."""

from __future__ import annotations

import pytest

from edge.journal.count_journal import closed_note, count_note, pending_count
from edge.journal.game_journal import GameLog
from edge.journal.offline_queue import Entry
from edge.game import GameSettings, pass_move, play
from edge.reading.count_groups import CountGroups
from gobuddy.go.coords import EMPTY, from_gtp, to_gtp
from tests.edge.scripted_board import board_from_ascii

POSITION = """
    . . . . . . . . .
    . O O . . . . . .
    . O . . . . . . .
    . . . . . . X . .
    . . . . . . X X .
    . . . . . . . . .
    . . . . . O . . .
    . . . . . . . . .
    . . . . . . . . ."""


def gtp(points) -> str:
    return " ".join(to_gtp(p, 9) for p in points)


def lifted(stones: list[int], vertices: str) -> list[int]:
    board = list(stones)
    for v in vertices.split():
        board[from_gtp(v, 9)] = EMPTY
    return board


# (the workers' dead stones, boards seen in turn (stones off), dead stones after each)
TABLE = [
    ("B8 C8 B7", ["", "B8", "", "G6"], ["B7 B8 C8", "", "", "G5 G6 H5"]),
    ("", ["G5", "G5 G6 H5", ""], ["G5 G6 H5", "G5 G6 H5", "G5 G6 H5"]),  # one lift, one toggle: dead
    ("F3", ["F3", "F3", ""], ["F3", "F3", ""]),  # a stone off is dead; put back, its lift toggled it alive
]


@pytest.mark.parametrize("proposed, seen, expected", TABLE)
def test_lifts_toggle_their_groups(proposed, seen, expected) -> None:
    stones = board_from_ascii(POSITION)
    groups = CountGroups(stones, 9)
    groups.propose([from_gtp(v, 9) for v in proposed.split()])
    got = []
    for off in seen:
        groups.see(lifted(stones, off))
        got.append(gtp(groups.dead))
    assert got == [" ".join(sorted(e.split(), key=lambda v: from_gtp(v, 9))) for e in expected]


def test_a_snapshot_gives_back_the_players_choices() -> None:
    stones = board_from_ascii(POSITION)
    groups = CountGroups(stones, 9)
    groups.propose([from_gtp("F3", 9)])
    groups.see(lifted(stones, "B7"))  # white's B8 C8 B7 toggled dead, still off
    snapshot = groups.snapshot()
    assert snapshot == {"proposed": ["F3"], "toggled": ["B8"], "lifted": ["B8"], "gone": []}
    again = CountGroups(stones, 9)
    again.restore(snapshot)
    assert again.dead == groups.dead
    assert not again.see(lifted(stones, "B7"))  # the same stone still off: no second toggle
    with pytest.raises(ValueError, match="E5 names no group"):
        again.restore({"toggled": ["E5"]})


def record_after(moves: str) -> GameLog:
    record = GameLog.new("board-t", GameSettings())
    for v in moves.split():
        pass_move(record.game) if v == "pass" else play(record.game, from_gtp(v, 9))
    return record


def test_the_journal_gives_back_a_count_still_under_way() -> None:
    record = record_after("E5 C4 pass pass")
    note = count_note(record, {"proposed": ["C4"], "toggled": [], "lifted": [], "gone": []}, ["C4"])
    entries = [Entry(1, "events", {"type": "pass"}), Entry(2, "", note)]
    assert pending_count(entries, record) == note
    assert pending_count(entries + [Entry(3, "", closed_note(record))], record) is None  # dropped: play went on
    other = record_after("E5 C4 pass")  # the record has moved on (the pass taken back)
    other.game_id = record.game_id
    assert pending_count(entries, other) is None
    assert pending_count([Entry(2, "", {**note, "game_id": "another"})], record) is None
