"""The rules reasons as a table: a board, the moves (the last one is explained, the
ones before it are played first), and what the explanation must say.

Expectations are written as in ``tests/explain/expect.py``. Rows marked NAIVE are the
ones where a rule read off the shape would be wrong: the reasons must be read.
"""

from __future__ import annotations

import pytest

from gobuddy.explain import explain_move
from gobuddy.go.coords import color_from_str, from_gtp
from gobuddy.go.position import IllegalMove, Position
from tests.explain.expect import check

# A white stone on D4 that black ataris at D5: it runs up and to the right.
LADDER_19 = """
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . X O . . . . . . . . . . . . . . .
. . . X X . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . ."""

# The same with a white stone on P15, on the ladder's path.
LADDER_19_BREAKER = """
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . O . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . X O . . . . . . . . . . . . . . .
. . . X X . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . ."""

# A black stone on D4 in atari (white just played D5): running at E4 meets a ladder.
RUN_19 = """
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . O . . . . . . . . . . . . . . .
. . O X . . . . . . . . . . . . . . .
. . . O O . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . ."""

# The same with a black stone on M12: running works.
RUN_19_BREAKER = """
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . X . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . O . . . . . . . . . . . . . . .
. . O X . . . . . . . . . . . . . . .
. . . O O . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . . . . ."""

# A black group of four (E4-E7) in atari at E3, and a lone white stone B2 in atari at B1.
GROUP_IN_ATARI = """
. . . . . . . . .
. . . . O . . . .
. . . O X O . . .
. . . O X O . . .
. . . O X O . . .
. . . O X O . . .
. X . . . . . . .
X O X . . . . . .
. . . . . . . . ."""

# Black's four stones A3 B3 B2 B1 have two liberties, A2 and A1, inside white's wall.
SNAPBACK = """
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
O O O . . . . . .
X X O . . . . . .
. X O . . . . . .
. X O . . . . . ."""

# White's D5 is in atari at E5; black taking it there makes a ko.
KO = """
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . X O . . . .
. . X O . O . . .
. . . X O . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . ."""

KO_13 = """
. . . . . . . . . . . . .
. . . . . . . . . . . . .
. . . . . . . . . . . . .
. . . . . . . . . . . . .
. . . . . . . . . . . . .
. . . . . . . . . . . . .
. . . . . . . . . . . . .
. . . . . . . . . . . . .
. . . . . . . . . . . . .
. . . . . . . . . . X O .
. . . . . . . . . X O . O
. . . . . . . . . . X O .
. . . . . . . . . . . . ."""

# name, board, moves (the last is explained), expectations
ROWS = [
    # ---------------------------------------------------------------- captures
    ("one stone in the centre", """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . X . . . .
        . . . X O X . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .""", "B E4", ["first capture 1 good ~1 stone at E5", "-self-atari", "-atari"]),
    ("three stones, listed column by column", """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . X O X . . .
        . . X O O X . . .
        . . . X X . . . .
        . . . . . . . . .
        . . . . . . . . .""", "B E6", ["first capture 3 good ~capture 3 stones at D4 E4 E5"]),
    ("two chains at once", """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . X . X . . .
        . . X O . O X . .
        . . . X . X . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .""", "B E5", ["first capture 2 good ~at D5 F5"]),
    ("a white capture on the edge of 13x13", """
        . . . . . . . . . . . . .
        . . . . . . . . . . . . .
        . . . . . . . . . . . . .
        . . . . . . . . . . . . .
        . . . . . . . . . . . . .
        O . . . . . . . . . . . .
        X O . . . . . . . . . . .
        . . . . . . . . . . . . .
        . . . . . . . . . . . . .
        . . . . . . . . . . . . .
        . . . . . . . . . . . . .
        . . . . . . . . . . . . .
        . . . . . . . . . . . . .""", "W A6", ["first capture 1 good ~at A7"]),
    ("NAIVE: a capture that loses a bigger group", GROUP_IN_ATARI, "B B1",
     ["first capture 1 bad ~loses 4 (white captures at E3)", "atari 4 bad ~leaves the group at E4 in atari",
      "-capture good"]),
    ("saving the bigger group instead", GROUP_IN_ATARI, "B E3",
     ["first save 4 good ~the group at E4 from atari (4 stones)", "-atari", "-ladder"]),
    ("a quiet move that leaves the group in atari", GROUP_IN_ATARI, "B H2",
     ["first atari 4 bad ~leaves the group at E4 in atari (white captures 4 at E3)"]),
    ("saving by capturing the attacker", """
        . . . . . . . . .
        . . . . . . . . .
        . . . X O . . . .
        . . X O X O . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .""", "B D5", ["capture 1 good ~at D6", "save 1 good ~the stone at E6 by capturing"]),
    # ---------------------------------------------------------------- self-atari and snapback
    ("self-atari of one stone", """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . O . . . .
        . . . O . O . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .""", "B E5", ["first self-atari 1 bad ~white captures 1 at E4", "-snapback"]),
    ("self-atari of three stones on the edge", """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        O O . . . . . . .
        X X O . . . . . .
        . . O . . . . . .""", "B B1", ["first self-atari 3 bad ~white captures 3 at A1"]),
    ("filling an own eye of a two-eyed group", """
        X X X X X
        X . X . X
        X X X X X
        O O O O O
        O . O . O""", "B B4", ["first self-atari 14 bad ~white captures 14 at D4"]),
    ("NAIVE: a throw-in that ataris is a snapback, not a self-atari", SNAPBACK, "W A1",
     ["first snapback 5 good ~if black captures at A2, white captures 5 at A1", "-self-atari",
      "atari 4 good ~cannot escape"]),
    ("the other throw-in is a snapback too", SNAPBACK, "W A2",
     ["first snapback 5 good ~if black captures at A1, white captures 5 at A2", "-self-atari"]),
    ("NAIVE: taking the throw-in walks into the snapback", SNAPBACK, "W A1, B A2",
     ["first snapback 5 bad ~white captures 5 at A1", "-capture good"]),
    ("after the throw-in the group cannot be saved: playing elsewhere loses nothing more", SNAPBACK,
     "W A1, B H9", ["none"]),
    ("a group that could be saved and is left in atari is lost by the move", GROUP_IN_ATARI, "B H3",
     ["first atari 4 bad ~leaves the group at E4 in atari"]),
    # ---------------------------------------------------------------- ko
    ("taking a ko", KO, "B E5", ["first ko good ~takes the ko at E5", "-capture", "-self-atari"]),
    ("the ko may not be taken back at once", KO, "B E5, W D5", ["illegal"]),
    ("filling the ko after a threat exchange", KO, "B E5, W A9, B D5",
     ["first ko good ~fills the ko at D5", "connection", "-self-atari", "-save"]),
    ("white fills the ko instead of black taking it", KO, "W E5", ["ko good ~fills the ko at E5"]),
    ("taking a ko on the edge of 13x13", KO_13, "B M3", ["first ko good ~takes the ko at M3", "-self-atari"]),
    # ---------------------------------------------------------------- ataris and ladders
    ("an atari the stone escapes at once", """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . X . . . .
        . . . X O . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .""", "B F5", ["first atari 1 neutral ~white can escape at E4", "-ladder"]),
    ("an atari on the first line that cannot escape", """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . X . . . . .
        . X O . . . . . .""", "B C2", ["first atari 1 good ~cannot escape", "-ladder"]),
    ("a ladder that works on 19x19", LADDER_19, "B D5", ["first ladder 1 good ~works: black captures 1 stone at D4"]),
    ("the other atari lets it out", LADDER_19, "B E4", ["atari 1 neutral ~white can escape at D5", "-ladder"]),
    ("NAIVE: a ladder broken by a ladder breaker", LADDER_19_BREAKER, "B D5",
     ["first ladder 1 bad ~does not work: the stone at P15 breaks it", "-ladder good"]),
    ("a ladder that works on 9x9 (the edge)", """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . X O . . . . .
        . . . X X . . . .
        . . . . . . . . .
        . . . . . . . . .""", "B D5", ["first ladder 1 good ~works"]),
    ("NAIVE: a 9x9 ladder broken by the stone at G7", """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . O . .
        . . . . . . . . .
        . . . . . . . . .
        . . X O . . . . .
        . . . X X . . . .
        . . . . . . . . .
        . . . . . . . . .""", "B D5", ["first ladder bad ~the stone at G7 breaks it"]),
    ("a ladder on 13x13", """
        . . . . . . . . . . . . .
        . . . . . . . . . . . . .
        . . . . . . . . . . . . .
        . . . . . . . . . . . . .
        . . . . . . . . . . . . .
        . . . . . . . . . . . . .
        . . . . . . . . . . . . .
        . . . . . . . . . . . . .
        . . . . . . . . . . . . .
        . . X O . . . . . . . . .
        . . . X X . . . . . . . .
        . . . . . . . . . . . . .
        . . . . . . . . . . . . .""",
     "B D5", ["first ladder 1 good ~works"]),
    ("NAIVE: running from atari into a ladder saves nothing", RUN_19, "B E4",
     ["first ladder 2 bad ~works for white: the group at E4 is captured", "-save"]),
    ("running works when a black stone breaks the ladder", RUN_19_BREAKER, "B E4",
     ["first save 1 good ~the stone at D4 from atari", "-ladder"]),
    ("a double atari: white cannot save both", """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . X . X . . .
        . . . O . O . . .
        . . . X . X . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .""", "B E5", ["first atari 1 good ~double atari on D5 F5: white cannot save both",
                                        "atari 1 neutral ~white can escape at C5"]),
    ("NAIVE: a double atari whose stone white simply captures", """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . X O X . . .
        . . . O . O . . .
        . . . X . X . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .""", "B E5", ["-atari ~double", "first self-atari 1 bad ~white captures 1 at E4"]),
    ("a stone white catches with one atari is no ladder", """
        . . . . . . . . .
        . . . . . . O O .
        . . . . . . O . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .""", "B J8", ["first atari 1 bad ~leaves the stone at J8: white ataris at J7", "-ladder"]),
    # ---------------------------------------------------------------- connections and cuts
    ("connecting where white could cut", """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . O . . . .
        . . . X . X . . .
        . . . . O . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .""", "B E5", ["first connection 3 good ~the groups at D5 and F5"]),
    ("joining stones white could not cut apart (self-atari there) is no reason to play", """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . X . . . .
        . . . X . X . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .""", "B E5", ["connection 4 neutral", "-connection good", "-cut"]),
    ("cutting a diagonal", """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . O . . . . .
        . . . X O . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .""", "B E5", ["first cut 2 good ~the white groups at D5 and E4 apart"]),
    ("NAIVE: between two stones that still share a liberty is no cut", """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . O . . . . .
        . . . . O . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .""", "B E5", ["-cut"]),
    ("a cut on 19x19", """
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . X . O . . . . . . . . . . . . . .
        . . O O X . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . . . . . .""", "B D17",
     ["first cut 3 good ~the white groups at D16 and E17 apart", "-connection"]),
    # ---------------------------------------------------------------- nothing to say
    ("a quiet opening move says nothing from the rules", "\n".join(["." * 9] * 9), "B E5", ["none"]),
    ("a pass says nothing from the rules", GROUP_IN_ATARI, "B pass", ["none"]),
]


def _run(board: str, moves: str):
    pos = Position.from_ascii(board)
    entries = [m.split() for m in moves.split(",")]
    for color, vertex in entries[:-1]:
        pos.play(from_gtp(vertex, pos.size), color_from_str(color))
    color, vertex = entries[-1]
    return explain_move(pos, from_gtp(vertex, pos.size), color_from_str(color), limit=None)


@pytest.mark.parametrize("name,board,moves,expectations", ROWS, ids=[r[0] for r in ROWS])
def test_rules_reasons(name: str, board: str, moves: str, expectations: list[str]) -> None:
    if expectations == ["illegal"]:
        with pytest.raises(IllegalMove):
            _run(board, moves)
        return
    check(_run(board, moves), expectations)


def test_every_rules_kind_has_a_row() -> None:
    kinds = {"capture", "atari", "save", "self-atari", "snapback", "ladder", "connection", "cut", "ko"}
    named = {e.split()[1] if e.startswith("first ") else e.split()[0] for row in ROWS for e in row[3]}
    assert kinds <= named, kinds - named


def test_the_position_is_not_changed() -> None:
    pos = Position.from_ascii(GROUP_IN_ATARI)
    before = (pos.to_ascii(), pos.to_play, pos.ko, pos.move_count, set(pos.seen))
    explain_move(pos, from_gtp("B1", 9))
    assert (pos.to_ascii(), pos.to_play, pos.ko, pos.move_count, set(pos.seen)) == before
