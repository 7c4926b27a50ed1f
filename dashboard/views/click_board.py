"""A board you can click (the Play page): ``svg_board`` draws our SVG board as plain
SVG in the page by a small ``st.components.v2`` component (no shadow root) whose
script turns a click into the nearest intersection and reports it as a trigger value;
``on_click(vertex)`` runs in the widget callback, before the next run. On the player's
turn the script also shows the clicked stone at once (provisional, until the next
board from the server). The component keeps its key, and a new position swaps one SVG
in the browser: nothing to lay out and mount again after each move.

A click is never lost and never taken twice. Each click is one event with a number
(the same point twice counts twice); the script reports every click the server has
not answered yet, with each new click and again at each board drawn and every
``RESEND_MS`` until a board drawn after it says the server took it (``answered``,
the highest number taken). Streamlit keeps only the newest trigger value of a widget
among the reruns queued behind a run in flight, so of two clicks made meanwhile the
first was lost before (and it runs the callback once per event of a batch, each
reading the last event); the server takes each number once (``new_clicks``).

Not checked: legality (the caller decides what a click on an occupied point means).
"""

from __future__ import annotations

import functools
import hashlib
from typing import Any, Callable, Sequence

import streamlit as st

from dashboard.board_svg import MARGIN_CELLS
from gobuddy.go.coords import GTP_COLUMNS

RESEND_MS = 1000
MAX_UNANSWERED = 64  # clicks a report may carry; more are not taken

CLICK_JS = """
const unanswered = new Map();  // board key -> {last: number of the last click, clicks: [[number, vertex]...], timer}

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
  if (!unanswered.has(data.key)) unanswered.set(data.key, {last: 0, clicks: [], timer: null});
  const sent = unanswered.get(data.key);
  sent.last = Math.max(sent.last, data.answered);
  sent.clicks = sent.clicks.filter(([number]) => number > data.answered);
  const report = () => {
    clearTimeout(sent.timer);
    sent.timer = null;
    if (!sent.clicks.length) return;
    setTriggerValue('click', sent.clicks.slice(-MAX_UNANSWERED));
    sent.timer = setTimeout(report, RESEND_MS);
  };
  report();
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
    sent.last += 1;
    sent.clicks.push([sent.last, vertex]);
    report();
  };
}
""".replace("RESEND_MS", str(RESEND_MS)).replace("MAX_UNANSWERED", str(MAX_UNANSWERED))


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
    answered = f"{key}__answered"

    def clicked() -> None:
        for number, vertex in new_clicks(getattr(st.session_state.get(key), "click", None),
                                         st.session_state.get(answered, 0)):
            st.session_state[answered] = number
            on_click(vertex)

    _svg_component()(data={"svg": svg, "size": size, "margin": MARGIN_CELLS, "columns": GTP_COLUMNS,
                           "stone": stone or "", "drawn": _next_draw(key), "key": key,
                           "answered": st.session_state.get(answered, 0),
                           "id": hashlib.blake2b(svg.encode("utf-8"), digest_size=8).hexdigest()},
                     key=key, on_click_change=clicked)


def new_clicks(report: Any, answered: int) -> list[tuple[int, str]]:
    """The clicks of a board's ``report`` (``[[number, vertex], ...]``) numbered above
    ``answered``, in order: a click reported again is not taken again. Entries of
    another shape, and those past ``MAX_UNANSWERED``, are skipped."""
    if not isinstance(report, Sequence) or isinstance(report, str):
        return []
    clicks = {entry[0]: entry[1] for entry in list(report)[:MAX_UNANSWERED]
              if isinstance(entry, Sequence) and len(entry) == 2 and type(entry[0]) is int
              and entry[0] > answered and isinstance(entry[1], str)}
    return sorted(clicks.items())


def _next_draw(key: str) -> int:
    """A number new at every draw of the board ``key``: the browser's component runs
    again even when the board did not change (and drops a provisional stone)."""
    name = f"{key}__drawn"
    st.session_state[name] = st.session_state.get(name, 0) + 1
    return st.session_state[name]
