"""The SVG board: what is drawn where, read back by parsing the SVG (boards as ASCII,
points as GTP)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from dashboard.board_svg import Recommendation, board_svg, star_points, winrate_bar_svg
from gobuddy.go.coords import GTP_COLUMNS
from gobuddy.go.position import Position

NS = {"s": "http://www.w3.org/2000/svg"}

BOARD = """
. . . . . . . . .
. . . . . . . . .
. . X . . . . . .
. . O X . . . . .
. . . . X . . . .
. . . . . . . . .
. . . . . . O . .
. . . . . . . . .
. . . . . . . . .
"""


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def stones(root: ET.Element) -> dict[str, str]:
    """vertex -> colour of every stone drawn."""
    return {c.get("data-vertex"): c.get("class").split()[1] for c in root.iter("{%s}circle" % NS["s"])
            if (c.get("class") or "").startswith("stone")}


def of_class(root: ET.Element, name: str) -> list[ET.Element]:
    return [e for e in root.iter() if name in (e.get("class") or "").split()]


def test_stones_are_drawn_at_their_vertices():
    pos = Position.from_ascii(BOARD)
    root = parse(board_svg(9, pos.board, move_count=5))
    assert stones(root) == {"C7": "black", "C6": "white", "D6": "black", "E5": "black", "G3": "white"}
    assert root.get("data-stones") == "5" and root.get("data-move-count") == "5" and root.get("data-size") == "9"


def test_a_stone_sits_where_its_coordinates_are_written():
    root = parse(board_svg(9, Position.from_ascii(BOARD).board))
    labels = {t.text: (float(t.get("x")), float(t.get("y"))) for t in of_class(root, "coord")}
    c7 = next(c for c in of_class(root, "stone") if c.get("data-vertex") == "C7")
    # the column letter C is above the stone, the row number 7 level with it
    assert abs(labels["C"][0] - float(c7.get("cx"))) < 0.5
    assert abs(labels["7"][1] - float(c7.get("cy"))) < 10
    xs = [float(c.get("cx")) for c in of_class(root, "stone") if c.get("data-vertex") in ("C7", "D6")]
    assert xs[0] < xs[1]  # C is left of D


@pytest.mark.parametrize("size", [5, 9, 13, 19])
def test_coordinates_skip_i_and_count_from_the_bottom(size):
    root = parse(board_svg(size, [0] * size * size))
    letters = sorted({t.text for t in of_class(root, "coord") if t.text.isalpha()})
    numbers = sorted({int(t.text) for t in of_class(root, "coord") if t.text.isdigit()})
    assert letters == sorted(GTP_COLUMNS[:size]) and "I" not in letters
    assert numbers == list(range(1, size + 1))
    lines = root.findall("s:line", NS)
    assert len(lines) == 2 * size


@pytest.mark.parametrize("size, expected", [
    (9, {(2, 2), (2, 6), (6, 2), (6, 6), (4, 4)}),
    (13, {(3, 3), (3, 9), (9, 3), (9, 9), (6, 6)}),
    (19, {(r, c) for r in (3, 9, 15) for c in (3, 9, 15)}),
    (4, set()),
])
def test_star_points(size, expected):
    assert set(star_points(size)) == expected
    root = parse(board_svg(size, [0] * size * size))
    assert len(of_class(root, "star")) == len(expected)


def test_last_move_recommendations_ownership_and_problems():
    pos = Position.from_ascii(BOARD)
    recs = [Recommendation("F4", 1, 0.62), Recommendation("C3", 2, 0.551), Recommendation("E5", 3, 0.5),
            Recommendation("pass", 4, 0.4)]
    ownership = [0.0] * 81
    ownership[0] = 0.9  # A9 black's
    ownership[2 * 9 + 2] = -0.8  # the black stone at C7 looks dead
    root = parse(board_svg(9, pos.board, last_move="E5", recommendations=recs, ownership=ownership,
                           highlights=["C6", "J1"]))
    assert [e.get("data-vertex") for e in of_class(root, "last-move")] == ["E5"]
    marks = {g.get("data-vertex"): (g.get("data-rank"), [t.text for t in g.findall("s:text", NS)])
             for g in of_class(root, "rec")}
    assert marks == {"F4": ("1", ["1", "62%"]), "C3": ("2", ["2", "55%"])}  # E5 occupied, pass not drawable
    owners = of_class(root, "owner")
    assert sorted(o.get("class") for o in owners) == ["owner black", "owner white"]
    assert [e.get("data-vertex") for e in of_class(root, "problem")] == ["C6", "J1"]


def test_sizes_and_errors():
    root = parse(board_svg(9, [0] * 81, px=300, coordinates=False))
    assert root.get("width") == "300" and not of_class(root, "coord")
    with pytest.raises(ValueError, match="80 entries"):
        board_svg(9, [0] * 80)
    with pytest.raises(ValueError, match="ownership has 3 entries"):
        board_svg(9, [0] * 81, ownership=[0.0] * 3)


def test_winrate_bar():
    root = parse(winrate_bar_svg(0.25, width=400))
    rects = root.findall("s:rect", NS)
    assert float(rects[1].get("width")) == pytest.approx(100.0)
    assert [t.text for t in root.findall("s:text", NS)] == ["B 25.0%", "W 75.0%"]


def test_dead_stones_are_crossed_out_in_the_other_colour():
    stones = [0] * 25
    stones[0], stones[24] = 1, -1  # A5 black, E1 white
    svg = board_svg(5, stones, dead=["A5", "E1", "C3"])  # C3 is empty: skipped
    assert svg.count('class="dead"') == 2
    assert 'data-vertex="A5" d=' in svg and 'stroke="#fff"' in svg and 'data-vertex="C3" d=' not in svg


def test_mistake_marks_sit_on_stones_in_their_colour():
    board = Position.from_ascii(BOARD).board
    root = parse(board_svg(9, board, marks={"C7": "#cc0000", "E5": "#72216b", "A1": "#cc0000"}))
    marks = {m.get("data-vertex"): m.get("fill") for m in of_class(root, "mistake-mark")}
    assert marks == {"C7": "#cc0000", "E5": "#72216b"}  # A1 is empty: no mark
    c7 = next(c for c in root.iter("{%s}circle" % NS["s"]) if c.get("data-vertex") == "C7"
              and (c.get("class") or "").startswith("stone"))
    mark = of_class(root, "mistake-mark")[0]
    assert (mark.get("cx"), mark.get("cy")) == (c7.get("cx"), c7.get("cy"))


def test_a_line_is_numbered_stones_skipping_taken_points():
    board = Position.from_ascii(BOARD).board
    root = parse(board_svg(9, board, line=[("W", "E3"), ("B", "C7"), ("B", "F4"), ("W", "pass"), ("W", "E3"),
                                          ("W", "G7")]))
    (group,) = of_class(root, "pv")
    drawn = [(g.get("data-vertex"), g.get("data-number"), g.find("s:circle", NS).get("fill"),
              g.find("s:text", NS).text) for g in of_class(group, "pv-stone")]
    # C7 holds a stone, the pass is not a point, E3 is taken by the line itself
    assert drawn == [("E3", "1", "#f4f4f4", "1"), ("F4", "3", "#111", "3"), ("G7", "6", "#f4f4f4", "6")]
    assert not of_class(root, "pv-hover")


def test_each_candidates_line_waits_hidden_for_the_pointer():
    recs = [Recommendation("E3", 1, 0.6), Recommendation("F6", 2, 0.5)]
    svg = board_svg(9, Position.from_ascii(BOARD).board, recommendations=recs,
                    hover_lines={"E3": [("B", "E3"), ("W", "F3")], "F6": [("B", "F6")], "A1": [("B", "A1")]})
    root = parse(svg)
    hover = {g.get("data-rank"): [s.get("data-vertex") for s in of_class(g, "pv-stone")]
             for g in of_class(root, "pv-hover")}
    assert hover == {"1": ["E3", "F3"], "2": ["F6"]}  # A1 is no candidate
    style = root.find("s:style", NS).text
    assert ".go-board g.pv-hover{visibility:hidden;pointer-events:none}" in style
    assert '.go-board g.rec[data-rank="2"]:hover~g.pv-hover[data-rank="2"]{visibility:visible}' in style
    children = list(root)  # the lines follow the candidates, as siblings (the ~ selector needs that)
    last_rec = max(i for i, e in enumerate(children) if e.get("class") == "rec")
    assert all(i > last_rec for i, e in enumerate(children) if e.get("class") == "pv-hover")


def test_a_board_carries_a_style_only_for_lines_on_hover():
    """A <style> that comes and goes with each board makes the browser restyle the page:
    only a board with hover lines carries one, and not when the page has it."""
    board, recs = Position.from_ascii(BOARD).board, [Recommendation("E3", 1, 0.6)]
    lines = {"E3": [("B", "E3")]}
    cases = [  # recommendations, hover lines, hover_style -> a <style> in the SVG
        ((), None, True, False),
        (recs, None, True, False),
        (recs, {"A1": [("B", "A1")]}, True, False),  # no candidate's line
        (recs, lines, True, True),
        (recs, lines, False, False),
    ]
    for recommendations, hover, hover_style, styled in cases:
        root = parse(board_svg(9, board, recommendations=recommendations, hover_lines=hover, hover_style=hover_style))
        assert (root.find("s:style", NS) is not None) == styled, (recommendations, hover, hover_style)
        assert len(of_class(root, "pv-hover")) == (1 if hover == lines else 0)
