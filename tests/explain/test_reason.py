"""``Reason`` and its forms, and every legal move of random games explained without
error, each reason consistent with the rules."""

from __future__ import annotations

import random

import pytest

from gobuddy.explain import KINDS, Reason, as_comment, as_lines, explain_move
from gobuddy.explain.reason import rank, reason
from gobuddy.go.position import Position


def test_the_line_puts_the_kind_first() -> None:
    r = reason("capture", "captures 3 stones at D4 E4 E5", "3 stones at D4 E4 E5", (1, 2, 3), 3, good=True)
    assert r.line() == "capture 3 stones at D4 E4 E5"
    assert as_lines([r, r]) == "capture 3 stones at D4 E4 E5\ncapture 3 stones at D4 E4 E5"
    assert as_comment([r]) == "Captures 3 stones at D4 E4 E5."
    assert r.to_dict() == {"kind": "capture", "text": "captures 3 stones at D4 E4 E5", "detail": "3 stones at D4 E4 E5",
                           "where": [1, 2, 3], "stones": 3, "points": None, "good": True}


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown reason kind"):
        Reason("clever", "is clever", "clever")


def test_ranking_puts_losses_and_bigger_numbers_first_and_drops_repeats() -> None:
    small = reason("capture", "captures 1 stone at A1", "1 stone at A1", (0,), 1, good=True)
    big = reason("capture", "captures 6 stones at ...", "6 stones at ...", (0,), 6, good=True)
    loss = reason("self-atari", "self-atari: white captures 1 at B1", "white captures 1 at B1", (1,), 1, good=False)
    line = reason("engine-line", "the engine prefers C3", "prefers C3", (2,))
    assert rank([line, small, big, loss, small]) == [loss, big, small, line]
    assert rank([line, small, big, loss], limit=2) == [loss, big]


def test_every_legal_move_of_random_games_is_explained_consistently() -> None:
    rng = random.Random(22)
    for size, plies in ((9, 80), (13, 60)):
        pos = Position(size)
        for _ in range(plies):
            legal = pos.legal_moves()
            for move in legal:
                trial = pos.copy()
                taken = trial.play(move)
                reasons = explain_move(pos, move, limit=None)
                for r in reasons:
                    assert r.kind in KINDS and r.text and r.detail
                    assert all(0 <= p < size * size for p in r.where)
                    if r.kind == "capture":
                        assert r.stones == len(taken) > 0, (pos.to_ascii(), move, r)
                    if r.kind == "ko" and r.detail.startswith("takes"):
                        assert trial.ko is not None
                if taken and trial.ko is None:
                    assert any(r.kind in ("capture", "snapback") for r in reasons), (pos.to_ascii(), move)
            pos.play(rng.choice(legal))


def test_the_kind_a_mistake_is_counted_under() -> None:
    from gobuddy.explain import mistake_kind

    capture = reason("capture", "captures 1 stone at A1", "1 stone at A1", (0,), 1, good=True)
    territory = reason("territory", "the engine expects about 6 points more at C3", "6 more at C3", (0,),
                       points=6.0, good=False)
    lost = reason("atari", "leaves the group at E4 in atari", "leaves E4", (0,), 4, good=False)
    assert mistake_kind([capture, territory, lost]) == "atari"
    assert mistake_kind([capture, territory]) == "territory"
    assert mistake_kind([capture]) is None and mistake_kind([]) is None
