"""How reasons are shown and asked for (``dashboard.views.reasons``): one line each with
its icon and kind, markdown escaped, the first reason's points squared on the board,
the explainer's answers kept per key, and an explainer that fails gives no reasons."""

from __future__ import annotations

import logging

import pytest

from dashboard.board_svg import board_svg, reason_marks
from dashboard.views import reasons
from gobuddy.explain import Reason
from gobuddy.go.coords import from_gtp
from gobuddy.go.position import Position

# Black to play: the white stones D5 E5 F5 are in atari at G5.
BOARD = """
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . X X X . . .
. . X O O O . . .
. . . X X X . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . ."""


def hint(best: str = "G5") -> dict:
    return {"id": "h-1", "to_play": "B", "root": {"visits": 100, "winrate": 0.9, "winrate_black": 0.9,
                                                  "score_lead": 15.0},
            "moves": [{"move": best, "visits": 80, "winrate": 0.9, "score_lead": 15.0, "pv": [best, "H5"]},
                      {"move": "H5", "visits": 20, "winrate": 0.6, "score_lead": 3.0, "pv": ["H5"]}],
            "ownership": None}


@pytest.fixture(autouse=True)
def _fresh():
    reasons.clear_cache()
    yield
    reasons.clear_cache()


def test_each_reason_is_a_line_with_its_icon_kind_and_sentence():
    found = [Reason("capture", "captures 3 stones at D5 E5 F5", "3 stones", (39, 40, 41), 3, good=True),
             Reason("territory", "the engine expects about 13 points more at G5", "13", good=False),
             Reason("tempo", "gote: white can play elsewhere, at C3", "gote", good=None)]
    text = reasons.reasons_markdown(found, "Why G5")
    assert text.split("  \n") == [
        "**Why G5**",
        ":green[:material/thumb_up:] :green-badge[capture] Captures 3 stones at D5 E5 F5.",
        ":red[:material/thumb_down:] :red-badge[territory] The engine expects about 13 points more at G5.",
        ":gray[:material/info:] :gray-badge[tempo] Gote: white can play elsewhere, at C3."]
    assert reasons.reasons_markdown([]) == ""


def test_markdown_in_a_reason_is_shown_as_written():
    odd = Reason("engine-line", "the engine prefers *D4* [then] <b>E5</b> $5", "x")
    assert reasons.reason_line(odd).endswith(r"The engine prefers \*D4\* \[then\] \<b\>E5\</b\> \$5.")


def test_the_first_reasons_points_are_squared_on_the_board():
    svg = board_svg(9, [0] * 81, px=400)
    found = [Reason("capture", "captures", "x", (from_gtp("D5", 9), from_gtp("E5", 9), 81), 2, good=True),
             Reason("atari", "ataris", "y", (from_gtp("A1", 9),))]
    marked = reasons.mark_where(svg, found, 9, px=400)
    assert [s.split('"')[0] for s in marked.split('class="reason-mark" data-vertex="')[1:]] == ["D5", "E5"]  # no pass
    assert marked.startswith(svg[:-len("</svg>")]) and marked.endswith("</g></svg>")
    first, second = marked.split('class="reason-mark"')[1:]
    width = [float(m.split('stroke-width="')[1].split('"')[0]) for m in (first, second)]
    assert width[0] > 1.5 * width[1]  # the group's first point is drawn thicker
    assert reasons.mark_where(svg, [], 9, px=400) == svg
    assert reason_marks(svg, 9, ["pass", "Z9"], px=400) == svg


def test_a_hint_is_explained_once_per_key():
    calls = []
    real = reasons.explain_hint

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    pos = Position.from_ascii(BOARD)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(reasons, "explain_hint", counted)
        first = reasons.hint_reasons(pos, hint(), key=("board", "h-1"))
        again = reasons.hint_reasons(pos, hint(), key=("board", "h-1"))
        assert [r.kind for r in first][:1] == ["capture"] and first[0].stones == 3 and again is first
        assert len(calls) == 1
        reasons.hint_reasons(pos, hint(), key=("board", "h-2"))
        reasons.hint_reasons(pos, hint())  # no key: not kept
        reasons.hint_reasons(pos, hint())
        assert len(calls) == 4
        assert reasons.hint_reasons(pos, None, key=("board", "none")) == [] and len(calls) == 4


def test_a_move_is_explained_from_a_position_made_only_when_needed():
    made = []

    def position():
        made.append(1)
        return Position.from_ascii(BOARD)

    got = reasons.move_reasons(position, from_gtp("G5", 9), 1, key="g5")
    assert got[0].kind == "capture" and got[0].where == (39, 40, 41)
    assert reasons.move_reasons(position, from_gtp("G5", 9), 1, key="g5") is got and made == [1]


def test_an_explainer_that_fails_gives_no_reasons_and_is_logged(monkeypatch, caplog):
    def broken(*args, **kwargs):
        raise ValueError("ownership has 80 values")

    monkeypatch.setattr(reasons, "explain_move", broken)
    with caplog.at_level(logging.ERROR, logger="dashboard.reasons"):
        assert reasons.move_reasons(Position(9), 0, None, key="k") == []
    assert "ownership has 80 values" in caplog.text
    # a real failure of the explainer, not a stand-in: an answer for another board size
    bad = hint()
    bad["ownership"] = [0.0] * 80
    assert reasons.hint_reasons(Position.from_ascii(BOARD), bad) == []


def test_the_cache_keeps_the_newest_entries():
    pos = Position.from_ascii(BOARD)
    for i in range(reasons.CACHE_SIZE + 5):
        reasons.hint_reasons(pos, hint(), key=i)
    assert len(reasons._cache) == reasons.CACHE_SIZE and 0 not in [k[1] for k in reasons._cache]


def test_an_answer_is_named_by_id_visits_first_move_and_search():
    from gobuddy.bus.messages import EngineAnswer
    from gobuddy.bus.validation import examples

    data = examples("engine_answer")[0]
    assert reasons.answer_tag(data) == (data["id"], 801, "D6", False)
    assert reasons.answer_tag(EngineAnswer.from_dict(data)) == (data["id"], 801, "D6", False)
    assert reasons.answer_tag(None) is None
