"""Point loss per move from stored analyses, KaTrain-like classes, the game report."""

from __future__ import annotations

import pytest

from dashboard.mistakes import classify, move_loss, review_game, unit_for


def ans(to_play: str, winrate_black: float, lead: float | None = None,
        moves: list[tuple[str, float, float | None, float]] = ()) -> dict:
    """An engine answer: root win rate for black, root score lead for the side to move,
    candidates as (move, win rate for the side to move, score lead, prior)."""
    wr = winrate_black if to_play == "B" else 1 - winrate_black
    return {"to_play": to_play,
            "root": {"visits": 100, "winrate": wr, "winrate_black": winrate_black, "score_lead": lead, "value": 0.0},
            "moves": [{"move": m, "order": i, "visits": 10, "winrate": w,
                       "winrate_black": w if to_play == "B" else 1 - w, "score_lead": s, "prior": p, "pv": [m]}
                      for i, (m, w, s, p) in enumerate(moves)]}


@pytest.mark.parametrize("loss, points, win_rate", [
    (20.0, "blunder", "mistake"),
    (12.0, "blunder", "mistake"),
    (11.9, "mistake", "inaccuracy"),
    (6.0, "mistake", "inaccuracy"),
    (3.0, "inaccuracy", "doubtful"),
    (1.5, "doubtful", "okay"),
    (0.5, "okay", "good"),
    (0.49, "good", "good"),
    (0.0, "good", "good"),
])
def test_classes_by_thresholds(loss, points, win_rate):
    assert classify(loss, "points") == points
    assert classify(loss, "win rate") == win_rate


@pytest.mark.parametrize("before, after, color, unit, loss", [
    # black to play, black +2; after black's move white leads by 3: black lost 5 points
    (ans("B", 0.6, 2.0), ans("W", 0.4, 3.0), "B", "points", 5.0),
    # white to play, black +3 (white -3); after white's move black leads by 10: white lost 7
    (ans("W", 0.7, -3.0), ans("B", 0.9, 10.0), "W", "points", 7.0),
    # black gained: a negative loss
    (ans("B", 0.5, 0.0), ans("W", 0.45, -1.0), "B", "points", -1.0),
    # win rate: black 60% -> 45%: 15 percentage points
    (ans("B", 0.60), ans("W", 0.45), "B", "win rate", 15.0),
    (ans("W", 0.30), ans("B", 0.40), "W", "win rate", 10.0),
])
def test_move_loss(before, after, color, unit, loss):
    assert move_loss(before, after, color, unit) == pytest.approx(loss)


GAME = [(1, "B", "E5"), (2, "W", "C3"), (3, "B", "A1"), (4, "W", "D4")]


def scored_answers() -> dict[int, dict]:
    return {
        0: ans("B", 0.55, 1.0, [("E5", 0.56, 1.2, 0.6), ("D4", 0.54, 0.8, 0.4)]),
        1: ans("W", 0.44, -1.0, [("C3", 0.56, -0.9, 0.3), ("G5", 0.50, -2.0, 0.7)]),  # black +1
        2: ans("B", 0.6, 1.5, [("D4", 0.62, 1.6, 0.5), ("F6", 0.6, 1.5, 0.3), ("A1", 0.2, -12.0, 0.2)]),
        3: ans("W", 0.2, 12.0, [("D4", 0.8, 12.1, 1.0)]),  # black -12 after A1: lost 13.5
        # no answer after move 4
    }


def test_review_in_points():
    review = review_game(GAME, scored_answers())
    assert review.unit == "points"
    rows = [(m.number, m.vertex, None if m.loss is None else round(m.loss, 2), m.category, m.best, m.top_move)
            for m in review.moves]
    assert rows == [
        (1, "E5", 0.0, "good", "E5", True),  # black +1 -> +1
        (2, "C3", 0.5, "okay", "C3", True),  # white -1 -> -1.5
        (3, "A1", 13.5, "blunder", "D4", False),
        (4, "D4", None, None, "D4", None),  # nothing after it
    ]
    assert [m.number for m in review.mistakes("inaccuracy")] == [3]
    assert [m.number for m in review.mistakes("okay")] == [3, 2]
    black, white = review.players["B"], review.players["W"]
    assert (black.moves, white.moves) == (2, 1)
    assert black.top_move_rate == 0.5 and white.top_move_rate == 1.0
    assert black.top5_rate == 0.5  # A1 loses more than half a point against D4: not approved
    assert black.histogram["blunder"] == 1 and black.histogram["good"] == 1
    # weights: E5 max(complexity, 0/4) = prior-weighted candidate loss 0.4*0.4 = 0.16; A1 min(1, 13.5/4) = 1
    weighted = (0.0 * 0.16 + 13.5 * 1.0) / (0.16 + 1.0)
    assert black.weighted_loss == pytest.approx(weighted)
    assert black.accuracy == pytest.approx(100 * 0.75 ** weighted)
    assert white.accuracy == pytest.approx(100 * 0.75 ** 0.5)


def test_review_in_win_rate_without_a_score_head():
    answers = {n: {**a, "root": {**a["root"], "score_lead": None}} for n, a in scored_answers().items()}
    assert unit_for(answers) == "win rate"
    review = review_game(GAME, answers)
    assert review.unit == "win rate"
    losses = [None if m.loss is None else round(m.loss, 1) for m in review.moves]
    assert losses == [11.0, 16.0, 40.0, None]  # black 55 -> 44, white 56 -> 40, black 60 -> 20
    assert [m.category for m in review.moves[:3]] == ["inaccuracy", "mistake", "blunder"]
    # in points (win rate / 2): 5.5 and 20, both weighted 1
    assert review.players["B"].accuracy == pytest.approx(100 * 0.75 ** ((5.5 + 20) / 2))
    assert review.players["B"].weighted_loss == pytest.approx(25.5)


def test_moves_out_of_turn_or_unanalysed_are_not_judged():
    answers = {0: ans("W", 0.5, 0.0), 1: ans("W", 0.5, 0.0)}  # the answer says white is to play
    review = review_game([(1, "B", "E5")], answers)
    assert review.moves[0].loss is None and review.players["B"].moves == 0
    assert review.players["B"].accuracy is None
    assert review_game([(1, "B", "E5")], {}).moves[0].loss is None
