"""A board you can click, two ways.

``svg_board`` (the Play page): our SVG board drawn as plain SVG in the page by a small
``st.components.v2`` component (no shadow root) whose script turns a click into the
nearest intersection and reports it as a trigger value; ``on_click(vertex)`` runs in
the widget callback, before the next run. On the player's turn the script also shows
the clicked stone at once (provisional, until the next board from the server). Each click is one event (the same point
twice counts twice), the component keeps its key, and a new position swaps one SVG in
the browser: nothing to lay out and mount again after each move.

``clickable_board`` (the Replay page): the SVG under an invisible layer of plotly
points. ``st.plotly_chart(..., on_select="rerun", selection_mode="points")`` reports a
click on a point; the figure shows the SVG of ``dashboard.board_svg`` as its background
image (a data URI placed exactly over the axes) and one transparent marker on every
intersection, carrying its GTP vertex. Selection styling is neutralised (selected and
unselected markers keep opacity 1 and stay transparent), so the board never dims. The
figure is a template built and validated once per board size; a draw only swaps the
image. ``clicked_vertex`` returns the vertex of a new click, or None. A click stays
selected in the widget until the chart's key changes, so callers give the chart a key
that changes after every move (e.g. with the move count) and handle each click once.

Not checked: legality (the caller decides what a click on an occupied point means).
"""

from __future__ import annotations

import base64
import functools
import hashlib
from typing import Any, Callable

import plotly.graph_objects as go
import streamlit as st

from gobuddy.go.coords import GTP_COLUMNS

MARGIN_CELLS = 1.1  # as dashboard.board_svg draws a board with coordinates


@functools.lru_cache(maxsize=16)
def _template(size: int, px: int) -> dict[str, Any]:
    """The figure of a ``size`` board drawn ``px`` wide, without its image: built and
    validated by plotly once, then reused by every draw (only the image changes)."""
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
    fig.add_layout_image(dict(source="", xref="x", yref="y", x=lo, y=hi, sizex=span, sizey=span,
                              sizing="stretch", xanchor="left", yanchor="top", layer="below"))
    axis = dict(range=[lo, hi], visible=False, fixedrange=True, showgrid=False, zeroline=False)
    fig.update_layout(width=px, height=px, margin=dict(l=0, r=0, t=0, b=0), xaxis=axis,
                      yaxis=dict(axis, scaleanchor="x", scaleratio=1), dragmode=False, hovermode="closest",
                      plot_bgcolor="rgba(0,0,0,0)", paper_bgcolor="rgba(0,0,0,0)", clickmode="event+select")
    return fig.to_dict()


def figure(svg: str, size: int, px: int) -> go.Figure:
    """The plotly figure: the board image and one clickable point per intersection.
    The cached template is plotly's own validated output, so the figure is assembled
    without validating it again (that took some 30 ms a draw)."""
    template = _template(size, px)
    source = "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")
    image = dict(template["layout"]["images"][0], source=source)
    layout = dict(template["layout"], images=[image])
    return go.Figure({"data": template["data"], "layout": layout}, _validate=False)


def clickable_board(svg: str, size: int, *, key: str, px: int = 520,
                    on_click: Callable[[str], None] | None = None) -> str | None:
    """Draw the board; return the GTP vertex clicked in this run, or None. With
    ``on_click`` the click is handled in a callback instead (before the run, so the
    run draws its outcome; inside a fragment only the fragment reruns): ``on_click``
    gets the vertex and this returns None."""
    def selected() -> None:
        vertex = clicked_vertex(st.session_state.get(key))
        if vertex is not None and on_click is not None:
            on_click(vertex)

    on_select: Any = "rerun" if on_click is None else selected
    event: Any = st.plotly_chart(figure(svg, size, px), key=key, on_select=on_select, selection_mode="points",
                                 theme=None, width="content", config={"displayModeBar": False})
    return None if on_click is not None else clicked_vertex(event)


CLICK_JS = """
export default function(component) {
  const { data, setTriggerValue, parentElement } = component;
  let root = parentElement.querySelector('div.click-board');
  if (!root) {
    root = document.createElement('div');
    root.className = 'click-board';
    parentElement.appendChild(root);
  }
  if (root.dataset.drawn !== data.id) {
    root.innerHTML = data.svg;
    root.dataset.drawn = data.id;
  }
  for (const old of root.querySelectorAll('.provisional')) old.remove();  // each draw is the server's word
  root.onclick = (event) => {
    const svg = root.querySelector('svg');
    if (!svg) return;
    const box = svg.getBoundingClientRect();
    const span = data.size - 1 + 2 * data.margin;
    const col = Math.round((event.clientX - box.left) / box.width * span - data.margin);
    const row = Math.round((event.clientY - box.top) / box.height * span - data.margin);
    if (col < 0 || row < 0 || col >= data.size || row >= data.size) return;
    const vertex = data.columns[col] + String(data.size - row);
    if (data.stone && !svg.querySelector('.provisional, circle.stone[data-vertex="' + vertex + '"]')) {
      // the player's stone at once, until the server's next board replaces it
      const cell = svg.viewBox.baseVal.width / span;
      const ns = 'http://www.w3.org/2000/svg';
      const stone = document.createElementNS(ns, 'circle');
      stone.setAttribute('class', 'provisional ' + data.stone);
      stone.setAttribute('data-vertex', vertex);
      stone.setAttribute('cx', String((data.margin + col) * cell));
      stone.setAttribute('cy', String((data.margin + row) * cell));
      stone.setAttribute('r', String(cell * 0.47));
      stone.setAttribute('fill', 'url(#gb-' + data.stone + ')');
      if (data.stone === 'white') { stone.setAttribute('stroke', '#555'); stone.setAttribute('stroke-width', '0.8'); }
      svg.appendChild(stone);
    }
    setTriggerValue('click', vertex);
  };
}
"""


@functools.lru_cache(maxsize=1)
def _svg_component() -> Any:
    """The component, registered once per process: the SVG in the page's own DOM (no
    shadow root, so it is styled and found like every other board) and a click
    handler that turns the pointer's place into the nearest intersection."""
    return st.components.v2.component("gobuddy_click_board", js=CLICK_JS, isolate_styles=False)


def svg_board(svg: str, size: int, *, key: str, on_click: Callable[[str], None], stone: str | None = None) -> None:
    """Draw the board as plain SVG in the page and call ``on_click(vertex)`` (in a
    widget callback, before the next run) for each click on it. Cheaper than the
    plotly layer: the browser swaps one SVG (no chart to lay out and mount again
    after each move), and each click is one event (the same point twice counts twice),
    so the key need not change after a click. ``svg`` is drawn with coordinates
    (``board_svg``'s default margin). ``stone`` (``black`` or ``white``): a click on an
    empty point shows a stone of that colour at once (``class="provisional"``, one at
    a time), until the next board drawn replaces it, whatever the server decided."""
    def clicked() -> None:
        result = st.session_state.get(key)
        vertex = getattr(result, "click", None) if result is not None else None
        if isinstance(vertex, str):
            on_click(vertex)

    _svg_component()(data={"svg": svg, "size": size, "margin": MARGIN_CELLS, "columns": GTP_COLUMNS,
                           "stone": stone or "", "drawn": _next_draw(key),
                           "id": hashlib.blake2b(svg.encode("utf-8"), digest_size=8).hexdigest()},
                     key=key, on_click_change=clicked)


def _next_draw(key: str) -> int:
    """A number new at every draw of the board ``key``: the browser's component runs
    again even when the board did not change (and drops a provisional stone)."""
    name = f"{key}__drawn"
    st.session_state[name] = st.session_state.get(name, 0) + 1
    return st.session_state[name]


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
