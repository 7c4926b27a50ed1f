"""The Live page in a real browser while it follows a board for a long stretch (its
fragment keeps one run going): what an earlier draw showed does not stay on screen
when the next draw shows less — one "Game ... last message" line, of the game now on
the board; a problem's message gone once the problem is cleared."""

from __future__ import annotations

from tests.e2e.harness import screenshot, wait_for_app
from tests.e2e.stand_ins import ScriptedBoard


def lines(page, text: str) -> list[str]:
    return [t for t in page.locator('[data-testid="stCaptionContainer"]').all_inner_texts() if text in t]


def test_a_redraw_leaves_nothing_of_the_earlier_draws(stack, page):
    with ScriptedBoard(stack.broker.config("board-2")) as board:
        board.start("board-2-first", players=("Ana", "Ben"))
        board.play("E5 C4")
        page.goto(stack.server.url("?board=board-2"))
        wait_for_app(page)
        page.locator('svg.go-board[data-move-count="2"]').wait_for(timeout=20_000)
        page.wait_for_timeout(1500)  # the fragment's own runs follow the feed from here on
        board.raise_problem("stone_lifted", ["E5"], "Put the stone back on E5.")
        page.get_by_text("The stone at E5 was lifted: put it back.").wait_for(timeout=10_000)
        page.get_by_text("The board says: Put the stone back on E5.").wait_for()
        board.clear_problem()
        page.get_by_text("The stone at E5 was lifted: put it back.").wait_for(state="detached", timeout=10_000)
        # The two lines are two elements of one redraw, which reach the browser one after the
        # other: the second must go too (a stale line would stay, and this would time out).
        page.get_by_text("The board says:").first.wait_for(state="detached", timeout=5_000)
        assert page.get_by_text("The board says:").count() == 0
        board.start("board-2-second", players=("Cleo", "Dan"))  # a new game on the same board
        page.locator('svg.go-board[data-move-count="0"]').wait_for(timeout=10_000)
        page.wait_for_timeout(1200)  # the age line is redrawn at least every second
        footers = lines(page, "last message")
        assert len(footers) == 1 and footers[0].startswith("Game board-2-second"), footers
        screenshot(page, "live-redraw")


def test_a_click_is_taken_while_the_page_follows_a_board(stack, page):
    """The live part keeps one run going while it follows the board (30 s); a click on a
    toggle ends that run and the page follows the toggle: the engine's top five leaves
    the board, then comes back."""
    with ScriptedBoard(stack.broker.config("board-1")) as board:
        board.start("board-1-clicks", players=("Ana", "Ben"))
        board.play("E5 C4")
        page.goto(stack.server.url("?board=board-1"))
        wait_for_app(page)
        shown = page.locator('svg.go-board[data-move-count="2"]')
        shown.locator("g.rec").first.wait_for(timeout=30_000)  # the engine's answer is on the board
        page.wait_for_timeout(1500)  # the fragment's own run follows the feed from here on
        toggle = page.get_by_text("Show the engine's top five")
        toggle.click()
        page.locator('svg.go-board[data-move-count="2"]:not(:has(g.rec))').wait_for(timeout=10_000)
        page.wait_for_timeout(1500)
        toggle.click()
        shown.locator("g.rec").first.wait_for(timeout=10_000)
        board.play("D4")  # and it goes on following the board
        page.locator('svg.go-board[data-move-count="3"]').wait_for(timeout=10_000)
