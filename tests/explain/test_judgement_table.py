"""Reasons from the engine's analyses, with analyses written by hand: a board, the
move, the analysis before it and after it, and what the explanation must say.

An analysis is written as the dashboard stores it (``engine_answer`` dict form, see
``gobuddy.ai.analysis``): score leads and win rates for the side to move, ownership
+ = black. ``own(...)`` builds ownership from a default and regions of GTP points.
"""

from __future__ import annotations

import pytest

from gobuddy.bus.engine_messages import EngineAnswer
from gobuddy.explain import explain_move
from gobuddy.go.coords import color_from_str, from_gtp
from gobuddy.go.position import Position
from tests.explain.expect import check


def own(size: int, regions: dict[str, float] | None = None, default: float = 0.0) -> list[float]:
    """Ownership: ``default`` everywhere, then each ``"G7 G8 H8": value``."""
    values = [default] * (size * size)
    for points, value in (regions or {}).items():
        for v in points.split():
            values[from_gtp(v, size)] = value
    return values


def answer(to_play: str, lead: float | None, moves: list[tuple] = (), ownership: list[float] | None = None,
           winrate: float = 0.5) -> dict:
    """An ``engine_answer`` dict; ``moves``: ``(vertex, score lead, win rate, visits, "pv ...")``."""
    return {
        "id": "t", "board_id": None, "position_key": {"move_count": 0, "hash": "0" * 16}, "to_play": to_play,
        "root": {"visits": 100, "winrate": winrate, "winrate_black": winrate if to_play == "B" else 1 - winrate,
                 "score_lead": lead, "value": 0.0},
        "moves": [{"move": v, "order": i, "visits": n, "winrate": w, "winrate_black": w if to_play == "B" else 1 - w,
                   "score_lead": s, "prior": 0.1, "pv": pv.split()} for i, (v, s, w, n, pv) in enumerate(moves)],
        "ownership": ownership, "model": "hand", "worker": "test", "elapsed_ms": 1.0,
    }


# White's G7 G8 H8 in the top right; black's wall at F6 F7 F8 G6 H6.
CORNER = """
. . . . . . . . .
. . . . . X O O .
. . . . . X O . .
. . . . . X X X .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . ."""
WHITE_CORNER = "G7 G8 H8 H7 J8 J9 H9 G9"
OPEN = "\n".join(["." * 9] * 9)
ONE_STONE = """
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . X . . . .
. . . X O X . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . ."""
CANDIDATES = [("C3", 4.0, 0.70, 120, "C3 D4 C4"), ("D4", 1.0, 0.60, 60, "D4 C3"), ("E5", 3.5, 0.68, 30, "E5")]

# name, board, move, before, after, expectations
ROWS = [
    ("NAIVE: a quiet-looking move kills the corner group (ownership flips)", CORNER, "B J7",
     answer("B", 2.0, [("J7", 14.0, 0.9, 100, "J7 H7")], own(9, {WHITE_CORNER: -0.8})),
     answer("W", -14.0, [("A1", -14.0, 0.1, 50, "A1")], own(9, {WHITE_CORNER: 0.7, "J7": 0.9})),
     ["first life-and-death 3 good ~the group at G7 dies", "life-and-death =13",
      "-life-and-death ~lives"]),
    ("the text says from whom to whom", CORNER, "B J7",
     answer("B", 2.0, [], own(9, {WHITE_CORNER: -0.8})), answer("W", -14.0, [], own(9, {WHITE_CORNER: 0.7})),
     ["life-and-death ~the group at G7 dies (3 stones, about 12 points)"]),
    ("white saves the corner: it lives", CORNER, "W H7",
     answer("W", -10.0, [("H7", 4.0, 0.6, 100, "H7")], own(9, {WHITE_CORNER: 0.6})),
     answer("B", -4.0, [], own(9, {WHITE_CORNER: -0.8})),
     ["first life-and-death 3 good ~the group at G7 lives", "-territory"]),
    ("black lets its own wall die", CORNER, "B A1",
     answer("B", 5.0, [("J8", 5.0, 0.7, 100, "J8")], own(9, {"F6 F7 F8 G6 H6": 0.8})),
     answer("W", 20.0, [("J8", 20.0, 0.9, 100, "J8")], own(9, {"F6 F7 F8 G6 H6": -0.7})),
     ["life-and-death 5 bad ~the group at F6 dies", "territory bad =25"]),
    ("a hint against a pass: if black does not play J7, the corner lives", CORNER, "B J7",
     answer("B", 10.0, [("J7", 10.0, 0.8, 100, "J7 H7")], own(9, {WHITE_CORNER: 0.5})),
     answer("W", -10.0, [], own(9, {WHITE_CORNER: 0.7})),
     ["-life-and-death"]),
    ("a group that only gets weaker does not die", CORNER, "B J7",
     answer("B", 2.0, [], own(9, {WHITE_CORNER: -0.8})), answer("W", 0.0, [], own(9, {WHITE_CORNER: -0.1})),
     ["-life-and-death"]),
    ("the biggest point is elsewhere (the move is not analysed)", OPEN, "B G3",
     answer("B", 4.0, CANDIDATES), answer("W", 2.0),
     ["first territory bad =6 ~about 6 points more at C3 than at the move played"]),
    ("the biggest point is elsewhere (the move's own line)", OPEN, "B D4",
     answer("B", 4.0, CANDIDATES), answer("W", 0.0), ["territory bad =3 ~about 3 points more at C3"]),
    ("the first choice, but only half a point better than E5", OPEN, "B C3", answer("B", 4.0, CANDIDATES), None,
     ["-territory"]),
    ("the biggest point by a margin", OPEN, "B C3",
     answer("B", 4.0, [CANDIDATES[0], CANDIDATES[1]]), None,
     ["first territory good =3 ~the biggest point, about 3 points more than at D4"]),
    ("half a point is not worth a reason", OPEN, "B E5", answer("B", 4.0, CANDIDATES), None, ["-territory"]),
    ("without score leads: the win rate", OPEN, "B G3",
     answer("B", None, [(v, None, w, n, pv) for v, _, w, n, pv in CANDIDATES]), answer("W", None, winrate=0.5),
     ["territory bad ~win rate 20% higher at C3"]),
    ("an analysis for the other side is not used", OPEN, "B G3", answer("W", 4.0, CANDIDATES), None,
     ["-territory", "-engine-line"]),
    ("sente: the engine answers next to the move", OPEN, "B E5", None,
     answer("W", 0.0, [("E4", 0.0, 0.5, 80, "E4 D4")]), ["tempo good ~sente (white answers at E4)"]),
    ("gote: the engine answers elsewhere", OPEN, "B E5", None,
     answer("W", 0.0, [("B8", 0.0, 0.5, 80, "B8")]), ["tempo neutral ~gote (white plays elsewhere, at B8)"]),
    ("nothing simpler: the engine's choice and answer are the reasons", OPEN, "B G3",
     answer("B", 0.5, [("C3", 0.5, 0.52, 100, "C3 D4 C4 D5")]),
     answer("W", -0.3, [("D4", -0.3, 0.48, 80, "D4 C3 C4")]),
     ["engine-line bad ~prefers C3: C3 D4 C4 D5", "engine-line ~answer D4 C3 C4", "tempo", "-territory"]),
    ("a capture is simpler: no engine line", ONE_STONE, "B E4",
     answer("B", 3.0, [("D4", 3.0, 0.6, 100, "D4 E4")]),
     answer("W", -2.5, [("D4", -2.5, 0.4, 80, "D4 E4")]),
     ["first capture 1 good", "-engine-line"]),
]


@pytest.mark.parametrize("name,board,move,before,after,expectations", ROWS, ids=[r[0] for r in ROWS])
def test_judgement_reasons(name, board, move, before, after, expectations) -> None:
    pos = Position.from_ascii(board)
    color, vertex = move.split()
    reasons = explain_move(pos, from_gtp(vertex, pos.size), color_from_str(color), before, after, limit=None)
    check(reasons, expectations)


def test_every_judged_kind_has_a_row() -> None:
    named = {e.split()[1] if e.startswith("first ") else e.split()[0] for row in ROWS for e in row[5]}
    assert {"life-and-death", "territory", "tempo", "engine-line"} <= named


def test_an_engine_answer_object_reads_as_its_dict() -> None:
    pos = Position.from_ascii(CORNER)
    before = answer("B", 2.0, [("J7", 14.0, 0.9, 100, "J7 H7")], own(9, {WHITE_CORNER: -0.8}))
    after = answer("W", -14.0, [("A1", -14.0, 0.1, 50, "A1")], own(9, {WHITE_CORNER: 0.7}))
    as_dicts = explain_move(pos, from_gtp("J7", 9), before=before, after=after)
    as_objects = explain_move(pos, from_gtp("J7", 9), before=EngineAnswer.build(before),
                              after=EngineAnswer.build(after))
    assert as_dicts == as_objects and as_dicts


def test_ownership_of_the_wrong_size_is_refused() -> None:
    pos = Position.from_ascii(OPEN)
    with pytest.raises(ValueError, match="ownership"):
        explain_move(pos, from_gtp("E5", 9), before=answer("B", 0.0, [], own(13)))


def test_a_hint_told_against_a_pass() -> None:
    """The hint's own analysis already expects it; against the position after a pass
    (white to play, the corner alive) the hint kills the corner."""
    pos = Position.from_ascii(CORNER)
    before = answer("B", 10.0, [("J7", 10.0, 0.8, 100, "J7 H7")], own(9, {WHITE_CORNER: 0.5}))
    after = answer("W", -10.0, [], own(9, {WHITE_CORNER: 0.7}))
    baseline = answer("W", 4.0, [("J7", 4.0, 0.6, 100, "J7")], own(9, {WHITE_CORNER: -0.8}))
    check(explain_move(pos, from_gtp("J7", 9), before=before, after=after, baseline=baseline),
          ["first life-and-death 3 good ~the group at G7 dies (3 stones, about 12 points)"])
    check(explain_move(pos, from_gtp("J7", 9), before=before, after=after), ["-life-and-death"])
