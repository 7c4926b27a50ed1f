"""Live in a real browser moves on, without a reload, from the board it chose by
default to a better one: opened while board-1 is online between games, it shows
board-2 once board-2 starts a game (the fragment that follows the feed reruns the
page). That a board picked in the selector stays is an AppTest
(``tests/dashboard/test_live_board_choice.py``)."""

from __future__ import annotations

from tests.e2e.harness import wait_for_app
from tests.e2e.stand_ins import ScriptedBoard


def test_live_moves_on_to_the_board_that_starts_a_game(stack, page):
    with ScriptedBoard(stack.broker.config("board-1")), ScriptedBoard(stack.broker.config("board-2")) as board_2:
        page.goto(stack.server.url(""))
        wait_for_app(page)
        page.get_by_text("No game on board-1 yet.").wait_for(timeout=20_000)
        page.wait_for_timeout(1500)  # the fragment's own runs follow the feed from here on
        board_2.start("board-2-follow")
        board_2.play("E5 C4 D3")
        page.locator('svg.go-board[data-move-count="3"]').wait_for(timeout=15_000)
        assert page.locator('[data-testid="stSelectbox"] [role="combobox"]').input_value() == "board-2"
