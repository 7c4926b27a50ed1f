"""Play's game in flight: the player's and the engine's moves, the engine's answers
taken as they come, and the events published to the game's web board.

A move acts at once: the player's stone is played and the engine is asked without
waiting (``ask_async``); its events are queued (``send(..., later=True)``) and
published by the page right after it drew the board, so the stone shows without
waiting for the broker. ``settle`` waits up to ``ANSWER_GRACE_S`` for an answer asked
just before, so that one run draws the move and the reply. After two passes the count
starts (``start_count``). Permission checks are the page's (``views/play.allowed``),
made before these are called.
"""

from __future__ import annotations

import time
from concurrent.futures import wait
from typing import Any, Sequence

import streamlit as st

from dashboard.live_feed import LiveFeed
from dashboard.views.page_context import Services, current
from dashboard.views.play_count import COUNT, Count
from dashboard.views.play_engine import PENDING, Pending, ask_async, ask_engine, engine_trouble, take_pending
from dashboard.views.play_game import IllegalMove, PlayGame
from dashboard.views.play_hint import hint_reasons
from dashboard.views.play_teach import judge_request, open_verdict, take_judgement, wants_judgement
from gobuddy.bus import topics
from gobuddy.bus.delivery import PublishRejected
from gobuddy.bus.messages import GameEvent
from gobuddy.bus.requests import EngineRequestFailed
from gobuddy.go.coords import CoordinateError

UNPUBLISHED = "play_unpublished"  # events played but not yet on the bus (see ``send``)
# How long a run after a move (or "Hint", or "Keep my move") waits for the engine before
# it draws: a quick answer (and after the teacher's judgement the reply it lets through)
# is drawn in the same run, one draw instead of two (an answer that comes while the
# first draw is on its way waits for it and for a second one); the player's stone
# shows at once meanwhile (the board's provisional stone, ``views/click_board``).
ANSWER_GRACE_S = 0.5


def publish(feed: LiveFeed, game: PlayGame, events: list[GameEvent]) -> bool:
    """Publish ``events`` and then the board state; show an error and return False when
    the broker does not take them (the game goes on, but may not be stored)."""
    try:
        for event in events:
            feed.publish(topics.board_event(game.board_id), event)
        feed.publish(topics.board_state(game.board_id), game.state())
    except (PublishRejected, TimeoutError, ConnectionError, RuntimeError) as exc:
        st.session_state["play_message"] = ("error", f"The move could not be recorded on the bus: {exc}")
        return False
    return True


def send(game: PlayGame, events: Sequence[GameEvent] = (), *, later: bool = False) -> None:
    """Publish ``events`` after those queued before (in order: their ``seq``s follow on);
    ``later``: only queue them, for the fragment to publish right after it drew the
    board (the stone shows without waiting for the broker's acknowledgements)."""
    queued = st.session_state.pop(UNPUBLISHED, [])
    if later:
        st.session_state[UNPUBLISHED] = queued + list(events)
    elif queued or events:
        publish(current().feed, game, queued + list(events))


def take_answer(services: Services, game: PlayGame) -> None:
    """Apply the answer of the request in flight if it came: the engine's move, or the
    hint; a failure is told in words (``play_engine`` keeps the request)."""
    taken = take_pending(services, game)
    if taken is None:
        return
    purpose, answer, exc = taken
    if purpose == "judge":
        take_judgement(game, answer, exc, engine_trouble)
    elif purpose == "hint":
        if exc is not None:
            st.session_state["play_message"] = ("error", f"No hint: {engine_trouble(exc)}")
        else:
            data = answer.to_dict()
            st.session_state["play_hint"] = (len(game.moves), data, hint_reasons(game, data))
    elif exc is not None:
        st.session_state["play_engine_error"] = engine_trouble(exc)
    else:
        engine_move(services, game, answer)


def reply_due(game: PlayGame) -> bool:
    """Whether the engine's reply is to be asked now: its turn, nothing in flight, no
    teacher's stop open and no failure waiting for "Ask the engine again"."""
    return (game.engine_to_play and st.session_state.get(PENDING) is None and open_verdict(game) is None
            and not st.session_state.get("play_engine_error"))


def settle(services: Services, game: PlayGame) -> None:
    """Take the answer in flight, and wait for one asked less than ``ANSWER_GRACE_S``
    ago until then (asking the engine's reply as soon as it is due: after the
    teacher's judgement that stops nothing), so that this run draws it."""
    take_answer(services, game)
    deadline: float | None = None
    while True:
        if reply_due(game):
            ask_async(services, game, "genmove")
        pending: Pending | None = st.session_state.get(PENDING)
        if pending is None:
            return
        if deadline is None:
            deadline = min(pending.sent, time.monotonic()) + ANSWER_GRACE_S
        if not pending.future.done():  # (a click meanwhile is taken when this run ends)
            wait([pending.future], timeout=max(0.0, deadline - time.monotonic()))
            if not pending.future.done():
                return
        take_answer(services, game)


def start_count(services: Services, game: PlayGame) -> Count:
    """The judge's proposal after two passes, kept in the session until accepted. The
    engine's ownership is asked for as a cross-check; the count goes on without it."""
    ownership = None
    try:
        answer = ask_engine(services, game, "analysis", services.config.analysis_visits, ownership=True)
        ownership = answer.ownership
    except (TimeoutError, EngineRequestFailed, ConnectionError):
        pass
    count = Count.of(game, ownership)
    st.session_state[COUNT] = count
    return count


def engine_move(services: Services, game: PlayGame, answer: Any) -> None:
    """Play the engine's answer, publish it, and count the game after two passes."""
    vertex = answer.moves[0].move if answer.moves else "pass"
    try:
        events = game.play(vertex)
    except (IllegalMove, ValueError) as exc:
        st.session_state["play_engine_error"] = f"the engine answered an illegal move: {exc}"
        return
    st.session_state["play_last_answer"] = answer.to_dict()
    send(game, events, later=not game.counting)
    if game.counting:
        start_count(services, game)


def human_move(services: Services, game: PlayGame, vertex: str) -> None:
    """The player's move (a click or a typed point): played, published, and the engine
    asked for its answer (without waiting for it)."""
    if not game.human_to_play:
        st.session_state["play_message"] = ("warning", "Wait for your turn.")
        return
    try:
        events = game.play(vertex)
    except (IllegalMove, CoordinateError) as exc:
        st.session_state["play_message"] = ("warning", str(exc))
        return
    if wants_judgement(game):  # the teacher first; the engine replies once the move stands
        ask_async(services, game, "judge", request=judge_request(services, game))
    elif game.engine_to_play:
        ask_async(services, game, "genmove")  # first: the engine starts while the page draws
    send(game, events, later=not game.counting)
    if game.counting:
        start_count(services, game)
