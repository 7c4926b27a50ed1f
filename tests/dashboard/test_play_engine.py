"""``views/play_engine``: the Play page's request in flight is handed over once it is
over, and one about an earlier position (an undo, a new game meanwhile) is dropped,
never applied to the position now on the board. Run in a script run of its own
(``AppTest.from_function``): the request lives in the session."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def steps() -> None:
    import time
    from concurrent.futures import Future
    from types import SimpleNamespace

    import streamlit as st

    from dashboard.views.play_engine import PENDING, Pending, take_pending
    from dashboard.views.play_game import PlayGame

    services = SimpleNamespace(config=SimpleNamespace(analysis_timeout_s=5.0))
    game = PlayGame.new("web-1")
    game.play("E5")
    out = st.session_state.setdefault("out", [])

    def pending(moves: int, result: object = None, sent: float | None = None) -> Future:
        future: Future = Future()
        if result is not None:
            future.set_result(result)
        st.session_state[PENDING] = Pending("genmove", game.game_id, moves, future,
                                            time.monotonic() if sent is None else sent)
        return future

    running = pending(1)
    out.append(("running", take_pending(services, game), PENDING in st.session_state))
    running.set_result("answer")
    out.append(("answered", take_pending(services, game), PENDING in st.session_state))
    pending(0, result="late")  # asked before E5: the position moved on
    out.append(("earlier", take_pending(services, game), PENDING in st.session_state))
    pending(1, sent=time.monotonic() - 7.0)  # past its deadline with no word
    taken = take_pending(services, game)
    out.append(("deadline", (taken[0], taken[1], type(taken[2]).__name__), PENDING in st.session_state))


def test_the_request_in_flight_is_handed_over_once_and_never_for_another_position():
    at = AppTest.from_function(steps).run()
    assert not at.exception
    assert at.session_state["out"] == [
        ("running", None, True),
        ("answered", ("genmove", "answer", None), False),
        ("earlier", None, False),
        ("deadline", ("genmove", None, "TimeoutError"), False),
    ]


def test_a_genmove_asks_for_the_games_level_and_seed():
    from types import SimpleNamespace

    from dashboard.views.play_engine import FULL_TIME_MS, FULL_VISITS, engine_request
    from dashboard.views.play_game import PlayGame

    services = SimpleNamespace(config=SimpleNamespace(analysis_timeout_s=5.0))
    weak = PlayGame.new("web-1", level="15 kyu", seed=1234)
    weak.play("E5")
    move = engine_request(services, weak, "genmove")
    assert (move.purpose, move.level, move.seed, move.position.moves) == ("genmove", "15 kyu", 1234, (("B", "E5"),))
    hint = engine_request(services, weak, "hint", 200)  # a hint is the ordinary search, whatever the level
    assert (hint.level, hint.seed, hint.max_visits) == (None, None, 200)
    full = engine_request(services, PlayGame.new("web-1", seed=7), "genmove", 200)
    assert (full.level, full.seed, full.max_visits, full.max_time_ms) == ("full", 7, FULL_VISITS, FULL_TIME_MS)
    for request in (move, hint, full):
        request.validate()  # valid on the wire
    seeds = {PlayGame.new("web-1").seed for _ in range(20)}  # a seed of its own for each game
    assert len(seeds) > 1 and all(0 <= s <= 2**31 - 1 for s in seeds)
