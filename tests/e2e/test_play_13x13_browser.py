"""A 13x13 game on the Play page in a real browser (Debian's Chromium) against the real
engine worker with both shipped models, on a dashboard that offers 13x13
(``--play-sizes 9,13``): the form offers both sizes; clicks land on the 13x13 vertices
clicked and the engine answers on 13x13 (its 13x13 model: the 9x9 one would be
refused); undo takes back the learner's move and the answer; a resignation ends the
game, and the record, the Games page and the SGF (``SZ[13]``) all say 13x13.
The count on 13x13 is checked without a browser (``tests/dashboard/test_app_play.py``):
no opponent level passes early enough for a short game to reach it.
"""

from __future__ import annotations

from typing import Iterator

import pytest

from gobuddy.go.sgf import parse_sgf
from tests.e2e.conftest import Stack, real_engine_stack
from tests.e2e.harness import browser_missing, real_services_available, screenshot, wait_for_app, wait_idle
from tests.e2e.test_play_fragment_e2e import click
from tests.e2e.test_play_full_game import board_at, last_move, stones, stored_game
from tests.mqtt_broker import find_mosquitto

LEVEL = "5 kyu"  # a 16-visit search: quick answers


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """Broker, an engine worker with the shipped models (9x9 and 13x13), the recorder and
    a dashboard that offers both sizes."""
    reason = browser_missing() or (None if find_mosquitto() else "mosquitto is not installed")
    if not reason and not real_services_available()["engine_worker"]:
        reason = "the real engine worker is needed: the 13x13 game is played by the shipped 13x13 model"
    if reason:
        pytest.skip(reason)
    with real_engine_stack(tmp_path_factory.mktemp("e2e-13x13"), ["--visits", "64", "--status-interval", "1"],
                           ["--analysis-visits", "16", "--play-sizes", "9,13"]) as stack:
        yield stack


def test_a_13x13_game_is_played_undone_resigned_and_stored_as_13x13(stack, page, tmp_path):
    name = "Thirza"
    page.goto(stack.server.url("play"))
    wait_for_app(page)
    page.get_by_label("Your name").fill(name)
    page.get_by_role("combobox", name="Opponent").click()
    page.get_by_role("option", name=LEVEL, exact=True).click()
    page.get_by_role("combobox", name="Board size").click()
    assert page.get_by_role("option").all_inner_texts() == ["9x9", "13x13"]
    page.get_by_role("option", name="13x13", exact=True).click()
    page.get_by_role("button", name="Start the game").click()
    board_at(page, 0)
    page.get_by_text(f"against gobuddy at {LEVEL} · 13x13").wait_for()
    # clicks land where they are aimed on the 13x13 board, corners included; the engine answers there
    played: list[str] = []
    for vertex in ("K10", "N1"):
        click(page, vertex, size=13)
        board_at(page, len(played) + 2)
        answer = last_move(page)
        assert stones(page).get(vertex) == "X", f"the click at {vertex} put no black stone there"
        assert answer != "pass" and stones(page)[answer] == "O"
        assert answer[0] in "ABCDEFGHJKLMN" and 1 <= int(answer[1:]) <= 13
        played += [vertex, answer]
    assert len(stones(page)) == 4
    screenshot(page, "play-13x13")
    # undo: the learner's move and the engine's answer go
    page.get_by_role("button", name="Undo").click()
    board_at(page, 2)
    assert stones(page) == {played[0]: "X", played[1]: "O"}
    detail = stored_game(stack, name, lambda d: len(d.moves) == 2)
    assert (detail.game.size, [m.vertex for m in detail.moves]) == (13, played[:2])
    # resign: the game ends, stored as a 13x13 game
    page.get_by_role("button", name="Resign").click()
    page.get_by_text("Game over: W+R (resignation)").wait_for()
    detail = stored_game(stack, name, lambda d: d.game.result is not None)
    assert detail.game.result == "W+R"
    page.goto(stack.server.url("games"))
    wait_for_app(page)
    page.get_by_label("Search (name, player, id)").fill(name)
    page.keyboard.press("Enter")
    page.get_by_text(f"{detail.game.id} · 13x13, komi 7").wait_for()
    wait_idle(page)
    with page.expect_download() as download_info:
        page.get_by_role("button", name="Download SGF").click()
    text = open(download_info.value.path(), encoding="utf-8").read()
    record = parse_sgf(text)[0]
    assert record.info.size == 13 and "RE[W+R]" in text

