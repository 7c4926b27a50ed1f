"""What the Replay page reads of a stored game, kept for a few seconds in the session.

A step through a game reruns only the page's views of the position, with what the
page's last full run read: no read at a step. A full run (opening the page, a tab, the
game's choice, an analysis) calls ``load``, which reads the game, its position keys,
its stored analyses, the problems its board reported and the stones its final count
lifted (``dead_stones``, also for the Games page) once and keeps them
``CACHE_S`` seconds (``cached``), or until ``fresh()`` says something was stored (an
analysis asked from the page). Not kept: anything across sessions; another session's
new analysis shows here at the next full run after ``CACHE_S``.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import streamlit as st

from dashboard.store import Store
from dashboard.store.games import GameDetail
from dashboard.store.models import Game

GENERATION = "replay_generation"
CACHE_S = 5.0


def cached(name: str, key: Any, make: Callable[[], Any]) -> Any:
    """``make()``, kept in this session for ``CACHE_S`` seconds under ``key`` (a new key,
    or ``fresh()``, loads again): stepping through a game reads the database once."""
    now = time.monotonic()
    tag = (key, st.session_state.get(GENERATION, 0))
    held = st.session_state.get(name)
    if held is not None and held[0] == tag and now - held[1] < CACHE_S:
        return held[2]
    value = make()
    st.session_state[name] = (tag, now, value)
    return value


def fresh() -> None:
    """What was stored changed (an analysis): the next run reads the database again."""
    st.session_state[GENERATION] = int(st.session_state.get(GENERATION, 0)) + 1


def dead_stones(store: Store, game_id: str) -> list[str] | None:
    """The stones (GTP) the game's final count lifted (``games.dead``); None when no
    count named them (a resignation, a game not counted, an unknown game)."""
    with store.session() as session:
        game = session.get(Game, game_id)
        return None if game is None or game.dead is None else [str(v) for v in game.dead]


def load(store: Store, game_id: str) -> tuple[GameDetail, dict, dict[int, Any], list, list[str] | None]:
    """The game, its position keys, its stored analyses (move count -> answer), the
    problems the board reported and the stones counted dead (``cached``)."""
    def read() -> tuple[GameDetail, dict, dict[int, Any], list, list[str] | None]:
        return (store.get_game(game_id), store.position_keys(game_id),
                {n: a.answer for n, a in store.analyses_for_game(game_id).items()}, store.problems(game_id),
                dead_stones(store, game_id))

    return cached("replay_data", game_id, read)
