"""The teacher on the Play page in a real browser (Debian's Chromium under Playwright,
the dashboard served by ``streamlit run``, Mosquitto, the real recorder and an engine
worker with the shipped model, so that the judgements are the engine's own): a
newcomer (the weakest level: "Teach me" on) plays E5, a good move, and the engine
replies without a stop; a pass, a big mistake, stops the game with its point loss and
the better point marked on the board, and is taken back (the engine waits); a pass
again stops the game again; the page is reloaded and the stop comes back (the move is
judged again: ``play_resume.rejudge``); kept, it lets the engine reply. Both decisions go over the bus as ``teaching``
events and the recorder keeps them as the game's notes; the SGF export writes the
taken-back pass as a variation with its loss. Screenshot:
``artifacts/screenshots/play-teacher.png``."""

from __future__ import annotations

import contextlib
import re
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from dashboard.store import Store
from gobuddy.go.game import Game
from gobuddy.go.sgf import parse_sgf
from tests.e2e.fixtures import dashboard_args
from tests.e2e.harness import (ServiceProcess, StreamlitServer, broker_args, browser_missing, chromium,
                               real_services_available, recorder, screenshot, wait_for_app, wait_online)
from tests.e2e.test_play_fragment_e2e import BOARD, click
from tests.mqtt_broker import MosquittoBroker, find_mosquitto

MODEL = Path(__file__).resolve().parents[2] / "models" / "gobuddy-9x9.onnx"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Store, Any]]:
    reason = browser_missing() or (None if find_mosquitto() else "mosquitto is not installed")
    if not reason and not real_services_available()["engine_worker"]:
        reason = "the real engine worker is needed: the teacher judges with the shipped model"
    if reason:
        pytest.skip(reason)
    tmp = tmp_path_factory.mktemp("teach")
    url = f"sqlite:///{tmp / 'gobuddy.db'}"
    store = Store.open(url)
    with contextlib.ExitStack() as stack:
        broker = stack.enter_context(MosquittoBroker(boards=("board-1",)))
        worker = stack.enter_context(ServiceProcess(
            "engine_worker", [*broker_args(broker, "engine-teach-1"), "--model", str(MODEL), "--visits", "4000",
                              "--status-interval", "1"], tmp / "engine_worker.log"))
        kept = stack.enter_context(recorder(broker, store, url, tmp))
        server = stack.enter_context(StreamlitServer(dashboard_args(url, broker), log_path=tmp / "streamlit.log"))
        wait_online(broker.config("observer"), {"engine": 1, "recorder": 1},
                    [s for s in (worker, kept) if isinstance(s, ServiceProcess)])
        browser = stack.enter_context(chromium())
        yield server, store, browser
    store.close()


def teacher(page) -> Any:
    return page.locator(".st-key-play_teacher")


def teacher_said(page, timeout_ms: int = 30_000) -> str:
    """The teacher's whole stop, once drawn: the panel's elements arrive one by one, so
    wait for its last one (the "Keep my move" button) before reading it."""
    teacher(page).get_by_role("button", name="Keep my move").wait_for(timeout=timeout_ms)
    return teacher(page).inner_text()


def stored_pass(store: Store, game_id: str, timeout_s: float = 10.0) -> None:
    """Wait until the record holds the pass of move 3 and the take-back before it (a
    reload before the recorder caught up would offer to abandon the game instead)."""
    deadline = time.monotonic() + timeout_s
    while True:
        moves = [m.vertex for m in store.get_game(game_id).moves]
        if len(moves) == 3 and moves[2] == "pass" and len(store.teaching_notes(game_id)) == 1:
            return
        assert time.monotonic() < deadline, f"the record of {game_id} holds {moves}, not the pass of move 3"
        time.sleep(0.1)


def notes_of(store: Store, game_id: str, count: int, timeout_s: float = 10.0) -> list:
    deadline = time.monotonic() + timeout_s
    while True:
        notes = store.teaching_notes(game_id)
        if len(notes) >= count or time.monotonic() > deadline:
            return notes
        time.sleep(0.1)


def test_the_teacher_stops_a_big_mistake_lets_a_good_move_pass_and_records_both_decisions(served) -> None:
    server, store, browser = served
    context = browser.new_context(viewport={"width": 1400, "height": 1800})
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        page.goto(server.url("play"))
        wait_for_app(page)
        page.get_by_label("Your name").fill("Tess")
        page.get_by_role("button", name="Start the game").click()
        page.locator(f'{BOARD}[data-move-count="0"]').wait_for(timeout=30_000)
        page.get_by_text("Your move").wait_for()
        assert page.get_by_role("switch", name="Teach me").is_checked()  # a newcomer: the weakest level
        # a good move: judged, no stop, the engine replies
        click(page, "E5")
        page.locator(f'{BOARD}[data-move-count="2"]').wait_for(timeout=30_000)
        page.get_by_text("Your move").wait_for()
        assert teacher(page).count() == 0
        # a big mistake: passing in the opening; the teacher stops the game, the engine waits
        page.get_by_role("button", name="Pass").click()
        said = teacher_said(page)
        found = re.search(r"Teacher: pass loses about ([\d.]+) points?\. A better move was ([A-HJ-Z]\d)", said)
        assert found, said
        lost, better = float(found.group(1)), found.group(2)
        assert lost > 3
        assert "Why not pass" in said  # the reasons in plain words, as the hints tell them
        board = page.locator(f'{BOARD}[data-move-count="3"]')
        assert board.locator(f'g.rec[data-rank="1"][data-vertex="{better}"]').count() == 1
        screenshot(page, "play-teacher")
        time.sleep(1.0)  # the engine is not asked meanwhile: still three moves
        assert page.locator(f'{BOARD}[data-move-count="3"]').count() == 1
        page.get_by_role("button", name="Take back and try again").click()
        page.locator(f'{BOARD}[data-move-count="2"]').wait_for(timeout=30_000)
        page.get_by_text("Your move").wait_for()
        assert teacher(page).count() == 0
        # the same mistake again, and the page reloaded while the stop is open: the stop comes back
        page.get_by_role("button", name="Pass").click()
        teacher(page).wait_for(timeout=30_000)
        game_id = store.list_games().games[0].id
        stored_pass(store, game_id)
        page.reload()
        wait_for_app(page)
        assert re.search(r"Teacher: pass loses about [\d.]+ points?\.", teacher_said(page))
        page.locator(f'{BOARD}[data-move-count="3"]').wait_for(timeout=30_000)  # the board draws after the panel
        time.sleep(1.0)  # the engine still waits: still three moves
        assert page.locator(f'{BOARD}[data-move-count="3"]').count() == 1
        # kept: the engine replies
        page.get_by_role("button", name="Keep my move").click()
        page.locator(f'{BOARD}[data-move-count="4"]').wait_for(timeout=30_000)
        assert teacher(page).count() == 0
    finally:
        context.close()
    game_id = store.list_games().games[0].id
    notes = notes_of(store, game_id, 2)
    assert [(n.move_number, n.color, n.vertex, n.decision, n.better, n.level) for n in notes] == [
        (3, "B", "pass", "taken_back", better, "30 kyu"), (3, "B", "pass", "kept", notes[1].better, "30 kyu")]
    assert notes[0].points_lost == lost
    deadline = time.monotonic() + 10
    while len(store.get_game(game_id).moves) < 4 and time.monotonic() < deadline:
        time.sleep(0.1)
    text = store.export_sgf(game_id, with_analysis=False)
    assert f"C[Taken back: loses {lost:g} points; better {better}]" in text
    assert "Kept after the teacher's warning" in text
    game, _ = Game.from_record(parse_sgf(text)[0])
    assert [(t.number, t.points_lost) for t in game.variations] == [(3, lost)]
