"""Stepping through a game on the Replay page happens in the browser (Debian's Chromium
under Playwright; the dashboard under ``streamlit run`` with Mosquitto and an engine
worker in this process): the keys, the step buttons, the slider and the move list
change the board before the page runs at all, and the board the browser draws is the
board the server draws; the server learns the move shown afterwards (its panel
follows), and at once when a button beside the board is pressed: "Analyse this
position" analyses the position on the board, however quickly it was stepped to.
Screenshot: ``artifacts/screenshots/replay-stepped.png``."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from dashboard.store import Store
from tests.e2e.fixtures import dashboard_args
from tests.e2e.harness import StreamlitServer, browser_missing, chromium, screenshot, wait_for_app, wait_idle
from tests.e2e.stand_ins import engine_for_tests
from tests.dashboard.test_app_replay import counted_game
from tests.e2e.test_replay_browser import MOVES, answer, sgf_of
from tests.mqtt_broker import MosquittoBroker, find_mosquitto

VIEWPORT = {"width": 1400, "height": 900}
# The sidebar's status lines redraw on a timer; that fragment's run would show in LOG as a
# page run the step did not cause, so here they redraw once a minute.
QUIET_SIDEBAR = ("--status-interval", "60")
LOG = """() => {
  // what happened, in order: the board showing a move count, the page's runs starting and ending
  window.__log = [];
  const app = document.querySelector('[data-testid="stApp"]');
  new MutationObserver(() => window.__log.push('run:' + app.dataset.testScriptState))
    .observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
  const holder = document.querySelector('.gb-replay-board');
  new MutationObserver(() => {
    const svg = holder.querySelector('svg.go-board');
    if (svg) window.__log.push('board:' + svg.dataset.moveCount);
  }).observe(holder, {childList: true});
}"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[StreamlitServer, Any, str, str]]:
    reason = browser_missing() or (None if find_mosquitto() else "mosquitto is not installed")
    if reason:
        pytest.skip(reason)
    tmp = tmp_path_factory.mktemp("replay-stepping")
    url = f"sqlite:///{tmp / 'gobuddy.db'}"
    store = Store.open(url)
    game_id = store.import_sgf(sgf_of(MOVES))[0]
    for n, key in store.position_keys(game_id).items():  # shallow, without ownership: each may be asked again
        shallow = answer(n, key.to_play, key.hash)
        shallow["root"]["visits"] = 5
        store.save_analysis(key, "browser-test", shallow, move_count=n, game_id=game_id)
    store.close()
    with MosquittoBroker(boards=("board-1",)) as broker, engine_for_tests(broker.config("engine-1")), \
            StreamlitServer(dashboard_args(url, broker, *QUIET_SIDEBAR), log_path=tmp / "streamlit.log") as server, \
            chromium() as browser:
        yield server, browser, game_id, url


@pytest.fixture
def page(served: tuple[StreamlitServer, Any, str, str]) -> Iterator[Any]:
    server, browser, game_id, _ = served
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(server.url(f"replay?game={game_id}"))
    wait_for_app(page)
    board_at(page, 0, 60_000)
    wait_idle(page)
    yield page
    context.close()


def board_at(page: Any, moves: int, timeout_ms: int = 15_000) -> Any:
    board = page.locator(f'.gb-replay-board svg.go-board[data-move-count="{moves}"]')
    board.wait_for(timeout=timeout_ms)
    return board


def panel_at(page: Any, moves: int) -> None:
    """Wait until the server's panel shows the position after ``moves`` moves."""
    page.locator(f".st-key-replay_panel_at_{moves}").wait_for()
    wait_idle(page)


def stepped_before_any_run(page: Any, step: Any, moves: int) -> list[str]:
    """Do ``step``; the board shows ``moves`` before the page runs (the log of what
    happened, in order, is returned)."""
    page.evaluate(LOG)
    step()
    board_at(page, moves)
    log = page.evaluate("() => window.__log")
    assert log and log[0] == f"board:{moves}", log
    return log


STEPS = [  # (how, the move count shown after it)
    ("key ArrowRight", 1),
    ("key ArrowRight", 2),
    ("key ArrowLeft", 1),
    ("key End", 30),
    ("key Home", 0),
    ("button Next", 1),
    ("button Next", 2),
    ("button Back", 1),
    ("button End", 30),
    ("button Start", 0),
    ("list 5. ● C6", 5),
    ("list 21. ● C8", 21),
    ("list Start", 0),
]


def test_keys_buttons_and_the_move_list_step_the_board_before_the_page_runs(page):
    page.get_by_role("tab", name="Moves").click()
    page.locator(".gb-replay-moves").wait_for()
    wait_idle(page)
    page.evaluate("() => document.activeElement.blur()")  # a tab focused takes the arrows for itself
    for how, moves in STEPS:
        kind, _, what = how.partition(" ")
        if kind == "key":
            step = lambda: page.keyboard.press(what)  # noqa: E731
        elif kind == "button":
            step = page.get_by_role("button", name=what, exact=True).click
        else:
            step = page.locator(".gb-replay-moves .gb-move").filter(has_text=what).first.click
        stepped_before_any_run(page, step, moves)
        selected = page.locator(".gb-replay-moves .gb-move.selected")
        assert selected.get_attribute("data-move") == str(moves), how  # the list follows
        assert page.locator(".position-ruler").get_attribute("data-move") == str(moves), how  # so does the ruler
        panel_at(page, moves)  # and, a moment later, the server
    screenshot(page, "replay-stepped")


def test_a_quick_run_of_keys_is_one_report_and_the_slider_steps_too(page):
    page.evaluate(LOG)
    # The reports the board sends the server, counted where they are sent. (Page runs
    # are not a count of reports: one report is a run of its callback and then the rerun
    # of the views it asks for, which a busy machine shows as two runs.)
    page.evaluate("""() => { const s = window.gobuddyReplayActive; const send = s.report;
        window.__reports = []; s.report = (n) => { window.__reports.push(n); send(n); }; }""")
    # Four presses inside one task, as a held key repeats: quick whatever the machine's
    # load (Playwright's own presses, one round trip each, can be 200 ms apart on a busy
    # machine, and each would then be a report of its own). Single real presses: above.
    page.evaluate("""() => { for (let i = 0; i < 4; i++)
        document.body.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true})); }""")
    board_at(page, 4)
    panel_at(page, 4)
    log = page.evaluate("() => window.__log")
    # the board drew move 4 before any run (the observer sees the four redraws of one task
    # as one), and the server was told once, of move 4, not of each step
    assert log[0] == "board:4" and [e for e in log if e.startswith("board:")] == ["board:4"], log
    assert page.evaluate("() => window.__reports") == [4], log
    slider = page.locator(".gb-replay-slider")
    slider.focus()
    page.keyboard.press("ArrowRight")  # with the slider focused, one step (its own is prevented)
    board_at(page, 5)
    panel_at(page, 5)


def test_the_browsers_board_is_the_servers(page):
    """At a position the server drew (a mistake clicked: a jump), step away and back:
    the browser's own drawing of it is the server's, to the character."""
    page.get_by_role("tab", name="Mistakes").click()
    page.get_by_role("button", name="Move 21 · Black C8").click()
    board_at(page, 20)
    wait_idle(page)
    page.evaluate("() => document.activeElement.blur()")
    drawn_by_server = page.locator(".gb-replay-board").inner_html()
    assert 'class="reason-mark"' in drawn_by_server or 'class="rec"' in drawn_by_server
    page.keyboard.press("ArrowRight")
    board_at(page, 21)
    after = page.locator(".gb-replay-board svg.go-board")
    assert after.locator('circle.mistake-mark[data-vertex="C8"]').count() == 1  # the blunder marked
    page.keyboard.press("ArrowLeft")
    board_at(page, 20)
    assert page.locator(".gb-replay-board").inner_html() == drawn_by_server


def test_analyse_this_position_analyses_the_position_on_the_board(page, served):
    _, _, game_id, url = served
    button = page.get_by_role("button", name="Analyse this position")
    button.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    for _ in range(6):
        page.keyboard.press("ArrowRight")
    button = button.bounding_box()
    page.mouse.click(button["x"] + button["width"] / 2, button["y"] + button["height"] / 2)  # before the report was due
    board_at(page, 6)
    page.get_by_text("Analysed 1 position(s)").wait_for(timeout=60_000)
    wait_idle(page)
    store = Store.open(url, migrate=False)
    try:
        owned = {n for n, a in store.analyses_for_game(game_id).items() if a.answer.get("ownership") is not None}
    finally:
        store.close()
    assert owned == {6}
    board_at(page, 6)  # still there


def test_quick_clicks_in_the_move_list_are_not_held(page):
    """A click beside the board waits for the server when a step is not yet reported;
    the move list is the board's own: a second click right after the first steps at once."""
    page.get_by_role("tab", name="Moves").click()
    page.locator(".gb-replay-moves").wait_for()
    wait_idle(page)
    page.locator(".gb-replay-moves .gb-move").nth(7).scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    entries = page.locator(".gb-replay-moves .gb-move")
    first, second = entries.nth(3).bounding_box(), entries.nth(7).bounding_box()
    page.evaluate(LOG)
    page.mouse.click(first["x"] + 20, first["y"] + first["height"] / 2)
    page.mouse.click(second["x"] + 20, second["y"] + second["height"] / 2)
    board_at(page, 7)
    log = page.evaluate("() => window.__log")
    assert log[:2] == ["board:3", "board:7"], log
    panel_at(page, 7)


def test_a_graph_click_right_after_steps_goes_to_its_move(page):
    """The graph's click is its own run: a step's report due in the same moment waits
    for it (sent with it, one of the two was lost: the board stayed at 3)."""
    graph = page.locator(".js-plotly-plot").filter(has=page.locator(".barlayer")).first
    graph.scroll_into_view_if_needed()
    page.wait_for_timeout(500)  # plotly attaches its click handlers after drawing
    column = graph.locator(".barlayer .point").nth(12).bounding_box()
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    page.mouse.click(column["x"] + column["width"] / 2, column["y"] + column["height"] * 0.3)  # a report still due
    board_at(page, 12)
    panel_at(page, 12)
    assert page.locator(".gb-replay-board svg.go-board").get_attribute("data-move-count") == "12"


def test_stepped_to_the_end_the_board_crosses_out_the_stones_counted_dead(page, served):
    """The browser draws a step from the main line; at the end of a game whose count
    named dead stones the server draws the board again, with them crossed out, and the
    panel says how the result was counted."""
    server, _, _, url = served
    store = Store.open(url, migrate=False)
    try:
        game_id = counted_game(store)
    finally:
        store.close()
    page.goto(server.url(f"replay?game={game_id}"))
    board_at(page, 0)
    wait_idle(page)
    page.get_by_role("button", name="End", exact=True).click()
    board_at(page, 22).locator('path.dead[data-vertex="C7"]').wait_for()
    page.get_by_text("W+7 by area count; 1 white stone counted dead").wait_for()
    assert page.locator(".gb-replay-board path.dead").count() == 1
