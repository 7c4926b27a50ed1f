"""The Gumbel root search (``gobuddy.ai.gumbel``): the budget, the policy target from
completed Q values, and the choice on positions with a known answer."""

from __future__ import annotations

import numpy as np
import pytest

from gobuddy.ai.evaluator import Evaluation, TrompTaylorEvaluator, UniformEvaluator
from gobuddy.ai.gumbel import GumbelConfig, completed_q, gumbel_search, halving_phases, improved_policy
from gobuddy.ai.mcts import Search, SearchConfig
from gobuddy.go.coords import BLACK, from_gtp, to_gtp
from gobuddy.go.position import Position

# The 12 white stones have one liberty, E5; black has 7 legal moves (E5, row 1, pass).
BIG_CAPTURE = """
O O O O .
O O O O X
O O O O X
X X X X X
. . . . .
"""


class Misleading(TrompTaylorEvaluator):
    """The Tromp-Taylor value, with 90% of the policy on one vertex (when legal)."""

    def __init__(self, vertex: str, komi: float) -> None:
        super().__init__(komi)
        self.vertex = vertex

    def evaluate(self, queries):
        out = []
        for q, ev in zip(queries, super().evaluate(queries)):
            policy = ev.policy * 0.1
            point = from_gtp(self.vertex, q.position.size)
            if q.legal[point]:
                policy[point] += 0.9
            out.append(Evaluation(policy, ev.value, ev.score_lead, ev.ownership))
        return out


def searched(evaluator, board: str | None, simulations: int, considered: int, seed: int = 1, size: int = 9,
             komi: float = 0.5):
    pos = Position.from_ascii(board, to_play=BLACK) if board else Position(size)
    search = Search(evaluator, SearchConfig(komi=komi, pipeline=False, batch_size=4))
    search.set_position(pos)
    result = gumbel_search(search, simulations, np.random.default_rng(seed), GumbelConfig(considered=considered))
    return search, result


@pytest.mark.parametrize("simulations, considered, schedule", [
    (16, 16, [(16, 1)]),                                      # one visit each, no halving
    (200, 16, [(16, 3), (8, 6), (4, 12), (2, 25), (2, 25)]),  # 48 + 48 + 48 + 50, 6 left for the last two
    (50, 8, [(8, 2), (4, 4), (2, 8), (2, 8)]),
    (7, 16, [(16, 1)]),                                       # fewer simulations than candidates
    (5, 1, [(1, 5)]),
])
def test_halving_schedule(simulations, considered, schedule):
    assert halving_phases(simulations, considered) == schedule


@pytest.mark.parametrize("simulations, considered", [(16, 16), (200, 16), (50, 8), (7, 16), (5, 1), (33, 4)])
def test_sequential_halving_spends_exactly_the_budget(simulations, considered):
    search, result = searched(UniformEvaluator(), None, simulations, considered)
    root = search.root
    assert root.N.sum() == simulations and root.visits == simulations + 1  # + the root's own evaluation
    assert result.stats.visits == simulations + 1
    visited = set(np.flatnonzero(root.N).tolist())
    assert visited <= set(result.candidates) and len(result.candidates) == considered
    assert len(result.survivors) == halving_phases(simulations, considered)[-1][0]
    # a second search of the same root (the tree reused) spends its budget again
    gumbel_search(search, simulations, np.random.default_rng(2), GumbelConfig(considered=considered))
    assert root.N.sum() == 2 * simulations


@pytest.mark.parametrize("seed", range(5))
def test_the_capture_of_a_big_group_is_chosen_with_16_simulations(seed):
    # The prior puts 90% on A1; only the values of the searched moves can find E5.
    search, result = searched(Misleading("A1", komi=0.5), BIG_CAPTURE, 16, 16, seed=seed, size=5)
    assert to_gtp(result.move, 5) == "E5"
    assert to_gtp(result.choose(exclude={result.move}), 5) != "E5"
    e5 = int(np.flatnonzero(search.root.moves == from_gtp("E5", 5))[0])
    assert e5 in result.survivors and result.policy.argmax() == e5 and result.policy[e5] > 0.99


def test_policy_target_sums_to_one_and_reaches_unvisited_moves_only_through_completed_q():
    search, result = searched(TrompTaylorEvaluator(7.0), None, 12, 4, size=9, komi=7.0)
    root = search.root
    policy = result.policy
    assert policy.sum() == pytest.approx(1.0) and (policy > 0).all()
    unvisited = np.flatnonzero(root.N == 0)
    visited = np.flatnonzero(root.N > 0)
    assert len(unvisited) == len(root.moves) - 4 and len(visited) == 4
    # every unvisited move has the one mixed value; its mass is its prior's share of it
    q = completed_q(root)
    n = root.N.sum()
    v_q = root.W[visited] / root.N[visited]
    prior = root.prior_raw
    mixed = (root.net_value + n * np.dot(prior[visited], v_q) / prior[visited].sum()) / (1 + n)
    np.testing.assert_allclose(q[unvisited], mixed)
    np.testing.assert_allclose(q[visited], v_q)
    sigma = (50 + root.N.max()) * (q + 1) / 2
    expected = prior * np.exp(sigma - sigma.max())
    np.testing.assert_allclose(policy, expected / expected.sum())
    ratio = policy[unvisited] / prior[unvisited]
    np.testing.assert_allclose(ratio, ratio[0])  # unvisited moves keep their prior's proportions


def test_before_any_simulation_the_target_is_the_prior():
    pos = Position(9)
    search = Search(Misleading("E5", komi=7.0), SearchConfig(pipeline=False))
    search.set_position(pos)
    search.run(visits=1)  # the root evaluated, nothing visited below it
    np.testing.assert_allclose(improved_policy(search.root), search.root.prior_raw)


def test_a_search_needs_a_budget():
    search = Search(UniformEvaluator(), SearchConfig(pipeline=False))
    search.set_position(Position(5))
    with pytest.raises(ValueError, match="simulations"):
        gumbel_search(search, 0, np.random.default_rng(0))
