"""The Play page's clickable board (``dashboard.views.click_board``) in a real browser
(Debian's Chromium) on a page of its own (``click_board_app``): a click is never lost
and never taken twice, even when it is made while a run of the board is in flight.

Streamlit keeps only the newest trigger value of a widget among the reruns queued
behind a run in flight: of two clicks made meanwhile, the first was lost. The board
sends every click not yet answered with each click, and again until a board drawn
after it says the server took it; the server takes each click number once."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.e2e.harness import REPO, StreamlitServer, browser_missing, chromium, wait_for_app, wait_idle
from tests.e2e.test_play_fragment_e2e import BOARD, click

RUNNING = '[data-testid="stApp"][data-test-script-state="running"]'


@pytest.fixture(scope="module")
def board_page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Path]]:
    """The board's page in Chromium, and the file that holds a run while it exists."""
    reason = browser_missing()
    if reason:
        pytest.skip(reason)
    tmp = tmp_path_factory.mktemp("click-board")
    hold = tmp / "hold"
    with StreamlitServer([str(hold)], app=REPO / "tests" / "e2e" / "click_board_app.py",
                         log_path=tmp / "streamlit.log") as server, chromium() as browser:
        page = browser.new_page(viewport={"width": 1000, "height": 1000})
        page.set_default_timeout(30_000)
        page.goto(server.url(""))
        wait_for_app(page, 60_000)
        yield page, hold


def test_clicks_made_while_a_run_is_in_flight_are_each_taken_once(board_page):
    page, hold = board_page
    page.locator(BOARD).wait_for()
    wait_idle(page)
    hold.touch()
    click(page, "A1")  # its run takes the click and holds before it draws
    page.wait_for_selector(RUNNING)
    for vertex in ("B2", "C3", "C3"):  # made while that run is in flight; the same point twice counts twice
        click(page, vertex)
    hold.unlink()
    taken = page.get_by_text("Clicks taken:")
    taken.filter(has_text="A1 B2 C3 C3").wait_for()
    wait_idle(page)
    click(page, "D4")  # and the board goes on from there
    taken.filter(has_text="C3 D4").wait_for()
    wait_idle(page)
    assert taken.inner_text() == "Clicks taken: A1 B2 C3 C3 D4"
