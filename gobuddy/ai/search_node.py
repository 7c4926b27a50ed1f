"""A node of the search tree and the arithmetic on its children: statistics updates,
PUCT selection, expansion of a batch of leaves. ``gobuddy.ai.mcts`` drives them.

Selection is one ``argmax`` (ties: the lowest index) of the numpy expression
``prior * k / (N + 1) + Q`` with ``k = c_puct * sqrt(max(sum N, 1))``, where ``Q`` is
``W / N`` for a visited child (``N > 0``, virtual visits count) and the first-play
urgency ``fpu = net_value - fpu_reduction * sqrt(np.dot(prior, N > 0))`` for an
unvisited one. ``N + 1`` and ``Q`` are kept as arrays, updated one child at a time
with the same float operations the whole-array expressions would do, so a selection
costs three ufuncs and an ``argmax``, and trees are bit for bit those of the plain
expressions; ``fpu`` (and the unvisited children's ``Q``) is recomputed only when the
set of visited children or the prior changes.

With a score utility (``utility = (factor, scale)``, KataGo's: ``factor`` is
``lambda * 2 / pi``) each child's term gains ``factor * atan(mean / scale)``, ``mean``
being its mean score lead ``S / N`` when visited and the node's network score lead
when not (0 without a score head); ``math.atan`` per child, the C library's ``atan``
as in the compiled search, so the two still build the same trees.

Not checked here: that indices are in range, that priors are finite and not negative.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from gobuddy.ai.evaluator import Evaluation
from gobuddy.go.position import Position


class Node:
    """A position in the tree. Child statistics exist once the node is expanded.

    ``N``, ``W``, ``S`` (per child: visits including virtual losses, summed values and
    summed score leads, for this node's side to move) are views into a float64 buffer
    ``[5, columns]`` shared by the nodes expanded in one batch, rows N, W, S, ``N + 1``
    and ``Q``; this node's children are the columns from ``base``, ``stats`` is a flat
    memoryview of the buffer (``width`` columns a row) for fast scalar updates. Every
    change of a child's ``N`` or ``W`` goes through ``change``, which keeps ``N + 1``
    and ``Q`` up to date; ``fpu`` is ``None`` when the set of visited children (or the
    prior) changed and the unvisited children's ``Q`` must be renewed. ``children`` holds one entry
    per legal move (``None`` until created) once the first child exists, and is empty
    before. ``board`` is the position's stones as a flat int8 array (a ``History``
    entry for the descendants). ``visits``, ``value_sum``, ``square_sum`` and
    ``score_sum`` are this node's own real visits (no virtual loss) and their summed
    values, squared values and score leads, for its side to move."""

    __slots__ = ("parent", "index", "position", "_board", "legal", "moves", "prior", "prior_raw",
                 "N", "W", "S", "N1", "Q", "stats", "base", "width", "nsum", "fpu", "children", "visits",
                 "value_sum", "square_sum", "score_sum", "net_value", "net_score", "ownership", "terminal", "pending")

    def __init__(self, position: Position, parent: "Node | None" = None, index: int = -1,
                 board: np.ndarray | None = None) -> None:
        self.parent = parent
        self.index = index
        self.position = position
        self._board = board
        self.legal: np.ndarray | None = None
        self.moves: np.ndarray | None = None
        self.prior = self.prior_raw = self.N = self.W = self.S = self.N1 = self.Q = None
        self.stats: memoryview | None = None
        self.base = self.width = 0
        self.nsum = 0.0  # sum of N, virtual losses included
        self.fpu: float | None = None
        self.children: list[Node | None] | tuple[()] = ()
        self.visits = 0
        self.value_sum = 0.0
        self.square_sum = 0.0  # summed squared values (the spread of a move's value: gobuddy.ai.lcb)
        self.score_sum = 0.0
        self.net_value = 0.0
        self.net_score: float | None = None
        self.ownership: np.ndarray | None = None
        self.terminal: tuple[float, float] | None = None
        self.pending = False

    @property
    def board(self) -> np.ndarray:
        """The stones as a flat int8 array (a ``History`` entry for the descendants)."""
        if self._board is None:
            self._board = np.array(self.position.board, dtype=np.int8)
        return self._board

    @property
    def expanded(self) -> bool:
        return self.moves is not None

    @property
    def q(self) -> float:
        """Mean value for this node's side to move (its network value before any visit)."""
        return self.value_sum / self.visits if self.visits else self.net_value


def change(node: Node, i: int, dn: float, dw: float) -> None:
    """Add ``dn`` to child ``i``'s ``N`` (and ``nsum``) and ``dw`` to its ``W``, keeping
    ``N + 1`` and ``Q`` up to date."""
    st, width = node.stats, node.width
    j = node.base + i
    old = st[j]
    n = old + dn
    jw = j + width
    w = st[jw] + dw
    st[j] = n
    st[jw] = w
    st[jw + 2 * width] = n + 1.0
    node.nsum += dn
    if n > 0:
        st[jw + 3 * width] = w / n
    if (old > 0) != (n > 0):  # the visited set changed, and with it the urgency of unvisited children
        node.fpu = None


def add_score(node: Node, i: int, score: float) -> None:
    """Add ``score`` to child ``i``'s ``S``."""
    node.stats[node.base + i + 2 * node.width] += score


def set_prior(node: Node, prior: np.ndarray) -> None:
    """Replace the prior used by selection (``prior_raw`` stays), e.g. with noise."""
    node.prior = prior
    node.fpu = None


def score_bonus(node: Node, factor: float, scale: float) -> np.ndarray:
    """Each child's score utility ``factor * atan(mean / scale)`` (the module docstring)."""
    mean = np.full(len(node.N), float(node.net_score or 0.0))
    np.divide(node.S, node.N, out=mean, where=node.N > 0)
    mean /= scale
    return factor * np.fromiter(map(math.atan, mean.tolist()), dtype=np.float64, count=len(mean))


def select(node: Node, c_puct: float, fpu_reduction: float, forced: float = 0.0,
           utility: tuple[float, float] | None = None) -> int:
    """The child index PUCT selects (see the module docstring). With ``forced`` > 0
    (KataGo's forced playouts, for the root): the children whose ``N`` is below
    ``sqrt(forced * prior * sum N)`` come first, PUCT choosing among them. With
    ``utility`` (``(factor, scale)``), the score utility joins each child's term."""
    if node.fpu is None:
        unvisited = node.N <= 0
        mass = float(np.dot(node.prior, ~unvisited))
        node.fpu = node.net_value - fpu_reduction * math.sqrt(mass)
        node.Q[unvisited] = node.fpu
    score = node.prior * (c_puct * math.sqrt(max(node.nsum, 1.0)))
    score /= node.N1
    score += node.Q
    if utility is not None:
        score += score_bonus(node, *utility)
    if forced > 0:
        short = node.N < np.sqrt(forced * node.prior * node.nsum)
        if short.any():
            return int(np.where(short, score, -np.inf).argmax())
    return int(score.argmax())


def expand(leaves: Sequence[Node], legal: np.ndarray, evaluations: Sequence[Evaluation]) -> None:
    """Give every leaf its legal moves (the rows of ``legal``), priors (its policy on
    them, renormalised; uniform if that sums to 0), zeroed statistics and, nothing
    being visited yet, its first-play urgency (its network value). The leaves share
    one array per quantity, each holding its own slice."""
    rows, cols = legal.nonzero()
    counts = legal.sum(axis=1).tolist()
    priors = np.array([ev.policy for ev in evaluations], dtype=np.float64)[rows, cols]
    net = [float(ev.value) for ev in evaluations]
    fpus = net  # nothing visited yet: the urgency is the network value (no prior mass to reduce it)
    width = len(cols)
    buffer = np.zeros((5, width))
    buffer[3] = 1.0
    buffer[4] = np.repeat(fpus, counts)
    flat = memoryview(buffer.reshape(-1))
    n_row, w_row, s_row, n1_row, q_row = buffer
    start = 0
    for node, ev, count, value, fpu in zip(leaves, evaluations, counts, net, fpus):
        end = start + count
        prior = priors[start:end]
        total = prior.sum()
        if total > 0:
            prior /= total
        else:
            prior = np.full(count, 1.0 / count)
        node.moves = cols[start:end]
        node.prior = node.prior_raw = prior
        node.N, node.W, node.S = n_row[start:end], w_row[start:end], s_row[start:end]
        node.N1, node.Q = n1_row[start:end], q_row[start:end]
        node.stats, node.base, node.width = flat, start, width
        node.net_value = value
        node.fpu = fpu
        node.net_score = ev.score_lead
        node.ownership = ev.ownership
        start = end
