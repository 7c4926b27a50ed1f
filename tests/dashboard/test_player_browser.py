"""The Player page in a real browser (Debian's Chromium under Playwright, the dashboard
under ``streamlit run``) on a history of 200 generated games of three players: open the
page, see the plots and the games list, choose another player, follow one of the week's
mistakes into Replay at its move. Screenshots go to ``artifacts/screenshots/``."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from dashboard.store import Store
from tests.dashboard.player_data import fill
from tests.e2e.fixtures import dashboard_args
from tests.e2e.harness import StreamlitServer, browser_missing, chromium, screenshot, wait_for_app, wait_idle


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory):
    reason = browser_missing()
    if reason:
        pytest.skip(reason)
    tmp = tmp_path_factory.mktemp("player-e2e")
    url = f"sqlite:///{tmp / 'gobuddy.db'}"
    store = Store.open(url)
    ids = fill(store, 200, now=datetime.now(timezone.utc), days=60)
    server = StreamlitServer(dashboard_args(url), log_path=tmp / "streamlit.log").start()
    try:
        with chromium() as browser:
            context = browser.new_context(viewport={"width": 1400, "height": 3000})  # the whole page in a screenshot
            page = context.new_page()
            page.set_default_timeout(60_000)
            yield store, ids, server, page
            context.close()
    finally:
        server.stop()
        store.close()


def test_a_players_history_in_the_browser(served):
    store, ids, server, page = served
    page.goto(server.url("player?player=Ana"))
    wait_for_app(page, 90_000)
    page.get_by_role("heading", name="Player").first.wait_for()
    wait_idle(page, 60_000)
    page.locator(".js-plotly-plot").nth(3).wait_for()  # the ladder, quality, classes, kinds
    assert page.locator(".js-plotly-plot").count() == 4
    page.get_by_text("steps of the ladder", exact=False).first.wait_for()
    page.locator('[data-testid="stDataFrame"]').nth(2).wait_for()  # first moves, results, games
    assert page.locator('[data-testid="stDataFrame"]').count() == 3
    page.get_by_text("Estimated rank", exact=False).first.wait_for()
    screenshot(page, "player_ana")

    page.locator(".st-key-player_id").click()  # choose another player
    page.get_by_role("option", name="Cleo", exact=False).click()
    page.wait_for_url("**/player?player=Cleo")
    wait_idle(page, 60_000)
    mistake = store.player_history(ids["Cleo"]).top_mistakes[0]
    page.get_by_text(f"move {mistake.move_number}, ", exact=False).first.wait_for()
    page.locator(".js-plotly-plot").nth(3).wait_for()
    screenshot(page, "player_cleo")

    page.locator(".st-key-player_mistake_0 button").click()  # the biggest mistake of the week, into Replay
    page.wait_for_url(f"**/replay?game={mistake.game_id}*")
    page.get_by_role("heading", name="Replay").first.wait_for()
    board = page.locator(f'svg.go-board[data-move-count="{mistake.move_number - 1}"]').first
    board.wait_for(timeout=60_000)  # the position the mistake was played in
    wait_idle(page, 60_000)
    screenshot(page, "player_mistake_in_replay")
