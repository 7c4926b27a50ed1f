"""Dead stones at the end of a game, as a table of finished positions.

Each row: an ASCII board (``X`` black, ``O`` white), komi, the dead chains worked out by
hand (one point of each) and the area count that follows, or ``UNSETTLED`` with the
point of a group that lives or dies with the next move. A row holds when our verdict
(``gobuddy.ai.final_status.judge``, the one behind GTP ``final_score`` and the Play
page) names exactly the hand's dead stones, or calls the unsettled group unsure; and
GNU Go 3.8 (``final_score`` over GTP, Chinese rules) gives the hand's result.

GNU Go counts a finished position by playing out its dame in turn, so the dame rows
leave an even number of dame (each side fills half, the margin is the same). For an
unsettled row GNU Go must give one of the two results the hand allows.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass

import pytest

from gobuddy.ai.final_status import DEAD, SEKI, UNSURE, JudgeConfig, judge
from gobuddy.go.coords import BLACK, from_gtp, to_gtp
from gobuddy.go.position import Position
from gobuddy.go.scoring import area_score

GNUGO = shutil.which("gnugo") or "/usr/games/gnugo"
UNSETTLED = "unsettled"


@dataclass(frozen=True)
class Row:
    name: str
    board: str
    komi: float
    dead: tuple[str, ...] | str  # one point of each dead chain, or UNSETTLED
    result: str  # the hand count; for an unsettled row "dead result|alive result"
    unsure_at: str = ""  # unsettled rows: a stone of the group that must be unsure
    seki_at: tuple[str, ...] = ()  # a stone of each group that must be in seki


def _with_white_below(top: str) -> str:
    """Four rows of a 9x9 board above a black wall (row 5), a white wall (row 4) and
    white's 27 points of territory: black 45 - white 36 before what ``top`` adds."""
    return top.strip() + "\nX X X X X X X X X\nO O O O O O O O O\n" + ". . . . . . . . .\n" * 3


ROWS = [
    Row("the issue's game: white's 11 stones with one two-point eye are dead", """
. . O O O X X O .
O O O O O X X O .
O O X X X . X O .
O X . . . . X O .
X . . . . . X O O
. . . . . . X O .
. . . . . . X O .
. . . . . . X O .
. . . . . . X O .""", 7, ("C9",), "B+38"),
    Row("seki: two chains share D9 and D8, neither has an eye", """
. X O . X O . . .
X X O . X O . . .
. X O O X O . . .
X X X X O O . . .
. . . X O . . . .
. . . X O . . . .
. . . X O . . . .
. . . X O . . . .
. . . X O . . . .""", 7, (), "W+20", seki_at=("C9", "E9")),
    Row("looks like seki, dies to a sacrifice: black D9 gives three stones, then E9", _with_white_below("""
. X O . X X . O X
X X O O O O O O X
. X X X X X X X X
. . . . . . . . ."""), 7, ("C9",), "B+2"),
    Row("true seki: black's four-stone sacrifice leaves white a straight four", _with_white_below("""
. X O . X X X . O
X X O O O O O O O
. X X X X X X X X
. . . . . . . . ."""), 7, (), "W+18", seki_at=("C9", "E9")),
    Row("false eye: D9 cannot become an eye (black C8 cuts), A9 is the only one", _with_white_below("""
. O O . O O X . .
O O X O O O X . .
X X X X X X X . .
. . . . . . . . ."""), 7, ("B9", "E9"), "B+2"),
    Row("two real eyes inside black's area live", _with_white_below("""
. O . O X . . . .
O O O O X . . . .
X X X X X . . . .
. . . . . . . . ."""), 7, (), "W+14"),
    Row("straight three with black on the vital point is dead", _with_white_below("""
. X O . X . O X .
X X O O O O O X .
. X X X X X X X .
. . . . . . . . ."""), 7, ("C9",), "B+2"),
    Row("straight three with the vital point empty: whoever plays E9 decides", _with_white_below("""
. X O . . . O X .
X X O O O O O X .
. X X X X X X X .
. . . . . . . . ."""), 7, UNSETTLED, "B+2|W+18", unsure_at="C9"),
    Row("straight four lives whoever starts", _with_white_below("""
. X O . . . . O X
X X O O O O O O X
. X X X X X X X X
. . . . . . . . ."""), 7, (), "W+22"),
    Row("13 stones around a corner that looks like seki die to a three-stone sacrifice", """
. X X . O X . . .
O O O O O X . . .
O O O O O X . . .
O O X X X X . . .
X X X . . . . . .
X X X X X X X X X
O O O O O O O O O
. . . . . . . . .
. . . . . . . . .""", 7, ("E9",), "B+20"),
    Row("dame left: four points between the walls count for nobody", """
. X . X X O . O .
X X X X X O O O O
. . . X . O . . .
. . . X . O . . .
. . . X X O . . .
. . . X O O . . .
. . . X O O . . .
X X X X . O O O O
. X . X . O . O .""", 7, (), "W+6"),
    Row("dead stones of both colours in the other's territory", """
. X . X X O . O .
X X X X X O O O O
. . . X X O . . .
. O . X X O . . .
. . . X X O . X .
. . . X O O . . .
. . O X O O . . .
X X X X O O O O O
. X . X O O . O .""", 5.5, ("B6", "H5", "C3"), "W+4.5"),
    Row("seki with eyes: A9 and J9 against each other, E9 shared", """
. X X X . O O O .
X X X X O O O O O
O O O O X X X X X
. . . O X . . . .
. . . O X . . . .
. . . O X . . . .
. . . O X . . . .
. . . O X . . . .
. . . O X . . . .""", 7, (), "W+1", seki_at=("B9", "F9")),
    Row("one eye and open liberties in black's area: still dead", _with_white_below("""
. X O . . O X . .
X X O O O O X . .
. X . . . X X . .
. . . . . . . . ."""), 7, ("C9",), "B+2"),
    Row("two stones around one eye in the corner", _with_white_below("""
. O X . . . . . .
O X . . . . . . .
X . . . . . . . .
. . . . . . . . ."""), 7, ("B9", "A8"), "B+2"),
    Row("square four eye space is dead even if white starts", _with_white_below("""
. X O . . O X . .
X X O . . O X . .
. X X O O X X . .
. . . X X . . . ."""), 7, ("C9", "F9", "D7"), "B+2"),
    Row("7x7, everything pass-alive: the stone in white's eye is dead", """
. X . X O . O
X X X X O O O
. X . X O . O
X X X X O O O
. X . X O X .
X X X X O . O
. X . X O O O""", 0.5, ("F3",), "B+6.5"),
    Row("7x7 seki inside pass-alive walls", """
. X O . X O .
X X O . X O O
. X O O X O .
X X X X O O O
. X . X O . O
X X X X O O O
. X . X O . O""", 7, (), "W+4", seki_at=("C7", "E7")),
    Row("capture out: black's enclosed corner lives by taking F4 at G4, in open space; white G4 saves F4 and "
        "kills: unsettled, never read dead", """
. . . . . . .
. . . . . . .
X X X X X X .
O O O O X O .
. O . O O X O
O . O O X X .
. O . O O X .""", 7, UNSETTLED, "W+26|B+6", unsure_at="F2"),
]


def hand_dead(pos: Position, row: Row) -> list[int]:
    assert row.dead != UNSETTLED
    return sorted(p for v in row.dead for p in pos.chain_at(from_gtp(v, pos.size))[0])


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_verdict_is_the_hand_result_or_unsure(row: Row):
    pos = Position.from_ascii(row.board)
    status = judge(pos)
    if row.dead == UNSETTLED:
        at = from_gtp(row.unsure_at, pos.size)
        group = next(g for g in status.groups if at in g.stones)
        assert group.verdict == UNSURE, (group.verdict, group.reason)
        assert area_score(pos, row.komi, status.dead_points()).result in row.result.split("|")
        return
    dead = hand_dead(pos, row)
    assert area_score(pos, row.komi, dead).result == row.result  # the hand count adds up
    assert status.settled, [(g.stones[0], g.reason) for g in status.unsure()]
    assert [to_gtp(p, pos.size) for p in status.dead_points()] == [to_gtp(p, pos.size) for p in dead]
    assert all(g.verdict == DEAD for g in status.groups if g.counted_dead)
    for v in row.seki_at:
        at = from_gtp(v, pos.size)
        assert next(g for g in status.groups if at in g.stones).verdict == SEKI, v


@pytest.mark.parametrize("row", [r for r in ROWS if r.dead != UNSETTLED], ids=lambda r: r.name)
def test_other_playout_seeds_give_the_same_verdicts(row: Row):
    pos = Position.from_ascii(row.board)
    for seed in (1, 2):
        assert judge(pos, JudgeConfig(seed=seed)).dead_points() == hand_dead(pos, row)


@pytest.fixture(scope="module")
def gnugo_scores() -> dict[str, str]:
    """GNU Go's ``final_score`` of every row, from one GTP session."""
    if not shutil.which(GNUGO):
        pytest.skip("GNU Go is not installed")
    commands = []
    for row in ROWS:
        pos = Position.from_ascii(row.board)
        commands += [f"boardsize {pos.size}", "clear_board", f"komi {row.komi}"]
        commands += [f"play {'b' if v == BLACK else 'w'} {to_gtp(p, pos.size)}"
                     for p, v in enumerate(pos.board) if v]
        commands.append("final_score")
    done = subprocess.run([GNUGO, "--mode", "gtp", "--chinese-rules"], input="\n".join(commands) + "\nquit\n",
                          capture_output=True, text=True, timeout=120)
    answers = [a.strip() for a in done.stdout.strip().split("\n\n")]
    assert len(answers) == len(commands) + 1 and all(a.startswith("=") for a in answers), done.stdout[-500:]
    scores = [a for c, a in zip(commands, answers) if c == "final_score"]
    return {row.name: s.removeprefix("= ").replace(".0", "") for row, s in zip(ROWS, scores)}


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_gnu_go_confirms_the_hand_result(row: Row, gnugo_scores):
    assert gnugo_scores[row.name] in row.result.split("|")


def test_the_table_covers_what_it_should():
    assert len(ROWS) >= 15
    assert sum(r.dead == UNSETTLED for r in ROWS) >= 1 and sum(bool(r.seki_at) for r in ROWS) >= 3


def test_an_engine_that_contradicts_the_playouts_makes_it_unsure_but_never_overrules_a_reading():
    row = next(r for r in ROWS if r.name.startswith("dead stones of both colours"))
    pos = Position.from_ascii(row.board)
    owner = [0.0] * pos.n
    owner[from_gtp("B6", 9)] = -0.9  # the engine keeps the white stone at B6 alive
    status = judge(pos, ownership=owner)
    b6 = next(g for g in status.groups if from_gtp("B6", 9) in g.stones)
    assert b6.verdict == UNSURE and b6.counted_dead and "engine" in b6.reason
    issue = ROWS[0]
    pos = Position.from_ascii(issue.board)
    assert judge(pos, ownership=[-1.0] * pos.n).dead_points() == hand_dead(pos, issue)
    with pytest.raises(ValueError):
        judge(pos, ownership=[0.0] * 3)
