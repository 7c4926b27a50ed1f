"""The Replay page's graph: black's win rate and score lead over the game, a click away
from every position.

x is the move count, as everywhere on the page (0 = the start, n = after move n). The
position shown is marked under the graph by the browser's ruler (``replay_stepper.ruler``),
a thin strip aligned with the graph's x axis (the plot's side margins are fixed,
``MARGIN``): a step moves the mark, never redraws the graph (plotly redrawing its figure
took some 100 ms of the browser's time at every step). Two y axes share the plot, and they line up: the
win rate in percent on the left (0..100), the score lead in points on the right on a
range symmetric around 0 (``lead_range``), with ticks at the same heights, so 50% and
an even score are the same line and a gridline means the same on both sides. A marker
is coloured by the class of the move that led to its position (``CLASS_COLOURS``).

Clicking: an invisible bar fills each move's column from top to bottom, so a click
anywhere above or below a move (not only on its marker) selects it;
``clickable_graph`` calls ``on_move(n)`` from the chart's selection callback, before
the page runs again. Its key changes after each click (not with each step, which
would draw the chart anew), so the next click is a new selection. Not checked: that
``answers`` belong to the game (the store matches them by position).
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable, Mapping

import plotly.graph_objects as go
import streamlit as st

from dashboard.mistakes import CLASS_COLOURS, GameReview, black_lead

TICKS = (0, 25, 50, 75, 100)
MARGIN = 56  # px left and right of the plot: room for the axes' ticks and titles, the same in the ruler


def lead_range(leads: list[float]) -> float:
    """Half the score axis: the largest lead rounded up to a multiple of 5 (at least 5)."""
    biggest = max((abs(v) for v in leads), default=0.0)
    return max(5.0, 5.0 * math.ceil(biggest / 5.0))


def figure(answers: Mapping[int, Mapping[str, Any]], review: GameReview, last: int) -> go.Figure:
    """The graph for positions 0..``last`` (the position shown: the ruler under it).
    Written as plotly's own dict and not validated again (validation took some 70 ms a
    step); ``test_app_replay`` reads it back through plotly's objects."""
    xs = sorted(x for x in answers if 0 <= x <= last)
    colours = {m.number: CLASS_COLOURS[m.category] for m in review.moves if m.category}
    columns = list(range(last + 1))
    invisible = {"marker": {"opacity": 0, "color": "rgba(0,0,0,0)"}}
    kept = {"marker": {"opacity": 1}}
    data: list[dict[str, Any]] = [
        {"type": "bar", "x": columns, "y": [100] * len(columns), "width": 1.0, "name": "click", "customdata": columns,
         "marker": {"color": "rgba(0,0,0,0)", "line": {"width": 0}}, "showlegend": False,
         "hovertemplate": "move %{x}<extra></extra>", "selected": invisible, "unselected": invisible},
        {"type": "scatter", "x": xs, "y": [100 * float(answers[x]["root"]["winrate_black"]) for x in xs],
         "mode": "lines+markers", "name": "black win rate %", "line": {"color": "#222"}, "customdata": xs,
         "hovertemplate": "move %{x}: black %{y:.1f}%<extra></extra>",
         "marker": {"color": [colours.get(x, "#222") for x in xs], "size": 7}, "selected": kept, "unselected": kept}]
    leads = [(x, black_lead(answers[x])) for x in xs]
    known = [(x, v) for x, v in leads if v is not None]
    half = lead_range([v for _, v in known])
    if known:
        data.append({"type": "scatter", "x": [x for x, _ in known], "y": [v for _, v in known],
                     "name": "black score lead", "yaxis": "y2", "mode": "lines",
                     "line": {"color": "#1565c0", "dash": "dot"}, "customdata": [x for x, _ in known],
                     "hovertemplate": "move %{x}: black %{y:+.1f}<extra></extra>", "selected": kept,
                     "unselected": kept})
    lead_ticks = [half * (t - 50) / 50 for t in TICKS]
    layout = {
        "height": 250, "margin": {"l": MARGIN, "r": MARGIN, "t": 30, "b": 40},
        "legend": {"orientation": "h", "y": 1.2, "x": 0},
        "bargap": 0, "dragmode": False, "hovermode": "closest", "clickmode": "event+select", "plot_bgcolor": "#fafafa",
        "xaxis": {"title": {"text": "move", "standoff": 4}, "range": [-0.5, last + 0.5],
                  "tick0": 0, "dtick": max(1, round(last / 10)) if last else 1, "fixedrange": True, "zeroline": False},
        "yaxis": {"title": {"text": "black win %", "standoff": 4}, "range": [0, 100],
                  "tickvals": list(TICKS), "fixedrange": True, "zeroline": False},
        "yaxis2": {"title": {"text": "black lead", "standoff": 4}, "overlaying": "y",
                   "side": "right", "range": [-half, half], "tickvals": lead_ticks,
                   "ticktext": [f"{v:+g}" if v else "0" for v in lead_ticks], "showgrid": False, "zeroline": False,
                   "fixedrange": True, "visible": bool(known)}}
    return go.Figure({"data": data, "layout": layout}, _validate=False)


def clicked_move(event: Any) -> int | None:
    """The move count of the (first) selected point of the chart's event, or None."""
    try:
        points = event["selection"]["points"]
    except (KeyError, TypeError):
        return None
    for point in points or []:
        value = point.get("customdata", point.get("x"))
        if isinstance(value, list):
            value = value[0] if value else None
        try:
            return int(round(float(value)))
        except (TypeError, ValueError):
            continue
    return None


def clickable_graph(answers: Mapping[int, Mapping[str, Any]], review: GameReview, last: int, *,
                    key: str, on_move: Callable[[int], None]) -> None:
    """Draw the graph; a click on move ``m``'s column calls ``on_move(m)`` (then the page
    runs again)."""
    clicks = int(st.session_state.get(f"{key}_clicks", 0))
    chart_key = f"{key}_{clicks}"
    st.plotly_chart(figure(answers, review, last), key=chart_key, selection_mode="points",
                    on_select=functools.partial(selected, chart_key, last, on_move), theme=None,
                    config={"displayModeBar": False}, width="stretch")


def selected(chart_key: str, last: int, on_move: Callable[[int], None], state: Any = None) -> None:
    """The chart's selection callback: ``on_move`` with the move clicked (0..``last``)."""
    state = st.session_state if state is None else state
    move = clicked_move(state[chart_key] if chart_key in state else None)
    if move is not None and 0 <= move <= last:
        on_move(move)
        base, _, count = chart_key.rpartition("_")
        state[f"{base}_clicks"] = int(count) + 1  # the next draw is a new chart: its next click is new
