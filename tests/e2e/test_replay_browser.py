"""The Replay page in a real browser (Debian's Chromium under Playwright, the dashboard
served by ``streamlit run`` on loopback, no broker): open a stored, analysed game,
scroll down, click a mistake — the position changes and the board is still in view —,
click the graph on a move's column — the board goes there —, point at a candidate —
its line appears as numbered stones —; ``/live`` opens the Live page. Screenshots
under ``artifacts/screenshots/replay-*.png``."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from dashboard.store import Store
from tests.e2e.fixtures import dashboard_args
from tests.e2e.harness import StreamlitServer, browser_missing, chromium, screenshot, wait_for_app, wait_idle

# A 9x9 game of 30 moves; black's 11th move (move 21, C8) throws the game away.
MOVES = ("E5 C4 D3 G5 C6 E3 F4 D4 G6 H5 C3 D2 F3 E2 B4 B5 H6 H4 G4 G3 C8 F2 J4 J5 B6 A5 E6 H3 D7 E8").split()
VIEWPORT = {"width": 1400, "height": 900}


def sgf_of(moves: list[str]) -> str:
    letters = "abcdefghj"
    nodes = []
    for i, v in enumerate(moves):
        col, row = letters.index(v[0].lower()), 9 - int(v[1:])
        nodes.append(f";{'B' if i % 2 == 0 else 'W'}[{'abcdefghi'[col]}{'abcdefghi'[row]}]")
    return f"(;GM[1]FF[4]SZ[9]KM[7]RU[Chinese]DT[2026-01-20]PB[Ana]PW[Ben]RE[W+12]{''.join(nodes)})"


def black_lead(n: int) -> float:
    """Black's score lead after ``n`` moves: level, then lost at move 21."""
    return 2.0 + 0.1 * n if n < 21 else -12.0


def answer(n: int, to_play: str, key_hash: str) -> dict[str, Any]:
    lead = black_lead(n)
    wb = 0.5 + lead / 40
    mine, mine_lead = (wb, lead) if to_play == "B" else (1 - wb, -lead)
    cands = ["A1", "J9", "A9", "J1", "B8"]
    moves = [{"move": v, "order": i, "visits": 60 - 10 * i, "winrate": mine - 0.02 * i, "winrate_black": wb,
              "score_lead": mine_lead - i, "prior": 0.2, "pv": [v, "B2", "H8"] if i == 0 else [v]}
             for i, v in enumerate(cands)]
    return {"id": f"b-{n}", "board_id": None, "position_key": {"move_count": n, "hash": key_hash},
            "to_play": to_play, "root": {"visits": 100, "winrate": mine, "winrate_black": wb,
                                          "score_lead": mine_lead, "value": 0.0},
            "moves": moves, "ownership": None, "is_during_search": False, "model": "browser-test",
            "elapsed_ms": 5.0, "worker": "test", "ts": 1}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[StreamlitServer, Any, str]]:
    reason = browser_missing()
    if reason:
        pytest.skip(reason)
    tmp = tmp_path_factory.mktemp("replay-browser")
    url = f"sqlite:///{tmp / 'gobuddy.db'}"
    store = Store.open(url)
    game_id = store.import_sgf(sgf_of(MOVES))[0]
    for n, key in store.position_keys(game_id).items():
        store.save_analysis(key, "browser-test", answer(n, key.to_play, key.hash), move_count=n, game_id=game_id)
    store.close()
    with StreamlitServer(dashboard_args(url), log_path=tmp / "streamlit.log") as server, chromium() as browser:
        yield server, browser, game_id


@pytest.fixture
def page(served: tuple[StreamlitServer, Any, str]) -> Iterator[Any]:
    context = served[1].new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(30_000)
    yield page
    context.close()


def board_at(page: Any, moves: int, timeout_ms: int = 15_000) -> Any:
    board = page.locator(f'svg.go-board[data-move-count="{moves}"]').first
    board.wait_for(timeout=timeout_ms)
    return board


def in_view(page: Any, locator: Any) -> bool:
    """True when the whole element is inside the viewport."""
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= VIEWPORT["height"] + 1


def scroll_to_bottom(page: Any) -> None:
    page.mouse.move(VIEWPORT["width"] * 0.8, VIEWPORT["height"] * 0.6)
    for _ in range(12):
        page.mouse.wheel(0, 600)
    page.wait_for_timeout(300)


def test_a_mistake_click_keeps_the_board_in_view_and_the_graph_jumps(served, page):
    server, _, game_id = served
    page.goto(server.url(f"replay?game={game_id}"))
    wait_for_app(page)
    board = board_at(page, 0, 60_000)
    wait_idle(page)
    page.get_by_role("tab", name="Mistakes").click()
    mistake = page.get_by_role("button", name="Move 21 · Black C8")
    mistake.wait_for()
    scroll_to_bottom(page)
    # the page is taller than the window: scrolled down, the top of the page is gone, the board is not
    assert not in_view(page, page.locator("h1").first)
    assert in_view(page, board_at(page, 0)), board_at(page, 0).bounding_box()
    screenshot(page, "replay-scrolled")
    mistake.click()
    board = board_at(page, 20)
    wait_idle(page)
    assert in_view(page, board), board.bounding_box()
    assert board.locator('circle.stone[data-vertex="C8"]').count() == 0  # the position the mistake was played in
    screenshot(page, "replay-mistake")

    page.get_by_role("tab", name="Moves").click()
    page.get_by_text("21. ● C8").click()
    board = board_at(page, 21)
    assert board.locator('circle.mistake-mark[data-vertex="C8"]').count() == 1  # marked in the blunder's colour
    screenshot(page, "replay-move-list")
    assert in_view(page, board)

    wait_idle(page)
    graph = page.locator(".js-plotly-plot").filter(has=page.locator(".barlayer")).first
    graph.scroll_into_view_if_needed()
    page.wait_for_timeout(500)  # plotly redraws after the run and attaches its click handlers
    column = graph.locator(".barlayer .point").nth(7)
    box = column.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.3)  # well above the line
    board = board_at(page, 7)
    wait_idle(page)
    assert in_view(page, board)
    screenshot(page, "replay-graph-click")


def test_pointing_at_a_candidate_shows_its_line(served, page):
    server, _, game_id = served
    page.goto(server.url(f"replay?game={game_id}"))
    wait_for_app(page)
    board = board_at(page, 0, 60_000)
    wait_idle(page)
    line = board.locator('g.pv-hover[data-rank="1"]')
    page.wait_for_function("""() => {  // the page's hover rules come in its markdown, which may follow the board
        const g = document.querySelector('svg.go-board[data-move-count="0"] g.pv-hover[data-rank="1"]');
        return g !== null && getComputedStyle(g).visibility === 'hidden'; }""", timeout=10_000)
    board.locator('g.rec[data-rank="1"]').hover()
    page.wait_for_timeout(200)
    assert line.evaluate("g => getComputedStyle(g).visibility") == "visible"
    assert line.locator("g.pv-stone").count() == 3
    screenshot(page, "replay-hover-line")
    page.mouse.move(5, 5)
    page.wait_for_timeout(200)
    assert line.evaluate("g => getComputedStyle(g).visibility") == "hidden"
    page.keyboard.press("ArrowRight")  # the board the browser draws has the lines too
    board = board_at(page, 1)
    line = board.locator('g.pv-hover[data-rank="1"]')
    board.locator('g.rec[data-rank="1"]').hover()
    page.wait_for_timeout(200)
    assert line.evaluate("g => getComputedStyle(g).visibility") == "visible"
    stones = line.locator("g.pv-stone circle")
    assert [stones.nth(i).get_attribute("fill") for i in range(stones.count())] == ["#f4f4f4", "#111", "#f4f4f4"]


def test_live_has_its_own_address(served, page):
    server, _, _ = served
    page.goto(server.url("no-such-page"))  # what the check below would see, were /live unknown
    wait_for_app(page)
    page.get_by_text("Page not found").first.wait_for(timeout=10_000)
    page.goto(server.url("live"))
    wait_for_app(page)
    page.wait_for_timeout(1500)
    assert page.locator("h1").first.inner_text().startswith("Live")
    assert page.get_by_text("Page not found").count() == 0
    screenshot(page, "replay-live-route")


def click_point(page: Any, plot: Any, col: int, row: int, size: int = 9) -> None:
    """Click the intersection (column index, row number from the bottom) of a clickable board."""
    box = plot.bounding_box()
    span = size - 1 + 2.2
    page.mouse.click(box["x"] + (1.1 + col) / span * box["width"], box["y"] + (1.1 + size - row) / span * box["height"])


def test_trying_moves_on_the_board_leaves_the_game_and_a_refusal_moves_nothing(served, page):
    server, _, game_id = served
    page.goto(server.url(f"replay?game={game_id}"))
    wait_for_app(page)
    board_at(page, 0, 60_000)
    page.get_by_role("button", name="Next").click()
    board_at(page, 1)
    page.locator(".st-key-replay_panel_at_1").wait_for(state="attached")  # the server follows the board
    wait_idle(page)
    page.get_by_text("Try moves on the board").first.click()
    page.locator(".gb-replay-board.trying").wait_for()
    wait_idle(page)
    board = page.locator(".gb-replay-board svg.go-board")
    click_point(page, board, 2, 3)  # C3, white
    page.get_by_text("Move 1 of 30 + 1 tried").first.wait_for()
    board_at(page, 2)  # the variation's end, drawn by the server
    wait_idle(page)
    before = board.bounding_box()
    click_point(page, board, 4, 5)  # E5: taken by move 1
    page.locator("[data-testid=stToast]").filter(has_text="E5 is not possible").wait_for()
    wait_idle(page)
    after = board.bounding_box()
    assert (round(after["x"]), round(after["y"])) == (round(before["x"]), round(before["y"]))
    assert page.get_by_text("Move 1 of 30 + 1 tried").count() >= 1  # refused: nothing added
    assert page.get_by_text("+ 2 tried").count() == 0
    screenshot(page, "replay-try-refused")
    if not page.get_by_text("Variation from move 1:").is_visible():  # opened with a line tried
        page.get_by_text("Try another move here").click()
    page.get_by_text("Variation from move 1:").wait_for()
    screenshot(page, "replay-variation")
    wait_idle(page)
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.keyboard.press("ArrowRight")  # back on the game's line: its move 2 (C4), not the variation's C3
    board = page.locator(".gb-replay-board svg.go-board")
    page.locator('.gb-replay-board svg.go-board circle.stone[data-vertex="C4"]').wait_for()
    assert board.locator('circle.stone[data-vertex="C3"]').count() == 0
    page.locator(".st-key-replay_panel_at_2").wait_for()  # the server follows, off the variation
    wait_idle(page)
    assert page.locator(".st-key-replay_panel_at_2").inner_text().startswith("Move 2 of 30 ·")
    assert page.locator(".gb-replay-board.trying").count() == 1  # still trying moves, now from move 2
