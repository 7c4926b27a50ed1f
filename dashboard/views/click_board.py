"""A board you can click (the Play page): ``svg_board`` draws our SVG board as plain
SVG in the page by a small ``st.components.v2`` component (no shadow root) whose script turns a click into the
nearest intersection and reports it as a trigger value; ``on_click(vertex)`` runs in
the widget callback, before the next run. On the player's turn the script also shows
the clicked stone at once (provisional, until the next board from the server). Each click is one event (the same point
twice counts twice), the component keeps its key, and a new position swaps one SVG in
the browser: nothing to lay out and mount again after each move.

Not checked: legality (the caller decides what a click on an occupied point means).
"""

from __future__ import annotations

import functools
import hashlib
from typing import Any, Callable

import streamlit as st

from dashboard.board_svg import MARGIN_CELLS
from gobuddy.go.coords import GTP_COLUMNS



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
