"""The Play page's hint, at the learner's level.

| the game's level          | the hint shows                                          |
|---------------------------|---------------------------------------------------------|
| below ``SIMPLE_HINTS_BELOW`` ("10 kyu") | one move: the engine's first choice, on the board and in words |
| from "10 kyu" up, ``full`` | the engine's top five, on the board and as a table      |

At every level the reasons for the first choice stand beside it in plain words
(``views/reasons``: ``gobuddy.explain.explain_hint``). The hint's own line stands in for
the analysis after the first choice (its second move is the engine's expected
answer), so a quiet move is still told in words (sente or gote, the engine's answer)
without a second request to the engine.

A hint shown comes back after a reload: the URL keeps that it was asked for
(``remember_hint``), and the game that comes back asks again (``hint_in_url``).

Not done here: asking for the hint (``views/play``, ``views/play_engine``: the
ordinary search with the dashboard's analysis budget, whatever the level).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import streamlit as st

from dashboard.views.game_board import candidates_table
from dashboard.views.play_game import PlayGame
from dashboard.views.reasons import hint_reasons as explained, show_reasons
from gobuddy.ai.levels import level_names
from gobuddy.explain import Reason

SIMPLE_HINTS_BELOW = "10 kyu"
# A hint asked for, in the page's URL ("<game id>:<moves played>"): a reload starts a new
# session, and the game that comes back asks for it again while it still fits.
HINT_PARAM = "hint"


def simple_hints(level: str) -> bool:
    """Whether a hint at ``level`` shows one move (the weak levels) rather than the top five."""
    names = level_names()
    return level in names and names.index(level) < names.index(SIMPLE_HINTS_BELOW)


def line_after(answer: Mapping[str, Any]) -> dict[str, Any] | None:
    """The first choice's line read as the analysis after it: the engine's expected
    answer with its line (no win rates); None when the line stops at the move."""
    moves = answer.get("moves") or ()
    pv = list(moves[0].get("pv") or ()) if moves else []
    if len(pv) < 2:
        return None
    return {"to_play": "W" if answer.get("to_play") == "B" else "B", "root": None,
            "moves": [{"move": pv[1], "pv": pv[1:], "visits": 1}], "ownership": None}


def hint_reasons(game: PlayGame, answer: Mapping[str, Any]) -> list[Reason]:
    """The reasons for the hint's first move (``answer``: its dict form) in the game's
    position now; none when they cannot be told (logged by ``views/reasons``)."""
    return explained(game.position, answer, line_after(answer))


def remember_hint(game: PlayGame) -> None:
    """Note in the page's URL that a hint was asked for in ``game``'s position now."""
    st.query_params[HINT_PARAM] = f"{game.game_id}:{len(game.moves)}"


def hint_in_url(game: PlayGame) -> bool:
    """Whether the page's URL says a hint was asked for in ``game``'s position now (the
    same game, no move played since)."""
    return st.query_params.get(HINT_PARAM) == f"{game.game_id}:{len(game.moves)}"


def hint_panel(moves: int, answer: Mapping[str, Any], reasons: Sequence[Reason], *, simple: bool) -> None:
    """The hint after ``moves`` moves: one move (``simple``) or the top five, and the
    reasons for the first choice."""
    if not answer["moves"]:
        st.caption("Hint: the engine has no move to suggest")
        return
    best = answer["moves"][0]["move"]
    if simple:
        st.markdown(f"**Hint: play {best}**", help="The engine's first choice.")
    else:
        st.caption("Hint: the engine's top five for you")
        st.table(candidates_table(answer), border="horizontal", hide_index=True)
    show_reasons(reasons, key=f"play_hint_{moves}", title=f"Why {best}")


__all__ = ["HINT_PARAM", "SIMPLE_HINTS_BELOW", "hint_in_url", "hint_panel", "hint_reasons", "line_after",
           "remember_hint", "simple_hints"]
