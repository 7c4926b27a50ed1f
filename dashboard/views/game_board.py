"""What the Live, Replay and Play pages show of a position and the engine's view of it:
the SVG board with the top recommendations, the win-rate bar, the table of candidates.

Answers are ``engine_answer`` dicts (``EngineAnswer.to_dict()`` or a stored analysis):
win rates of candidates are for the side to move, ``root.winrate_black`` for black.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import streamlit as st

from dashboard.board_svg import Recommendation, winrate_bar_svg
from dashboard.views.play_game import ILLEGAL_WORDS
from gobuddy.go.coords import from_gtp, pass_move
from gobuddy.go.position import Position

TOP = 5


def recommendations(answer: Mapping[str, Any] | None, top: int = TOP) -> list[Recommendation]:
    """The first ``top`` candidates of ``answer`` as board marks (passes included: the
    board skips them, ``candidates_table`` lists them)."""
    if not answer:
        return []
    return [Recommendation(m["move"], int(m["order"]) + 1, float(m["winrate"])) for m in answer["moves"][:top]]


def candidates_table(answer: Mapping[str, Any], top: int = TOP) -> list[dict[str, Any]]:
    """Rows for ``st.dataframe``: rank, move, win rate for the side to move, visits,
    score lead (when the model has one) and the first moves of the principal variation."""
    rows = []
    for m in answer["moves"][:top]:
        row: dict[str, Any] = {"rank": int(m["order"]) + 1, "move": m["move"], "win rate": f"{100 * m['winrate']:.1f}%",
                               "visits": int(m["visits"])}
        if m.get("score_lead") is not None:
            row["score lead"] = f"{m['score_lead']:+.1f}"
        row["line"] = " ".join(m["pv"][:4])
        rows.append(row)
    return rows


def line_of(answer: Mapping[str, Any], move: Mapping[str, Any]) -> list[tuple[str, str]]:
    """A candidate's principal variation as ``(colour, vertex)``, the side to move first."""
    first = answer.get("to_play", "B")
    other = "W" if first == "B" else "B"
    return [(first if i % 2 == 0 else other, v) for i, v in enumerate(move.get("pv") or [])]


def hover_lines(answer: Mapping[str, Any] | None, top: int = TOP) -> dict[str, list[tuple[str, str]]]:
    """Each of the first ``top`` candidates' vertex -> its principal variation."""
    if not answer:
        return {}
    return {m["move"]: line_of(answer, m) for m in answer["moves"][:top] if m.get("pv")}


def winrate_lines(answer: Mapping[str, Any], width: int = 520) -> tuple[str, str]:
    """The win-rate bar (SVG) and the line under it: score lead, visits, model."""
    root = answer["root"]
    lead = root.get("score_lead")
    text = f"{root['visits']} visits · model {answer.get('model', '?')}"
    if lead is not None:
        black = lead if answer["to_play"] == "B" else -lead
        text = f"Score lead: {'B' if black >= 0 else 'W'}+{abs(black):.1f} · " + text
    return winrate_bar_svg(root["winrate_black"], width=width), text


def show_winrate(answer: Mapping[str, Any] | None, *, width: int = 520) -> None:
    """The win-rate bar and the line under it, or a note that there is no evaluation yet."""
    if not answer:
        st.caption("No evaluation of this position yet.")
        return
    bar, text = winrate_lines(answer, width)
    st.markdown(bar, unsafe_allow_html=True)
    st.caption(text)


def passes_recommended(answer: Mapping[str, Any] | None) -> list[str]:
    """Ranks at which the engine recommends passing (the board cannot show those)."""
    if not answer:
        return []
    return [f"#{int(m['order']) + 1}" for m in answer["moves"][:TOP] if m["move"] == "pass"]


def last_vertex(moves: Sequence[tuple[str, str]]) -> str | None:
    """The last move's vertex, or None before the first move or after a pass."""
    if not moves or moves[-1][1] == "pass":
        return None
    return moves[-1][1]


def legal_reason(pos: Position, vertex: str) -> str | None:
    """Why the side to move may not play ``vertex`` in ``pos`` (plain words), or None."""
    point = from_gtp(vertex, pos.size)
    if point == pass_move(pos.size):
        return None
    why = pos.illegal_reason(point)
    return None if why is None else ILLEGAL_WORDS.get(why, why)
