"""Replay shows why a mistake was one, in a real browser (Debian's Chromium under
Playwright, the dashboard served by ``streamlit run`` on loopback, no broker): a stored
game where black's move 15 (C8) misses the capture of three white stones; a click on
the mistake shows the position before it with the reasons in plain words beside it
(against C8, and for the engine's G5: it captures 3 stones), the top reason's points
squared on the board. Screenshot: ``artifacts/screenshots/reasons-replay.png``."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from dashboard.store import Store
from tests.dashboard.test_app_replay import capture_game
from tests.e2e.fixtures import dashboard_args
from tests.e2e.harness import StreamlitServer, browser_missing, chromium, screenshot, wait_for_app, wait_idle


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[StreamlitServer, Any, str]]:
    reason = browser_missing()
    if reason:
        pytest.skip(reason)
    tmp = tmp_path_factory.mktemp("reasons-browser")
    url = f"sqlite:///{tmp / 'gobuddy.db'}"
    store = Store.open(url)
    game_id = capture_game(store)
    store.close()
    with StreamlitServer(dashboard_args(url), log_path=tmp / "streamlit.log") as server, chromium() as browser:
        yield server, browser, game_id


def test_a_mistake_in_replay_shows_its_reasons_and_marks_the_board(served):
    server, browser, game_id = served
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        page.goto(server.url(f"replay?game={game_id}"))
        wait_for_app(page)
        page.locator('svg.go-board[data-move-count="0"]').first.wait_for(timeout=60_000)
        wait_idle(page)
        assert page.locator(".st-key-reasons_replay_played").count() == 0  # the start: no mistake next
        page.get_by_role("tab", name="Mistakes").click()
        mistake = page.get_by_role("button", name="Move 15 · Black C8")
        # under the entry in the list: its first reason, and the engine's choice's
        box = page.locator(".st-key-replay_mistakes_box")
        assert "Captures 3 stones at D5 E5 F5." in box.inner_text()
        mistake.click()
        board = page.locator('svg.go-board[data-move-count="14"]').first
        board.wait_for()
        wait_idle(page)
        played = page.locator(".st-key-reasons_replay_played")
        played.wait_for()
        said = played.inner_text()
        assert "Why black C8 was a blunder" in said
        assert "territory" in said and "The engine expects about 13 points more at G5 than at the move played." in said
        hint = page.locator(".st-key-reasons_replay_hint").inner_text()
        assert "Why G5, the engine's choice" in hint
        assert "capture" in hint and "Captures 3 stones at D5 E5 F5." in hint
        assert played.is_visible() and played.bounding_box()["height"] > 0
        marks = board.locator("rect.reason-mark")
        assert [marks.nth(i).get_attribute("data-vertex") for i in range(marks.count())] == ["G5", "C8"]
        screenshot(page, "reasons-replay")
    finally:
        context.close()
