"""The sidebar's status lines in a real browser follow the live feed while a page stays
open: a board that comes online is counted without a reload, on the Games page and on
Live, whose fragment keeps one run going while it follows a board (the sidebar's own
fragment waits for that run: Live ends it when the lines are stale)."""

from __future__ import annotations

from tests.e2e.harness import wait_for_app
from tests.e2e.stand_ins import ScriptedBoard


def sidebar_says(page, text: str, timeout_ms: int = 15_000) -> None:
    page.locator('[data-testid="stSidebar"] [data-testid="stCaptionContainer"]',
                 has_text=text).wait_for(timeout=timeout_ms)


def test_the_sidebar_counts_boards_as_they_come_online(stack, page):
    page.goto(stack.server.url("games"))
    wait_for_app(page)
    sidebar_says(page, "Boards online: 0 · engine workers online: 1")
    with ScriptedBoard(stack.broker.config("board-1")) as board_1:
        sidebar_says(page, "Boards online: 1 · engine workers online: 1")  # no reload, no click
        board_1.start("board-1-sidebar")
        board_1.play("E5 C4")
        page.goto(stack.server.url("?board=board-1"))
        wait_for_app(page)
        page.locator('svg.go-board[data-move-count="2"]').wait_for(timeout=20_000)
        sidebar_says(page, "Boards online: 1 · engine workers online: 1")
        with ScriptedBoard(stack.broker.config("board-2")):
            sidebar_says(page, "Boards online: 2 · engine workers online: 1", timeout_ms=10_000)
            board_1.play("D4")  # and Live goes on following its board
            page.locator('svg.go-board[data-move-count="3"]').wait_for(timeout=10_000)
