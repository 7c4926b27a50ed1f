"""The Play page's engine requests: sent without waiting, one in flight, taken when they come.

``ask_async`` sends a ``genmove`` or ``hint`` request for the game's position (or a
request made elsewhere: the teacher's ``judge``, ``views/play_teach``) and keeps
it in the session (``Pending``: purpose, game, move count, future, when sent);
``take_pending`` hands over its outcome once the answer (or an error, or its deadline)
came, and drops it when the game moved on meanwhile (an undo, a new game), so a late
answer never lands on another position. ``wait_for_engine`` ends a run of the Play
fragment by waiting for the answer, with a line that counts the seconds, and reruns the
fragment the moment it comes (a click meanwhile is taken when the wait ends: Streamlit
1.67 does not stop a fragment's run for it). ``ask_engine`` is the blocking form (the count's ownership only).

A ``genmove`` asks for the move of the game's opponent level with the game's seed
(``level``, ``seed``: the level's draws are repeatable within a game); for the ``full``
level with the calibrated full player's budget (``FULL_VISITS``, ``FULL_TIME_MS``). A
hint or the count's analysis is the ordinary search with its own budget.

Not done here: applying the answer (``views/play.py``), retrying.
"""

from __future__ import annotations

import time
from concurrent.futures import Future, wait
from dataclasses import dataclass, replace
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitAPIException

from dashboard.position_request import position_request
from dashboard.views.page_context import Services
from dashboard.views.play_game import PlayGame
from gobuddy.ai.levels import FULL
from gobuddy.bus.requests import EngineRequestFailed

PENDING = "play_pending"
NOT_ANSWERED = {"hint": "No hint", "judge": "Your move was not judged"}
THINKING = {"genmove": "The engine is thinking", "hint": "Asking the engine for a hint",
            "judge": "The teacher is looking at your move"}
WAIT_SLICE_S = 0.1  # how often the thinking line updates
# The "full" level's budget: that of the player models/LEVELS.md calibrated as "full"
# (the GTP front end's default player: engine_worker/gtp.py, DEFAULT_PLAY_VISITS and
# DEFAULT_PLAY_SECONDS; the dashboard does not import the worker). A weaker level sets
# its own budget in the worker and ignores these.
FULL_VISITS = 4000
FULL_TIME_MS = 900


def ask_engine(services: Services, game: PlayGame, purpose: str, visits: int, ownership: bool = False) -> Any:
    """The engine's answer for the game's current position (blocking: the count only)."""
    return services.feed.request(engine_request(services, game, purpose, visits, ownership))


def engine_request(services: Services, game: PlayGame, purpose: str, visits: int = FULL_VISITS,
                   ownership: bool = False) -> Any:
    """The ``EngineRequest`` for the game's position: a ``genmove`` carries the game's
    level and seed (and the full player's budget for ``full``); other purposes search
    with ``visits``."""
    request = position_request(purpose, size=game.size, komi=game.komi, rules=game.rules, setup=game.setup,
                               moves=game.moves, to_play=game.to_play, visits=visits,
                               timeout_s=services.config.analysis_timeout_s, board_id=game.board_id,
                               include_ownership=ownership)
    if purpose != "genmove":
        return request
    if game.level == FULL:
        return replace(request, level=FULL, seed=game.seed, max_visits=FULL_VISITS, max_time_ms=FULL_TIME_MS)
    return replace(request, level=game.level, seed=game.seed)


@dataclass
class Pending:
    """The engine request in flight for the game (one at a time): its purpose
    (``genmove``, ``hint`` or ``judge``), the game and move count it asks about, the answer's
    future and when it was sent (``time.monotonic``)."""

    purpose: str
    game_id: str
    moves: int
    future: Future
    sent: float

    def fits(self, game: PlayGame) -> bool:
        return self.game_id == game.game_id and self.moves == len(game.moves)


def ask_async(services: Services, game: PlayGame, purpose: str, visits: int = FULL_VISITS,
              request: Any = None) -> None:
    """Send a request without waiting (``engine_request``: ``visits`` is a hint's
    budget; a ``genmove``'s is the level's; or ``request`` as made, e.g. the teacher's
    ``judge`` of the learner's move): the fragment shows the position meanwhile and
    takes the answer when it comes (``take_answer``)."""
    try:
        future = services.feed.request_async(request or engine_request(services, game, purpose, visits))
    except (ConnectionError, RuntimeError, ValueError) as exc:
        if purpose == "genmove":
            st.session_state["play_engine_error"] = str(exc)
        else:
            st.session_state["play_message"] = ("error", f"{NOT_ANSWERED.get(purpose, 'No answer')}: {exc}")
        return
    st.session_state[PENDING] = Pending(purpose, game.game_id, len(game.moves), future, time.monotonic())


def take_pending(services: Services, game: PlayGame) -> tuple[str, Any, BaseException | None] | None:
    """(purpose, answer, error) of the request in flight once it is over (answered,
    failed, or past its deadline: a ``TimeoutError``), and no longer in flight; None
    while it runs or when there is none. One about an earlier position is dropped."""
    pending: Pending | None = st.session_state.get(PENDING)
    if pending is None:
        return None
    if not pending.fits(game):
        st.session_state.pop(PENDING, None)
        return None
    exc: BaseException | None = None
    if not pending.future.done():
        if time.monotonic() - pending.sent < services.config.analysis_timeout_s + 1:
            return None
        exc = TimeoutError(f"no engine answered within {services.config.analysis_timeout_s:.0f} s "
                           "(are engine workers online?)")
    st.session_state.pop(PENDING, None)
    exc = exc or pending.future.exception()
    return pending.purpose, None if exc is not None else pending.future.result(), exc


def engine_trouble(exc: BaseException) -> str:
    """What to tell the player when the engine did not answer: busy workers say so."""
    if isinstance(exc, EngineRequestFailed) and exc.busy:
        after = exc.error.retry_after_ms
        return ("the engines are busy with other boards right now; ask again"
                + (f" in {max(1, round(after / 1000))} s" if after else ""))
    return str(exc)



def wait_for_engine(services: Services, status: Any) -> None:
    """While a request is in flight: show how long the engine has been thinking, and
    rerun the fragment the moment its answer (or its deadline) comes. A click meanwhile
    waits for this run to end (measured with Streamlit 1.67)."""
    pending: Pending | None = st.session_state.get(PENDING)
    if pending is None:
        return
    what = THINKING.get(pending.purpose, "Asking the engine")
    give_up = pending.sent + services.config.analysis_timeout_s + 1
    while not pending.future.done() and time.monotonic() < give_up:
        status.caption(f"{what}… {time.monotonic() - pending.sent:.1f} s")
        wait([pending.future], timeout=WAIT_SLICE_S)
    rerun_area()


def rerun_area() -> None:
    """Rerun the play fragment only; in a full run of the page (where a fragment-scoped
    rerun is not allowed) the page."""
    try:
        st.rerun(scope="fragment")
    except StreamlitAPIException:
        st.rerun()
