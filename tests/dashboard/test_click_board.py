"""The clickable board of ``dashboard.views.click_board``: the Play page's SVG board is
drawn through its component with the data its script needs."""

from __future__ import annotations

import json

from dashboard.board_svg import MARGIN_CELLS


def test_the_play_board_is_drawn_as_svg_with_its_geometry():
    from streamlit.testing.v1 import AppTest

    def app() -> None:
        from dashboard.board_svg import board_svg
        from dashboard.views.click_board import svg_board

        svg_board(board_svg(9, [0] * 80 + [-1], px=520, move_count=1), 9, key="b", on_click=print)

    at = AppTest.from_function(app).run()
    (board,) = at.get("bidi_component")
    data = json.loads(board.proto.json)
    assert 'data-move-count="1"' in data["svg"] and 'data-vertex="J1"' in data["svg"]
    assert data["size"] == 9 and data["margin"] == MARGIN_CELLS and data["columns"].startswith("ABCDEFGHJ")
    assert board.proto.isolate_styles is False  # in the page's own DOM: styled and found like every board
