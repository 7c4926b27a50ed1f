"""Reasons in plain words on the dashboard's pages: the one way a list of
``gobuddy.explain.Reason`` is shown, and the one way a page asks for them.

Showing (Replay, Play, Live):

    show_reasons(reasons, key="play_hint", title="Why D4")    # one markdown block
    view.put("reasons", "markdown", reasons_markdown(reasons))  # Live's places
    svg = mark_where(svg, reasons, size, px=520)                # the top reason's points

Each reason is one line, heaviest first: an icon for what it says of the move (green
thumb up: a reason to play it, red thumb down: a reason against it, grey: neither), the
kind as a badge, then the sentence (``capture`` · "Captures 3 stones at D5 E5 F5.").
``mark_where`` squares the first reason's ``where`` on the board (the group first).

Asking (``move_reasons``, ``hint_reasons``): ``gobuddy.explain``'s ``explain_move`` and
``explain_hint`` with the engine answers as they are stored or received (dicts or
``EngineAnswer``). An explanation never breaks a page: any exception is logged and
the page gets no reasons. With a ``key`` (anything hashable that names the position
and the answers, e.g. ``answer_tag``), the result is kept process-wide in a small
cache (``CACHE_SIZE`` entries, the oldest dropped), so a page that redraws often
explains each position once. Not checked: that the answers are of that position.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from typing import Any, Callable, Hashable, Sequence

import streamlit as st

from dashboard.board_svg import reason_marks
from gobuddy.explain import Reason, explain_hint, explain_move
from gobuddy.go.coords import to_gtp
from gobuddy.go.position import Position

log = logging.getLogger("dashboard.reasons")

ICONS = {True: ":green[:material/thumb_up:]", False: ":red[:material/thumb_down:]", None: ":gray[:material/info:]"}
BADGES = {True: "green", False: "red", None: "gray"}
CACHE_SIZE = 512
_MARKDOWN = str.maketrans({c: "\\" + c for c in "\\*_[]`$~<>#|"})

_cache: OrderedDict[Hashable, list[Reason]] = OrderedDict()
_lock = threading.Lock()


def sentence(r: Reason) -> str:
    """The reason's text as a sentence: capitalised, with a full stop."""
    text = r.text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


def reason_line(r: Reason) -> str:
    """One reason as Streamlit markdown: icon, kind badge, sentence (markdown escaped)."""
    return f"{ICONS[r.good]} :{BADGES[r.good]}-badge[{r.kind}] {sentence(r).translate(_MARKDOWN)}"


def reasons_markdown(reasons: Sequence[Reason], title: str | None = None) -> str:
    """The reasons as one markdown text, one a line, in the order given (ranked: the
    heaviest first), under ``title`` in bold; "" when there are none."""
    if not reasons:
        return ""
    lines = [f"**{title.translate(_MARKDOWN)}**"] if title else []
    return "  \n".join(lines + [reason_line(r) for r in reasons])


def show_reasons(reasons: Sequence[Reason], *, key: str, title: str | None = None) -> None:
    """Show ``reasons`` (see the module docstring) in a container keyed ``reasons_<key>``
    (so a browser test finds ``.st-key-reasons_<key>``); nothing when there are none.
    ``key`` must be unique on the page within one run."""
    if not reasons:
        return
    with st.container(key=f"reasons_{key}"):
        st.markdown(reasons_markdown(reasons, title))


def where_vertices(r: Reason | None, size: int) -> list[str]:
    """The GTP vertices of a reason's ``where`` (the group first), passes left out."""
    if r is None:
        return []
    return [to_gtp(p, size) for p in r.where if 0 <= p < size * size]


def mark_where(svg: str, reasons: Sequence[Reason], size: int, *, px: int = 480, coordinates: bool = True) -> str:
    """``svg`` (a ``board_svg`` of ``size``, ``px``, ``coordinates``) with the first
    reason's points squared (``board_svg.reason_marks``); unchanged without reasons."""
    if not reasons:
        return svg
    return reason_marks(svg, size, where_vertices(reasons[0], size), px=px, coordinates=coordinates)


def answer_tag(answer: Any) -> Hashable:
    """What names an engine answer (dict or ``EngineAnswer``) in a cache key: its id,
    root visits, first move and whether the search was still running."""
    if answer is None:
        return None
    moves = _field(answer, "moves") or ()
    return (_field(answer, "id"), _field(_field(answer, "root"), "visits"), _field(moves[0], "move") if moves else None,
            bool(_field(answer, "is_during_search")))


def _field(item: Any, name: str) -> Any:
    """``name`` of a dict or of an object (None when it has none, or ``item`` is None)."""
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


def _explained(what: str, key: Hashable | None, make: Callable[[], list[Reason]]) -> list[Reason]:
    if key is not None:
        with _lock:
            held = _cache.get(key)
            if held is not None:
                _cache.move_to_end(key)
                return held
    try:
        found = list(make())
    except Exception:  # an explanation must never break a page
        log.exception("explaining %s failed; the page goes on without reasons", what)
        found = []
    if key is not None:
        with _lock:
            _cache[key] = found
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
    return found


PositionOrMaker = Position | Callable[[], Position]


def _position(position: PositionOrMaker) -> Position:
    return position if isinstance(position, Position) else position()


def move_reasons(position: PositionOrMaker, move: int, color: int | None, before: Any = None, after: Any = None, *,
                 key: Hashable | None = None, limit: int = 5) -> list[Reason]:
    """``explain_move`` (``move`` a flat point; ``before``/``after``: the answers for
    the position it is played in and the one it makes), ranked; [] if it failed
    (logged). ``position`` may be a function that makes it, called only when the cache
    does not hold the answer. ``key``: cache it under ``("move", key)``."""
    return _explained(f"move {move}", ("move", key) if key is not None else None,
                      lambda: explain_move(_position(position), move, color, before, after, limit=limit))


def hint_reasons(position: PositionOrMaker, before: Any, after: Any = None, *, key: Hashable | None = None,
                 limit: int = 5) -> list[Reason]:
    """``explain_hint``: the reasons for ``before``'s first choice in ``position`` (or
    what a function makes, as for ``move_reasons``); [] without an answer or if it
    failed (logged). ``key``: cache it under ``("hint", key)``."""
    if before is None:
        return []
    return _explained("the engine's first choice", ("hint", key) if key is not None else None,
                      lambda: explain_hint(_position(position), before, after, limit=limit))


def clear_cache() -> None:
    """Forget every kept explanation (tests)."""
    with _lock:
        _cache.clear()
