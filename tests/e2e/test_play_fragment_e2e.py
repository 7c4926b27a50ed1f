"""The Play page in a real browser (Debian's Chromium, the real stack of ``conftest``):
a click on the board shows the player's stone and then the engine's answer in place —
only the board's fragment runs again, the page is neither reloaded nor run as a whole
— and a hint appears on the board the same way (at a newcomer's level one move, with
its reasons beside it)."""

from __future__ import annotations

from gobuddy.go.coords import GTP_COLUMNS
from tests.e2e.harness import screenshot, wait_for_app

BOARD = "div.click-board svg.go-board"


def click(page, vertex: str, size: int = 9) -> None:
    """Click the intersection ``vertex`` of the Play page's SVG board."""
    box = page.locator(BOARD).first.bounding_box()
    span = size - 1 + 2.2  # the board is drawn with coordinates: 1.1 cells of margin
    col, row = GTP_COLUMNS.index(vertex[0]), int(vertex[1:])
    page.mouse.click(box["x"] + (1.1 + col) / span * box["width"],
                     box["y"] + (1.1 + size - row) / span * box["height"])


def page_runs(page) -> str:
    return page.locator("span.play-page-runs").get_attribute("data-page-runs")


def start_game(stack, page, name: str) -> None:
    """A new game on the Play page for ``name``, its empty board drawn."""
    page.goto(stack.server.url("play"))
    wait_for_app(page)
    page.get_by_label("Your name").fill(name)
    page.get_by_role("button", name="Start the game").click()
    page.locator(f'{BOARD}[data-move-count="0"]').wait_for(timeout=30_000)


def test_a_click_shows_the_engines_stone_in_place(stack, page):
    start_game(stack, page, "Fran")
    page.get_by_text("Your move").wait_for()
    runs = page_runs(page)
    page.evaluate("() => { window.__sameDocument = 'yes'; }")  # gone if the page reloads
    click(page, "E5")
    board = page.locator(f'{BOARD}[data-move-count="2"]')
    board.wait_for(timeout=30_000)
    assert board.locator('circle.stone.black[data-vertex="E5"]').count() == 1
    assert board.locator("circle.stone.white").count() == 1  # the engine's answer
    assert page.locator("div.click-board .provisional").count() == 0  # the stone shown at the click is replaced
    page.get_by_text("Your move").wait_for()
    assert page.evaluate("() => window.__sameDocument") == "yes"
    assert page_runs(page) == runs, "a move ran the whole page, not only the board's fragment"
    # a click on a taken point is refused in words, and nothing is played
    click(page, "E5")
    page.get_by_text("E5 is not possible: that point is occupied").wait_for(timeout=10_000)
    assert page.locator("div.click-board .provisional").count() == 0  # none shown on a stone
    assert page.locator(f'{BOARD}[data-move-count="2"]').count() == 1
    # a hint, in place too: at Fran's level (a newcomer: the weakest) one move, with its reasons
    page.get_by_role("button", name="Hint").click()
    page.locator(f'{BOARD}[data-move-count="2"] g.rec').first.wait_for(timeout=30_000)
    assert page.locator(f"{BOARD} g.rec").count() == 1
    best = page.locator(f"{BOARD} g.rec").get_attribute("data-vertex")
    page.get_by_text(f"Hint: play {best}").wait_for()
    page.locator(".st-key-reasons_play_hint_2").get_by_text(f"Why {best}").wait_for()
    assert page.evaluate("() => window.__sameDocument") == "yes"
    assert page_runs(page) == runs
    screenshot(page, "play-fragment")
