"""The live feed's engine answers for a watched board (``LiveFeed.watch``): why the top
five went missing and what keeps it there. A fake bus client stands in for the broker,
so each step (a partial answer, the final one, a refusal) comes exactly when the test
says. Found: the page showed nothing until the whole search was done (200 visits: most
of the time between two moves on a busy machine), and a refused request was sent again
at once, for ever (a storm of requests and refusals while, say, a board size the model
does not play stayed on the board)."""

from __future__ import annotations

import json
from concurrent.futures import Future
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from dashboard.live_analysis import LIVE_REPORT_MS, PARTIAL_EVERY_S, RETRY_S
from dashboard.live_feed import LiveFeed
from gobuddy.bus.engine_messages import EngineAnswer, EngineError
from gobuddy.bus.messages import GameStarted, MovePlayed
from gobuddy.bus.requests import EngineRequestFailed

EXAMPLE = json.loads((Path(__file__).resolve().parents[2] / "schemas" / "engine_answer.schema.json").read_text())
B = "board-1"


class FakeClient:
    """What ``LiveFeed`` uses of ``BusClient`` for its requests: each request_async is
    kept with its partial handler and a future the test completes."""

    def __init__(self) -> None:
        self.sent: list[tuple[Any, Any, Future]] = []

    def request_async(self, request: Any, *, on_partial: Any = None) -> Future:
        future: Future = Future()
        self.sent.append((request, on_partial, future))
        return future

    def stop(self) -> None:
        pass


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def feed_with_game(moves: list[str]) -> tuple[LiveFeed, FakeClient, Clock]:
    clock = Clock()
    feed = LiveFeed(None, monotonic=clock)
    client = FakeClient()
    feed.client = client  # type: ignore[assignment]
    game = "board-1-g"
    feed._on_board(SimpleNamespace(message=GameStarted(board_id=B, game_id=game, seq=0, size=9, komi=7.0,
                                                       rules="chinese"), retain=False))
    for n, vertex in enumerate(moves, start=1):
        play(feed, n, vertex)
    return feed, client, clock


def play(feed: LiveFeed, n: int, vertex: str) -> None:
    feed._on_board(SimpleNamespace(message=MovePlayed(board_id=B, game_id="board-1-g", seq=n, move_number=n,
                                                      color="B" if n % 2 else "W", vertex=vertex), retain=False))


def answer_for_board(feed: LiveFeed, *, during: bool, visits: int) -> EngineAnswer:
    board = feed.board(B)
    data = dict(EXAMPLE["examples"][0], is_during_search=during,
                position_key={"move_count": board.move_number, "hash": board.position_hash})
    data["root"] = dict(data["root"], visits=visits)
    return EngineAnswer.from_dict(data)


def test_the_top_five_shows_while_the_engine_searches_and_then_its_final_answer():
    feed, client, clock = feed_with_game(["E5", "C4"])
    feed.watch(B)
    assert len(client.sent) == 1
    request, on_partial, future = client.sent[0]
    assert request.purpose == "analysis" and request.report_every_ms == LIVE_REPORT_MS
    board = feed.board(B)
    assert feed.answer_for(board) is None and feed.analysing(B)
    on_partial(answer_for_board(feed, during=True, visits=40))
    shown = feed.answer_for(board)
    assert shown is not None and shown.is_during_search and shown.root.visits == 40
    generation = feed.generation
    on_partial(answer_for_board(feed, during=True, visits=60))  # a moment later: not worth a redraw
    assert feed.answer_for(board).root.visits == 40 and feed.generation == generation
    clock.now += PARTIAL_EVERY_S
    on_partial(answer_for_board(feed, during=True, visits=120))
    assert feed.answer_for(board).root.visits == 120
    future.set_result(answer_for_board(feed, during=False, visits=200))
    shown = feed.answer_for(board)
    assert not shown.is_during_search and shown.root.visits == 200 and not feed.analysing(B)
    feed.watch(B)
    assert len(client.sent) == 1  # answered: nothing more to ask


def test_a_partial_answer_for_an_earlier_position_is_never_shown():
    feed, client, _ = feed_with_game(["E5"])
    feed.watch(B)
    _, on_partial, future = client.sent[0]
    old = answer_for_board(feed, during=True, visits=30)
    play(feed, 2, "C4")  # the position moves on while the engine searches the old one
    on_partial(old)
    assert feed.answer_for(feed.board(B)) is None
    future.set_result(answer_for_board(feed, during=False, visits=200))  # (hash of the new position: not this request's)
    assert feed.answer_for(feed.board(B)) is None
    assert len(client.sent) == 2 and client.sent[1][0].position.moves == (("B", "E5"), ("W", "C4"))


def test_a_refused_request_is_not_sent_again_at_once_and_the_page_hears_why():
    feed, client, clock = feed_with_game(["E5"])
    feed.watch(B)
    busy = EngineError(id="r", error="worker engine-1 is busy: 3 ahead", worker="engine-1", code="busy",
                       retry_after_ms=3000)
    client.sent[0][2].set_exception(EngineRequestFailed(busy))
    assert len(client.sent) == 1  # not again at once
    for _ in range(5):
        feed.watch(B)
    assert len(client.sent) == 1
    assert "busy" in feed.analysis_trouble(feed.board(B))
    clock.now += 2.9
    feed.watch(B)
    assert len(client.sent) == 1  # the worker said 3 s
    clock.now += 0.2
    feed.watch(B)
    assert len(client.sent) == 2
    client.sent[1][2].set_exception(TimeoutError("no answer"))
    clock.now += RETRY_S - 0.1
    feed.watch(B)
    assert len(client.sent) == 2
    play(feed, 2, "C4")  # a new position is asked about at once
    assert len(client.sent) == 3 and feed.analysis_trouble(feed.board(B)) is None
