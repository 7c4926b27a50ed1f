"""The Replay page's move list and mistake list: every move with what it lost, coloured
by its class, and the mistakes worst first; one click on either jumps there.

The move list is drawn in the browser (``entries`` are its data; the Replay board's
component shows them, ``replay_stepper.move_list``): the entry of move ``m`` is the
position after it, "Start" the position before move 1, and a click shows that
position at once, as a step does. The mistakes are buttons: a click calls
``on_move(n)`` in the widget's callback, before the page runs again. Both sit in
fixed-height boxes that scroll on their own beside the board, so a click never
scrolls the page (the board stays where it is).

Under each mistake, in plain words (``reasons``): the first reason about the move and
the first for the engine's choice instead.

Colours are KaTrain's class colours (``CLASS_COLOURS``). Not checked: that ``review``
belongs to the moves listed.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import streamlit as st

from dashboard.mistakes import CLASS_COLOURS, CLASSES, GameReview, MoveReview
from dashboard.views.reasons import reasons_markdown
from gobuddy.explain import Reason

HEIGHT = 330


def loss_text(move: MoveReview, unit: str) -> str:
    """``−3.2`` (points) or ``−6.0%`` (win rate), or "" when the move was not judged."""
    if move.loss is None:
        return ""
    sign = "−" if round(move.loss, 1) > 0 else ""
    return f"{sign}{move.loss:.1f}" + ("" if unit == "points" else "%")


def entry(move: MoveReview, unit: str) -> list[Any]:
    """One entry of the list: ``[n, "21. ● C8", colour, "■ −12.0 blunder"]`` (the
    colour and the loss empty when the move was not judged; the square for a class
    worse than "okay")."""
    stone = "●" if move.color == "B" else "○"
    text = f"{move.number}. {stone} {move.vertex}"
    if move.category is None:
        return [move.number, text, "", ""]
    mark = "■ " if move.category not in ("good", "okay") else ""
    return [move.number, text, CLASS_COLOURS[move.category], f"{mark}{loss_text(move, unit)} {move.category}"]


def entries(review: GameReview, moves: Sequence[tuple[int, str, str]]) -> list[list[Any]]:
    """Every entry of the list, "Start" first; ``moves`` (number, colour, vertex) for
    moves not reviewed."""
    judged = {m.number: m for m in review.moves}
    out: list[list[Any]] = [[0, "Start", "", ""]]
    for number, color, vertex in moves:
        move = judged.get(number) or MoveReview(number, color, vertex, None, None, None, None, None, None)
        out.append(entry(move, review.unit))
    return out


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
