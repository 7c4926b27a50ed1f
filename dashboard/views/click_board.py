"""A board you can click: our SVG board under an invisible layer of plotly points.

``st.plotly_chart(..., on_select="rerun", selection_mode="points")`` reports a click on
a point; the figure shows the SVG of ``dashboard.board_svg`` as its background image
(a data URI placed exactly over the axes) and one transparent marker on every
intersection, carrying its GTP vertex. Selection styling is neutralised (selected and
unselected markers keep opacity 1 and stay transparent), so the board never dims.

``clicked_vertex`` returns the vertex of a new click, or None. A click stays selected
in the widget until the chart's key changes, so callers give the chart a key that
changes after every move (e.g. with the move count) and handle each click once.
Not checked: legality (the caller decides what a click on an occupied point means).
"""

from __future__ import annotations

import base64
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from gobuddy.go.coords import GTP_COLUMNS

MARGIN_CELLS = 1.1  # as dashboard.board_svg draws a board with coordinates


def figure(svg: str, size: int, px: int) -> go.Figure:
    """The plotly figure: the board image and one clickable point per intersection."""
    xs, ys, labels = [], [], []
    for r in range(size):
        for c in range(size):
            xs.append(c)
            ys.append(size - 1 - r)
            labels.append(f"{GTP_COLUMNS[c]}{size - r}")
    span = size - 1 + 2 * MARGIN_CELLS
    lo, hi = -MARGIN_CELLS, size - 1 + MARGIN_CELLS
    cell_px = px / span
    invisible = dict(opacity=1, color="rgba(0,0,0,0)")
    fig = go.Figure(go.Scatter(
        x=xs, y=ys, mode="markers", customdata=labels, hovertemplate="%{customdata}<extra></extra>",
        marker=dict(size=cell_px * 0.9, color="rgba(0,0,0,0)", line=dict(width=0)),
        selected=dict(marker=invisible), unselected=dict(marker=invisible), showlegend=False))
    source = "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")
    fig.add_layout_image(dict(source=source, xref="x", yref="y", x=lo, y=hi, sizex=span, sizey=span,
                              sizing="stretch", xanchor="left", yanchor="top", layer="below"))
    axis = dict(range=[lo, hi], visible=False, fixedrange=True, showgrid=False, zeroline=False)
    fig.update_layout(width=px, height=px, margin=dict(l=0, r=0, t=0, b=0), xaxis=axis,
                      yaxis=dict(axis, scaleanchor="x", scaleratio=1), dragmode=False, hovermode="closest",
                      plot_bgcolor="rgba(0,0,0,0)", paper_bgcolor="rgba(0,0,0,0)", clickmode="event+select")
    return fig


def clickable_board(svg: str, size: int, *, key: str, px: int = 520) -> str | None:
    """Draw the board; return the GTP vertex clicked in this run, or None."""
    event: Any = st.plotly_chart(figure(svg, size, px), key=key, on_select="rerun", selection_mode="points",
                                 theme=None, width="content", config={"displayModeBar": False})
    return clicked_vertex(event)


def clicked_vertex(event: Any) -> str | None:
    """The vertex of the (first) selected point of a plotly chart event, or None."""
    try:
        points = event["selection"]["points"]
    except (KeyError, TypeError):
        return None
    if not points:
        return None
    point = points[0]
    data = point.get("customdata")
    if isinstance(data, list):
        data = data[0] if data else None
    return data if isinstance(data, str) else None
