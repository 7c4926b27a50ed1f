"""Gumbel AlphaZero root search for self-play (Danihelka et al., "Policy improvement by
planning with Gumbel", ICLR 2022).

At the root of a ``gobuddy.ai.mcts.Search`` (below it the tree is the usual PUCT one,
reached through ``Search.simulate``):

1. ``k`` candidates are drawn without replacement by Gumbel-top-k: the ``k`` largest
   ``g + logits``, ``g`` i.i.d. Gumbel(0, 1), ``logits = log(prior)`` over legal moves.
2. Sequential halving spends exactly ``simulations`` new simulations on them: phases of
   ``max(1, simulations // (ceil(log2 k) * survivors))`` simulations per survivor, taken
   round-robin, after each phase the better half by ``g + logits + sigma(completed Q)``
   survive (never fewer than 2 once there were 2), until the budget is spent (the last
   round is cut short where it must be).
3. The move is the survivor with the largest ``g + logits + sigma(completed Q)``.
4. The policy target is ``softmax(logits + sigma(completed Q))`` over every legal move.

``completed Q`` is a child's mean value for the root's side to move where it was
visited, else the *mixed value* ``(v + sum N * sum_visited(prior * q) /
sum_visited(prior)) / (1 + sum N)`` (``v`` the root's network value), so an unvisited
move keeps its prior's rank and gains mass only through that one shared value.
``sigma(q) = (c_visit + max N) * c_scale * (q + 1) / 2``: values in [-1, 1] mapped to
[0, 1] (fixed, not min-max over the children). Visits left in the tree by earlier moves
count in ``N`` and ``Q`` but not in the budget.

Not done here: Dirichlet noise (the Gumbel draw is the exploration), temperature, and the
rules of self-play move choice (``training.selfplay``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from gobuddy.ai.mcts import Search, SearchStats
from gobuddy.ai.search_node import Node

_MIN_PRIOR = 1e-30  # log of a zero prior: far below any other logit, still finite


@dataclass(frozen=True)
class GumbelConfig:
    """``considered`` = k, the number of Gumbel-sampled root candidates; ``c_visit`` and
    ``c_scale`` scale the completed Q values into logits (the paper's values for Go)."""

    considered: int = 16
    c_visit: float = 50.0
    c_scale: float = 1.0


@dataclass
class GumbelResult:
    """The outcome of one root search. Arrays are over the root's legal moves
    (``moves``, flat points with pass); ``order`` lists their indices best first: the
    survivors by ``g + logits + sigma``, then the other candidates, then the rest, both
    by ``logits + sigma``."""

    moves: np.ndarray
    policy: np.ndarray
    candidates: list[int]
    survivors: list[int]
    order: list[int]
    stats: SearchStats = field(default_factory=SearchStats)

    @property
    def move(self) -> int:
        """The chosen move (a flat point)."""
        return int(self.moves[self.order[0]])

    def choose(self, exclude: set[int] = frozenset()) -> int:
        """The first move of ``order`` not in ``exclude`` (the chosen move if all are)."""
        return next((int(self.moves[i]) for i in self.order if int(self.moves[i]) not in exclude), self.move)


def logits_of(node: Node) -> np.ndarray:
    """``log(prior)`` of an expanded node's children (its raw, noise-free prior)."""
    return np.log(np.maximum(node.prior_raw, _MIN_PRIOR))


def completed_q(node: Node) -> np.ndarray:
    """Each child's value for ``node``'s side to move, in [-1, 1]: its mean value if
    visited, else the mixed value (see the module docstring). No virtual loss may be
    pending in ``node``."""
    n = node.N
    visited = n > 0
    q = np.where(visited, node.W / np.maximum(n, 1.0), 0.0)
    total = float(n.sum())
    mixed = node.net_value
    if visited.any():
        prior = node.prior_raw
        mass = float(prior[visited].sum())
        weighted = float(np.dot(prior[visited], q[visited])) / mass if mass > 0 else float(q[visited].mean())
        mixed = (node.net_value + total * weighted) / (1.0 + total)
    return np.where(visited, q, mixed)


def sigma(q: np.ndarray, node: Node, config: GumbelConfig) -> np.ndarray:
    """``(c_visit + max N) * c_scale * (q + 1) / 2``: completed values as logits."""
    top = float(node.N.max()) if len(node.N) else 0.0
    return (config.c_visit + top) * config.c_scale * (q + 1.0) / 2.0


def improved_policy(node: Node, config: GumbelConfig = GumbelConfig()) -> np.ndarray:
    """``softmax(logits + sigma(completed Q))`` over ``node``'s legal moves: the policy
    target. Sums to 1."""
    x = logits_of(node) + sigma(completed_q(node), node, config)
    x -= x.max()
    p = np.exp(x)
    return p / p.sum()


def halving_phases(simulations: int, considered: int) -> list[tuple[int, int]]:
    """The schedule of sequential halving: ``(survivors, simulations each)`` per phase,
    the last one possibly not complete (its survivors share what is left). The
    simulations add up to ``simulations``."""
    phases = max(1, math.ceil(math.log2(considered))) if considered > 1 else 1
    out: list[tuple[int, int]] = []
    left, m = simulations, considered
    while left > 0:
        each = max(1, simulations // (phases * m))
        out.append((m, each))
        left -= min(left, each * m)
        if m > 2:
            m = max(2, m // 2)
    return out


def gumbel_search(search: Search, simulations: int, rng: np.random.Generator,
                  config: GumbelConfig = GumbelConfig()) -> GumbelResult:
    """Search ``search``'s root (set with ``set_position``) with exactly ``simulations``
    new simulations (at least 1), by Gumbel-top-k and sequential halving; see the module
    docstring. The root's prior is used without noise."""
    if simulations < 1:
        raise ValueError(f"gumbel_search: simulations must be >= 1, got {simulations}")
    stats = SearchStats()
    search.evaluate_root(stats)
    root = search.root
    logits = logits_of(root)
    g = rng.gumbel(size=len(root.moves))
    k = max(1, min(config.considered, len(root.moves)))
    candidates = [int(i) for i in np.argsort(-(g + logits), kind="stable")[:k]]

    def score(indices: list[int]) -> np.ndarray:
        return (g + logits + sigma(completed_q(root), root, config))[indices]

    survivors = list(candidates)
    batch = max(1, search.config.batch_size)
    left = simulations
    try:
        for m, each in halving_phases(simulations, k):
            if m < len(survivors):
                ranked = np.argsort(-score(survivors), kind="stable")
                survivors = [survivors[j] for j in ranked[:m]]
            todo = [i for _ in range(each) for i in survivors][:left]
            left -= len(todo)
            while todo:
                todo = search.simulate(todo[:batch], stats) + todo[batch:]
    except BaseException:
        search.root = None  # virtual losses may be left in the tree: never reuse it
        raise
    final = score(survivors)
    survivors = [survivors[j] for j in np.argsort(-final, kind="stable")]
    plain = logits + sigma(completed_q(root), root, config)
    sampled, kept = set(candidates), set(survivors)
    rest = [int(i) for i in np.argsort(-plain, kind="stable") if int(i) not in kept]
    others = [i for i in rest if i in sampled] + [i for i in rest if i not in sampled]
    return GumbelResult(moves=root.moves, policy=improved_policy(root, config), candidates=candidates,
                        survivors=survivors, order=survivors + others, stats=stats)
