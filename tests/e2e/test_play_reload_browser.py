"""The Play page in a real browser (Debian's Chromium, the real stack of ``conftest``):
reloading the page mid-game brings the game back where it was, with the "Teach me"
switch as the learner left it and the hint shown, and play goes on."""

from __future__ import annotations

from dashboard.store.games import GameFilter
from tests.dashboard.test_app_play import wait_until
from tests.e2e.harness import wait_for_app
from tests.e2e.test_play_fragment_e2e import BOARD, click, start_game


def test_a_reload_keeps_the_game(stack, page):
    start_game(stack, page, "Rosa")
    click(page, "E5")
    page.locator(f'{BOARD}[data-move-count="2"]').wait_for(timeout=30_000)
    page.get_by_text("Your move").wait_for()
    assert wait_until(lambda: [g.move_count for g in stack.store.list_games(GameFilter(text="Rosa")).games] == [2])
    switch = page.get_by_role("switch", name="Teach me")
    assert switch.is_checked()  # a newcomer's level: on by default
    switch.click(force=True)  # Streamlit's toggle hides its input under the drawn switch
    page.wait_for_function("() => new URLSearchParams(location.search).get('teach')?.endsWith(':off')")

    page.reload()
    wait_for_app(page)
    board = page.locator(f'{BOARD}[data-move-count="2"]')
    board.wait_for(timeout=30_000)
    assert board.locator('circle.stone.black[data-vertex="E5"]').count() == 1
    assert page.get_by_role("button", name="Start the game").count() == 0, "not the new-game form"
    page.get_by_text("Your move").wait_for()
    assert not page.get_by_role("switch", name="Teach me").is_checked(), "the switch came back as it was left"
    # a hint shown comes back too (asked for again: the engine's search, not a copy)
    page.get_by_role("button", name="Hint").click()
    page.get_by_text("Hint: play ").wait_for(timeout=30_000)
    page.reload()
    wait_for_app(page)
    page.get_by_text("Hint: play ").wait_for(timeout=30_000)
    page.locator(f'{BOARD}[data-move-count="2"] g.rec').first.wait_for(timeout=30_000)
    click(page, "D4")
    page.locator(f'{BOARD}[data-move-count="4"]').wait_for(timeout=30_000)
