"""The Replay page's move list and mistake list: every move with what it lost, coloured
by its class, and the mistakes worst first; one click on either jumps there.

Both sit in fixed-height boxes that scroll on their own beside the board, so a click
never scrolls the page (the board stays where it is). The move list is one radio
widget (``replay_list``) whose value is the move count shown: the entry of move ``m``
is the position after it, "Start" the position before move 1. A click calls
``on_move(n)`` in the widget's callback, before the page runs again.

Under each mistake, in plain words (``reasons``): the first reason about the move and
the first for the engine's choice instead.

Colours are Streamlit's named text colours, the nearest to KaTrain's class colours
(``CLASS_MARKUP``). Not checked: that ``review`` belongs to the moves listed.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

import streamlit as st

from dashboard.mistakes import CLASS_COLOURS, CLASSES, GameReview, MoveReview
from dashboard.views.reasons import reasons_markdown
from gobuddy.explain import Reason

LIST = "replay_list"
CLASS_MARKUP = {"blunder": "violet", "mistake": "red", "inaccuracy": "orange", "doubtful": "yellow",
                "okay": "green", "good": "green"}
HEIGHT = 330


def loss_text(move: MoveReview, unit: str) -> str:
    """``−3.2`` (points) or ``−6.0%`` (win rate), or "" when the move was not judged."""
    if move.loss is None:
        return ""
    sign = "−" if round(move.loss, 1) > 0 else ""
    return f"{sign}{move.loss:.1f}" + ("" if unit == "points" else "%")


def move_label(move: MoveReview, unit: str) -> str:
    """One entry of the list: number, colour, point, loss and class (in its colour)."""
    stone = "●" if move.color == "B" else "○"
    text = f"{move.number}. {stone} {move.vertex}"
    if move.category is None:
        return text
    colour = CLASS_MARKUP[move.category]
    mark = f" :{colour}[■]" if move.category not in ("good", "okay") else ""
    return f"{text}{mark} :{colour}[{loss_text(move, unit)} {move.category}]"


def labels(review: GameReview, moves: Sequence[tuple[int, str, str]]) -> dict[int, str]:
    """Move count -> its entry; ``moves`` (number, colour, vertex) for moves not reviewed."""
    judged = {m.number: m for m in review.moves}
    out = {0: "Start"}
    for number, color, vertex in moves:
        move = judged.get(number) or MoveReview(number, color, vertex, None, None, None, None, None, None)
        out[number] = move_label(move, review.unit)
    return out


def move_list(review: GameReview, moves: Sequence[tuple[int, str, str]], n: int,
              on_move: Callable[[int], None]) -> None:
    """The list of every move, the one shown selected; a click calls ``on_move``."""
    entries = labels(review, moves)
    st.session_state[LIST] = n if n in entries else 0

    def chosen() -> None:
        on_move(int(st.session_state[LIST]))

    with st.container(height=HEIGHT, key="replay_moves_box"):
        st.radio("Moves", list(entries), key=LIST, format_func=entries.__getitem__, on_change=chosen,
                 label_visibility="collapsed")


def mistakes_list(review: GameReview, on_move: Callable[[int], None],
                  why: Mapping[int, Sequence[Reason]] | None = None) -> None:
    """Inaccuracies and worse, the biggest loss first; a click shows the position the
    mistake was played in (where the engine's better move is on the board). ``why``:
    move number -> reasons shown under its button (``reasons.reasons_markdown``)."""
    found = review.mistakes("inaccuracy")
    unit = "points" if review.unit == "points" else "% win rate"
    if not found:
        st.caption("No inaccuracy or worse among the analysed moves.")
        return
    with st.container(height=HEIGHT, key="replay_mistakes_box"):
        for m in found[:40]:
            who = "Black" if m.color == "B" else "White"
            label = f"Move {m.number} · {who} {m.vertex} · −{m.loss:.1f} {unit} · {m.category}" + (
                f" (best {m.best})" if m.best and not m.top_move else "")
            st.button(label, key=f"replay_mistake_{m.number}", on_click=on_move, args=(m.number - 1,),
                      width="stretch", icon=":material/error:" if m.category == "blunder" else None)
            said = reasons_markdown((why or {}).get(m.number, ()))
            if said:
                st.markdown(said)


def board_marks(review: GameReview, n: int, worst: str = "inaccuracy") -> dict[str, str]:
    """Vertex -> class colour of the stones on the board after ``n`` moves that were
    played as ``worst`` or worse (a point played again later keeps the later move's)."""
    limit = CLASSES.index(worst)
    marks: dict[str, str] = {}
    for m in review.moves[:n]:
        if m.vertex == "pass":
            continue
        if m.category is not None and CLASSES.index(m.category) <= limit:
            marks[m.vertex] = CLASS_COLOURS[m.category]
        else:
            marks.pop(m.vertex, None)
    return marks
