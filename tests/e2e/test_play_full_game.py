"""A whole game on the Play page in a real browser (Debian's Chromium) against the real
engine worker with a real model, and undo.

The model is r5's float file (``tests/e2e/models/gobuddy-9x9-r5.onnx``, the shipped
model when the script was made), not whatever is shipped now: the script holds the
engine's exact answers, and a promotion must not rewrite it.

The engine plays the "5 kyu" level: a 16-visit search, with no random draw (the game's
seed plays no part at a search level), so its answers depend only on the position and
its search tree; the game gets a komi no other game here uses, so the worker starts it
with a fresh tree ("Teach me" is off at this level: its judgements would be searches of
the same worker), and the scripted learner meets the same answers every time. Each
answer is checked against the script as it comes: a changed model or search fails at
the move where it differs, naming it (make the script again: GNU Go's moves against it).

The game ends with both passes and three dead white groups inside black's area (two of
them seki-looking shapes that die to a sacrifice). The test checks that the page crosses
out exactly the stones dead by hand, that toggling a group changes the count shown, and
that the result shown, the result stored (the record, the Games page, the SGF's
``RE[]``) and GNU Go's ``--score aftermath`` on the downloaded SGF are the hand count.
Undo: the learner's move and the engine's answer go, from the board, the move count
and the stored record, which goes on from there.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from gobuddy.go.coords import color_to_str, to_gtp
from gobuddy.go.sgf import parse_sgf
from tests.e2e.conftest import Stack, real_engine_stack
from tests.e2e.harness import browser_missing, screenshot, wait_for_app, wait_idle
from tests.e2e.test_play_fragment_e2e import BOARD, click
from tests.mqtt_broker import find_mosquitto

GNUGO = shutil.which("gnugo") or "/usr/games/gnugo"
MODEL = Path(__file__).resolve().parent / "models" / "gobuddy-9x9-r5.onnx"  # the script's engine
LEVEL = "5 kyu"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """The stack of ``conftest`` with r5's model in the worker (the conftest's
    is a random tiny one), and a small budget for the count's ownership cross-check."""
    reason = browser_missing() or (None if find_mosquitto() else "mosquitto is not installed")
    if reason:
        pytest.skip(reason)
    with real_engine_stack(tmp_path_factory.mktemp("e2e-full-game"),
                           ["--visits", "64", "--status-interval", "1", "--model", str(MODEL)],
                           ["--analysis-visits", "32"]) as stack:
        yield stack


# ---- driving the Play page --------------------------------------------------------------
def new_game(stack: Stack, page: Any, name: str, komi: float, level: str = LEVEL) -> None:
    """Open the Play page and start a game as black against ``level`` with ``komi``.

    The stack is shared by this module's tests and auth is off, so the page resumes
    whatever game an earlier test left unfinished (``play_resume``): such a game is
    abandoned with "New game" first, and one test's failure does not fail the next."""
    page.goto(stack.server.url("play"))
    wait_for_app(page)
    form, leftover = page.get_by_label("Your name"), page.get_by_role("button", name="New game")
    form.or_(leftover).first.wait_for()
    if not form.is_visible():
        leftover.click()
        form.wait_for()
    form.fill(name)
    page.get_by_label("Komi").fill(f"{komi:g}")
    page.get_by_role("combobox", name="Opponent").click()
    page.get_by_role("option", name=level, exact=True).click()
    page.get_by_role("button", name="Start the game").click()
    page.locator(f'{BOARD}[data-move-count="0"]').wait_for(timeout=30_000)
    page.get_by_text(f"against gobuddy at {level}").wait_for()


def board_at(page: Any, moves: int, timeout_ms: int = 30_000) -> Any:
    board = page.locator(f'{BOARD}[data-move-count="{moves}"]')
    board.wait_for(timeout=timeout_ms)
    return board


def stones(page: Any) -> dict[str, str]:
    """The stones on the Play page's board: vertex -> ``X`` (black) or ``O`` (white)."""
    return dict(page.locator(BOARD).first.evaluate(
        "svg => Array.from(svg.querySelectorAll('circle.stone')).map("
        "c => [c.dataset.vertex, c.classList.contains('black') ? 'X' : 'O'])"))


def last_move(page: Any) -> str:
    """The vertex of the last move marked on the board, ``pass`` when none is."""
    marks = page.locator(f"{BOARD} circle.last-move")
    return marks.first.get_attribute("data-vertex") if marks.count() else "pass"


def learner_plays(page: Any, vertex: str, moves: int) -> str:
    """Play ``vertex`` (or pass) as the learner at move count ``moves``; the engine's
    answer once it is on the board."""
    if vertex == "pass":
        page.get_by_role("button", name="Pass", exact=True).click()
    else:
        click(page, vertex)
    board_at(page, moves + 2)
    return last_move(page)


def toggle(page: Any, vertex: str, counting: Any, expected: str) -> None:
    """Click a stone of the count (``vertex``) and wait for the count ``expected`` (the
    board reports a click until the server took it: none is lost, none taken twice)."""
    click(page, vertex)
    counting.filter(has_text=expected).wait_for()


def board_table(found: dict[str, str]) -> str:
    """The stones as an ASCII board, row 9 first (``X`` black, ``O`` white, ``.`` empty)."""
    return "\n".join(" ".join(found.get(f"{c}{r}", ".") for c in "ABCDEFGHJ") for r in range(9, 0, -1))


def stored_game(stack: Stack, name: str, until: Any, timeout_s: float = 15.0) -> Any:
    """The stored game of player ``name`` once ``until(detail)`` holds (the recorder
    stores what the page published on the bus)."""
    deadline = time.monotonic() + timeout_s
    detail = None
    while time.monotonic() < deadline:
        games = [g for g in stack.store.list_games().games if g.black == name]
        if games:
            detail = stack.store.get_game(games[0].id)
            if until(detail):
                return detail
        time.sleep(0.1)
    raise AssertionError(f"the stored game of {name} is not there in {timeout_s:.0f} s: {detail}")


def gnugo_aftermath(sgf: Path) -> str:
    """GNU Go's count of the SGF's final position, as ``B+x``/``W+x``: its ``--score
    aftermath`` plays out what is unsettled, then counts (Chinese rules: area)."""
    out = subprocess.run([GNUGO, "--score", "aftermath", "--chinese-rules", "-l", str(sgf)], capture_output=True,
                         text=True, timeout=120, check=True).stdout
    found = re.search(r"(Black|White) wins by ([\d.]+) points", out)
    assert found, out
    return f"{found.group(1)[0]}+{float(found.group(2)):g}"


# ---- the full game ------------------------------------------------------------------------
# The learner's moves (black; chosen by GNU Go 3.8 at level 10 when the script was made)
# and the engine's answers (white, "5 kyu", komi 5.5), move by move.
KOMI = 5.5
LEARNER = ("F5 D6 E6 E3 G6 C5 B5 D4 E5 D2 F2 E1 A5 C1 A2 A3 D5 E2 H5 D7 E8 E7 D9 E9 B8 J4 H4 G5 pass A8 G3 F4 "
           "pass pass pass J3 pass").split()
ENGINE = ("D5 C6 C7 G7 F7 C4 B4 D3 E2 C3 C2 B6 A4 B1 B2 A6 D1 H6 H7 D8 C8 F8 C9 F9 J5 J6 F6 H8 B9 A9 C1 J8 H9 G9 "
          "H3 H2 pass").split()
FINAL = """
O O O X X O O O .
X X O O X O . O O
. . O X X O O O .
O O O X X O X O O
X X X X X X X X O
O O O X . X . X X
X . O O X . X O X
X O O X X X . O .
. O O O X . . . .""".strip()
# Dead, worked out by hand: three white groups inside black's area.
# - top left, 9 stones, and black A8 B8 inside them share A7 and B7, and neither has an
#   eye: it looks like a seki, but black B7 gives three stones, white A7 takes them, and
#   black B8 on the bent three left kills (white cannot approach: A8 or B7 is self-atari);
# - bottom left, 10 stones and black A3 A2: the same shape, shared B3 and A1;
# - H3 H2: two stones in black's corner with no room for an eye.
DEAD = {"A9", "B9", "C9", "C8", "D8", "C7", "A6", "B6", "C6",
        "A4", "B4", "C4", "C3", "D3", "B2", "C2", "B1", "C1", "D1",
        "H3", "H2"}
# The count by hand, dead stones lifted: white keeps 13 stones (F9 G9 H9 F8 H8 J8 F7 G7
# H7 F6 H6 J6 J5) and 3 empty points (J9 G8 J7): 16; every other point is black's (no
# empty region touches white): 81 - 16 = 65. 65 - 16 - 5.5 = B+43.5.
RESULT = "B+43.5"
COUNTED = f"Counting: {RESULT} (black 65, white 16, komi 5.5)"
# With H3 H2 counted alive instead: white 18 points; G2 J2 F1 G1 H1 J1 touch both
# colours (6 neutral); black 65 - 2 - 6 = 57. 57 - 18 - 5.5 = B+33.5.
COUNTED_H3_ALIVE = "Counting: B+33.5 (black 57, white 18, komi 5.5, 6 neutral)"


def test_a_full_game_ends_with_a_dead_group_and_is_counted_right(stack, page, tmp_path):
    name = "Greta"
    new_game(stack, page, name, KOMI)
    assert not page.get_by_role("switch", name="Teach me").is_checked(), "the teacher's searches change the script"
    moves = 0
    for number, (mine, expected) in enumerate(zip(LEARNER, ENGINE), start=1):
        answer = learner_plays(page, mine, moves)
        moves += 2
        assert answer == expected, (f"the engine ({LEVEL}) answered {answer} to the learner's move {number}, "
                                    f"{mine}, where the script expects {expected}: its play changed (model or "
                                    "search); make the script again from GNU Go's moves against it")
    # both passed: the count, with the dead stones crossed out
    counting = page.locator('[data-testid="stMarkdownContainer"]', has_text="Counting:")
    counting.wait_for()
    assert board_table(stones(page)) == FINAL
    dead = set(page.locator(f"{BOARD} path.dead").evaluate_all("els => els.map(e => e.dataset.vertex)"))
    assert dead == DEAD
    assert page.get_by_text("The judge is not sure").count() == 0
    assert counting.inner_text() == COUNTED
    # a group toggled alive changes the result shown; toggled back, the judge's count again
    toggle(page, "H3", counting, COUNTED_H3_ALIVE)
    assert page.locator(f'{BOARD} path.dead[data-vertex="H3"]').count() == 0
    group = "White H3 H2 (2 stones)"  # the list's box of that group
    assert not page.get_by_role("checkbox", name=group).is_checked()
    page.get_by_text(group, exact=True).click()
    counting.filter(has_text=COUNTED).wait_for()
    assert page.locator(f'{BOARD} path.dead[data-vertex="H2"]').count() == 1
    toggle(page, "H2", counting, COUNTED_H3_ALIVE)  # a click on a stone toggles its whole group, back and forth
    toggle(page, "H3", counting, COUNTED)
    screenshot(page, "play-full-game-count")
    page.get_by_role("button", name="Accept the count").click()
    page.get_by_text(f"Game over: {RESULT} (score)").wait_for()
    screenshot(page, "play-full-game-over")
    # stored: the record, the Games page, the SGF's RE[], and GNU Go on that SGF
    detail = stored_game(stack, name, lambda d: d.game.result is not None)
    assert detail.game.result == RESULT
    assert [m.vertex for m in detail.moves[0::2]] == LEARNER and [m.vertex for m in detail.moves[1::2]] == ENGINE
    page.goto(stack.server.url("games"))
    wait_for_app(page)
    page.get_by_label("Search (name, player, id)").fill(name)
    page.keyboard.press("Enter")
    page.get_by_text(f"{detail.game.id} · 9x9, komi 5.5").wait_for()
    # the list (a canvas grid, its cells in an accessible table): the one game found, and its result
    page.locator('[data-testid="stDataFrame"]').get_by_text(RESULT, exact=True).wait_for(state="attached")
    page.get_by_text("1 game, newest first").wait_for()
    assert f"result {RESULT}" in page.get_by_text(f"{detail.game.id} · 9x9").inner_text()
    wait_idle(page)
    with page.expect_download() as download_info:
        page.get_by_role("button", name="Download SGF").click()
    sgf = tmp_path / "game.sgf"
    shutil.copyfile(download_info.value.path(), sgf)
    assert f"RE[{RESULT}]" in sgf.read_text()
    assert gnugo_aftermath(sgf) == RESULT


# ---- undo ----------------------------------------------------------------------------------
def test_undo_takes_back_the_learners_move_and_the_engines_answer(stack, page):
    name = "Ulla"
    new_game(stack, page, name, 7.0)
    first = learner_plays(page, "E5", 0)
    before = stones(page)
    second = next(v for v in ("C3", "G7", "C7", "G3") if v not in before)
    answer = learner_plays(page, second, 2)
    assert stones(page) == {**before, second: "X", answer: "O"}
    stored_game(stack, name, lambda d: len(d.moves) == 4)
    page.get_by_role("button", name="Undo").click()
    board_at(page, 2)
    assert stones(page) == before and last_move(page) == first
    page.get_by_text("Move 2 ·").wait_for()
    page.get_by_text("Your move").wait_for()
    detail = stored_game(stack, name, lambda d: len(d.moves) == 2)
    assert [(m.number, m.color, m.vertex) for m in detail.moves] == [(1, "B", "E5"), (2, "W", first)]
    # play on: the stored record goes on from the position after the undo
    third = next(v for v in ("D4", "F4", "D6", "F6") if v not in before)
    answer = learner_plays(page, third, 2)
    detail = stored_game(stack, name, lambda d: len(d.moves) == 4)
    assert [(m.number, m.color, m.vertex) for m in detail.moves] == [
        (1, "B", "E5"), (2, "W", first), (3, "B", third), (4, "W", answer)]
    record = parse_sgf(stack.store.export_sgf(detail.game.id))[0]
    assert [(color_to_str(c), to_gtp(p, 9)) for c, p in record.moves()] == [
        ("B", "E5"), ("W", first), ("B", third), ("W", answer)]
