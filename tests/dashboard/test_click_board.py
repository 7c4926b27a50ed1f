"""The clickable boards of ``dashboard.views.click_board``: the plotly figure assembled
from its cached template is the board's own (its image, one point per intersection),
valid for plotly, and draws do not share state; the Play page's SVG board is drawn
through its component with the data its script needs."""

from __future__ import annotations

import base64
import json

import plotly.graph_objects as go

from dashboard.board_svg import board_svg
from dashboard.views.click_board import MARGIN_CELLS, figure


def image_svg(fig: go.Figure) -> str:
    source = fig.layout.images[0].source
    return base64.b64decode(source.split("base64,", 1)[1]).decode("utf-8")


def test_figures_from_the_template_show_their_own_board():
    empty = board_svg(9, [0] * 81, px=520, move_count=0)
    one = board_svg(9, [1] + [0] * 80, px=520, move_count=1)
    first, second = figure(empty, 9, 520), figure(one, 9, 520)
    assert image_svg(first) == empty and image_svg(second) == one  # the second draw left the first alone
    points = first.data[0]
    assert len(points.customdata) == 81 and points.customdata[:2] == ("A9", "B9") and points.customdata[-1] == "J1"
    assert (points.x[0], points.y[0]) == (0, 8)  # A9 top left
    assert first.layout.xaxis.range == (-MARGIN_CELLS, 8 + MARGIN_CELLS)
    go.Figure(second.to_dict())  # plotly validates it: the template path builds a valid figure
    small = figure(board_svg(5, [0] * 25, px=300), 5, 300)
    assert len(small.data[0].customdata) == 25 and small.layout.width == 300


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
