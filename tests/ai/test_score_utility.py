"""The score utility in selection (``SearchConfig.score_utility``, KataGo's): where the
values tie, the search leans to the move with the larger score lead, by a bounded
amount; off by default. (That the compiled search builds the same trees with it on:
``test_native_search``.)"""

from __future__ import annotations

import math

import numpy as np
import pytest

from gobuddy.ai.evaluator import Evaluation, uniform_policy
from gobuddy.ai.mcts import Search, SearchConfig
from gobuddy.ai.search_node import score_bonus
from gobuddy.go.coords import from_gtp, to_gtp
from gobuddy.go.position import Position

# The score lead the side to move is given after the opponent's last move (5x5): every
# value is 0, so only the score tells the root's moves apart.
GAIN = {"C3": 6.0, "B2": 2.0, "D4": -3.0}


class ScoreOnly:
    """Duck-typed evaluator: uniform policy, value 0, score lead from ``GAIN``."""

    has_score, has_ownership = True, False
    board_sizes = (5,)
    name = "score-only"

    def evaluate(self, queries):
        out = []
        for q in queries:
            last = q.position.last_move
            gain = GAIN.get(to_gtp(last, 5), 0.0) if last is not None and last != q.position.pass_point else 0.0
            out.append(Evaluation(uniform_policy(q.legal), 0.0, score_lead=-gain))
        return out


def root_visits(utility: float) -> dict[str, int]:
    search = Search(ScoreOnly(), SearchConfig(komi=0.5, pipeline=False, batch_size=1, score_utility=utility))
    search.set_position(Position(5))
    search.run(visits=300)
    root = search.root
    return {to_gtp(int(m), 5): int(n) for m, n in zip(root.moves, root.N)}


def test_without_it_equal_values_get_equal_visits_and_with_it_the_larger_score_leads():
    plain = root_visits(0.0)
    assert max(plain.values()) - min(plain.values()) <= 1  # uniform prior, equal values: spread evenly
    leaning = root_visits(0.3)
    order = sorted(leaning, key=leaning.get, reverse=True)
    assert order[:2] == ["C3", "B2"]  # +6 then +2 points
    assert leaning["D4"] == min(leaning.values())  # -3 points: the least visited
    assert leaning["C3"] > plain["C3"] and leaning["D4"] < plain["D4"]


@pytest.mark.parametrize("utility, scale, expected", [
    # lambda  scale  (factor, scale) for search_node.select
    (0.0, 5.0, None),
    (0.3, 5.0, (0.6 / math.pi, 5.0)),
    (1.0, 2.0, (2.0 / math.pi, 2.0)),
])
def test_the_config_gives_select_its_factor(utility, scale, expected):
    assert SearchConfig(score_utility=utility, score_scale=scale).utility == expected


@pytest.mark.parametrize("utility, scale", [(-0.1, 5.0), (0.3, 0.0), (0.3, -1.0), (math.nan, 5.0), (math.inf, 5.0),
                                            (0.3, math.nan), (0.3, math.inf)])
def test_a_negative_utility_or_a_scale_that_is_not_positive_is_refused(utility, scale):
    with pytest.raises(ValueError, match=r"score_utility must be >= 0 and score_scale > 0 \(both finite\)"):
        SearchConfig(score_utility=utility, score_scale=scale)


def test_the_bonus_uses_the_mean_score_of_a_visited_child_and_the_network_score_of_the_others():
    search = Search(ScoreOnly(), SearchConfig(komi=0.5, pipeline=False, batch_size=1))
    search.set_position(Position(5))
    search.run(visits=40)
    root = search.root
    factor, scale = 0.2, 4.0
    bonus = score_bonus(root, factor, scale)
    for i, move in enumerate(root.moves):
        mean = root.S[i] / root.N[i] if root.N[i] > 0 else (root.net_score or 0.0)
        assert bonus[i] == factor * math.atan(mean / scale), to_gtp(int(move), 5)
    assert (root.N > 0).any() and (root.N == 0).any()  # both kinds of children were checked
    assert np.all(np.abs(bonus) < factor * math.pi / 2)  # bounded: never more than lambda
    assert from_gtp("C3", 5) in root.moves
