"""Thinking longer about one position (``game_analysis.think_longer``): the partial
answers reach the page as the search grows, in order and in the page's thread, and
only the final one is stored — with a stand-in bus client that answers like a worker."""

from __future__ import annotations

import threading
from concurrent.futures import Future
from typing import Any

import pytest

from dashboard.views.game_analysis import think_longer
from gobuddy.bus.engine_messages import EngineAnswer
from tests.dashboard.test_app_replay import SGF, answer


class GrowingSearch:
    """``request_async`` as the bus client's: partial answers at 10, 20, 30 visits on
    another thread, then the final one at 40 (for the position the request names)."""

    def __init__(self, key_hash: str, wrong_position: bool = False) -> None:
        self.key_hash, self.wrong = key_hash, wrong_position
        self.requests: list[Any] = []

    def reply(self, n: int, visits: int, final: bool) -> EngineAnswer:
        data = answer(n, "B" if n % 2 == 0 else "W", "00000000000000ff" if self.wrong else self.key_hash)
        data["root"]["visits"] = visits
        data["is_during_search"] = not final
        data["ownership"] = [0.0] * 81
        data["ts"] = 1767953700000
        return EngineAnswer.from_dict(data)

    def request_async(self, request: Any, *, on_partial: Any = None) -> Future:
        self.requests.append(request)
        future: Future = Future()
        n = len(request.position.moves)

        def search() -> None:
            for visits in (10, 20, 30):
                on_partial(self.reply(n, visits, False))
            future.set_result(self.reply(n, 40, True))

        threading.Thread(target=search).start()
        return future


class Feed:
    def __init__(self, client: Any) -> None:
        self.client = client


def test_the_partial_answers_are_shown_and_the_final_one_stored(store):
    (game_id,) = store.import_sgf(SGF)
    keys = store.position_keys(game_id)
    client = GrowingSearch(keys[2].hash)
    seen: list[tuple[int, str]] = []
    final, stored = think_longer(Feed(client), store, store.get_game(game_id), keys, 2, visits=800, timeout_s=10,
                                 on_partial=lambda a: seen.append((a["root"]["visits"],
                                                                   threading.current_thread().name)))
    (request,) = client.requests
    assert request.max_visits == 800 and request.report_every_ms == 500 and request.include_ownership
    assert [v for v, _ in seen] == [10, 20, 30]
    assert {name for _, name in seen} == {threading.current_thread().name}  # the page's thread draws them
    assert stored and final["root"]["visits"] == 40
    assert store.analyses_for_game(game_id)[2].visits == 40
    _, again = think_longer(Feed(GrowingSearch(keys[2].hash)), store, store.get_game(game_id), keys, 2, visits=800,
                            timeout_s=10)
    assert not again  # as deep as the stored one: kept


def test_an_answer_for_another_position_is_not_stored(store):
    (game_id,) = store.import_sgf(SGF)
    keys = store.position_keys(game_id)
    with pytest.raises(ValueError, match="another position"):
        think_longer(Feed(GrowingSearch(keys[1].hash, wrong_position=True)), store, store.get_game(game_id), keys, 1,
                     visits=800, timeout_s=10)
    assert store.analyses_for_game(game_id) == {}


def test_without_a_broker_it_says_so():
    with pytest.raises(ConnectionError, match="--no-bus"):
        think_longer(Feed(None), None, None, {1: None}, 1, visits=10, timeout_s=1)  # type: ignore[arg-type]
