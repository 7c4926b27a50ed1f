"""The Replay page's board, stepped in the browser: a Streamlit component
(``st.components.v2``, in the page's own DOM) whose script is the local file
``dashboard/static/replay_board.js`` (no network), given the whole main line once
(``replay_frames.frames``).

Three views of one game share the move shown in the browser: ``board`` (the step
buttons Start/Back/Next/End, a slider, the board; the keys Left/Right/Home/End),
``move_list`` (every move with its loss, a click goes there) and ``ruler`` (the mark
under the graph). A step redraws them at once, with no run of the page. The server
is told the move shown a moment after the last step, or at once when the pointer goes
down elsewhere on the page (the click is held until the server has followed, so a
button beside the board acts on the position shown): ``on_move(n)`` runs in the
component's callback, before the run it asks for (the page's panels follow; the
board is not sent again).

The server moves the board only by a jump (``jump_to``: a mistake or the graph
clicked, a game opened): every view goes to the jump's move when its id is new.
``svg`` is the server's own drawing of the position after ``at`` moves (with a
variation tried, the line chosen): the board shows it there until it steps away.
With ``trying``, a click on the board calls ``on_point(n, vertex)`` with the move
shown and the nearest intersection.

Not checked: that the frames belong to the game named (the page passes both).
"""

from __future__ import annotations

import functools
import hashlib
import json
import uuid
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import streamlit as st

STATIC = Path(__file__).resolve().parents[1] / "static"
JUMP = "replay_jump"
SESSION = "replay_session"
BOARD_KEY, MOVES_KEY, RULER_KEY = "replay_stepper", "replay_moves_list", "replay_ruler"


@functools.lru_cache(maxsize=1)
def _component() -> Any:
    """The component, registered once per process, its script and style read from
    ``dashboard/static``."""
    return st.components.v2.component("gobuddy_replay_board", js=(STATIC / "replay_board.js").read_text(),
                                      css=(STATIC / "replay_board.css").read_text(), isolate_styles=False)


def jump_to(state: Any, key: str, n: int) -> None:
    """The server moves the board: ``state[key]`` (the page's move shown) becomes
    ``n`` and the browser's views go there at their next draw."""
    state[key] = n
    state[JUMP] = int(state.get(JUMP, 0)) + 1


def jump(n: int) -> dict[str, Any]:
    """The jump the views get: an id new at each ``jump_to`` (and in each session)."""
    token = st.session_state.setdefault(SESSION, uuid.uuid4().hex[:8])
    return {"id": f"{token}-{int(st.session_state.get(JUMP, 0))}", "n": n}


def board(game_id: str, frames: Mapping[str, Any], *, n: int, svg: str, at: int, tried: int = 0,
          trying: bool = False, on_move: Callable[[int], None],
          on_point: Callable[[int, str], None] | None = None) -> None:
    """The step buttons, the slider and the board of ``game_id`` (``frames``), opened
    (or jumped) at ``n``. ``on_move(n)``: the browser shows move count ``n`` now;
    ``on_point(n, vertex)``: a click on the board while ``trying``."""
    last = int(frames["last"])

    def moved() -> None:
        value = getattr(st.session_state.get(BOARD_KEY), "move", None)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            on_move(min(last, max(0, int(value))))

    def pointed() -> None:
        value = getattr(st.session_state.get(BOARD_KEY), "point", None)
        if on_point is not None and isinstance(value, dict) and isinstance(value.get("vertex"), str):
            at_move = value.get("move")
            on_point(min(last, max(0, int(at_move))) if isinstance(at_move, int) else n, value["vertex"])

    _component()(data={"view": "board", "game": game_id, "jump": jump(n), "last": last, "frames": frames,
                       "svg": svg, "at": at, "tried": tried, "trying": trying},
                 key=BOARD_KEY, on_move_change=moved, on_point_change=pointed)


def move_list(game_id: str, entries: Sequence[Sequence[Any]], *, n: int, last: int, height: int) -> None:
    """Every move (``move_list.entries``) in a box ``height`` px high that scrolls on
    its own; the one shown is selected, a click shows that position."""
    digest = hashlib.blake2b(json.dumps(entries).encode("utf-8"), digest_size=8).hexdigest()
    _component()(data={"view": "moves", "game": game_id, "jump": jump(n), "last": last, "entries": entries,
                       "id": digest, "height": height}, key=MOVES_KEY)


def ruler(game_id: str, *, n: int, last: int, margin: int) -> None:
    """The strip under the graph with a mark at the position shown, lined up with the
    graph's columns (``margin`` px of the plot's side margins)."""
    _component()(data={"view": "ruler", "game": game_id, "jump": jump(n), "last": last, "margin": margin},
                 key=RULER_KEY)
