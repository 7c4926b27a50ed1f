"""A page with only the Play page's clickable board (``dashboard.views.click_board``), for
the browser test of its clicks: the clicks the server took are listed under the board,
in order. A run of the board's fragment holds, after its callbacks and before it draws,
while the file named by the first argument exists: the test keeps a run in flight.

    streamlit run tests/e2e/click_board_app.py -- /tmp/hold
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import streamlit as st

from dashboard.board_svg import board_svg
from dashboard.views.click_board import svg_board

HOLD = Path(sys.argv[1])


@st.fragment
def board() -> None:
    clicks: list[str] = st.session_state.setdefault("clicks", [])
    while HOLD.exists():
        time.sleep(0.02)
    svg_board(board_svg(9, [0] * 81, move_count=len(clicks)), 9, key="board", on_click=clicks.append)
    st.markdown("Clicks taken: " + " ".join(clicks))


st.title("The clickable board")
board()
