"""The clickable board of ``dashboard.views.click_board``: the Play page's SVG board is
drawn through its component with the data its script needs, and a report of clicks is
taken once, in order (the browser test: ``tests/e2e/test_click_board_browser.py``)."""

from __future__ import annotations

import json

import pytest

from dashboard.board_svg import MARGIN_CELLS
from dashboard.views.click_board import MAX_UNANSWERED, new_clicks


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
    assert data["key"] == "b" and data["answered"] == 0  # no click taken yet
    assert board.proto.isolate_styles is False  # in the page's own DOM: styled and found like every board


@pytest.mark.parametrize("report, answered, taken", [
    ([[1, "A1"]], 0, [(1, "A1")]),
    ([[1, "A1"], [2, "B2"], [3, "B2"]], 0, [(1, "A1"), (2, "B2"), (3, "B2")]),  # the same point twice counts twice
    ([[1, "A1"], [2, "B2"]], 1, [(2, "B2")]),  # a click reported again is not taken again
    ([[2, "B2"], [1, "A1"]], 0, [(1, "A1"), (2, "B2")]),  # in their order
    ([[1, "A1"], [2, "B2"]], 2, []),
    ("A1", 0, []),  # another shape: nothing taken
    ([["1", "A1"], [True, "B2"], [3], [4, 5], None], 0, []),
    (None, 0, []),
    ([[n, "A1"] for n in range(1, MAX_UNANSWERED + 10)], 0, [(n, "A1") for n in range(1, MAX_UNANSWERED + 1)]),
])
def test_a_report_of_clicks_is_taken_once_and_in_order(report, answered, taken):
    assert new_clicks(report, answered) == taken
