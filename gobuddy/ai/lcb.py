"""The play-time move: the root child whose value has the best lower confidence bound,
and whether the rest of a move's budget could still change that choice.

Raw visits favour a move the search kept returning to even when another, visited less,
has proved clearly better. KataGo (``getSelfUtilityLCBAndRadius``, ``lcbStdevs`` 5,
``minVisitPropForLCB`` 0.15), Leela Zero and so KaTrain choose by a lower confidence
bound instead. A root child with ``n`` visits, mean value ``q`` and mean squared value
``q2`` (the values backed up through it, for the root's side to move, in [-1, 1]) has

    LCB = q - stdevs * sqrt(var / n)
    var = (q2 * n + (q2 + 1) * w) / (n + w) - q ** 2,   w = 1 / n ** 2

(KataGo's prior on the variance, weight ``1 / n**2`` at the value range's radius 1: one
visit gives a variance of about 0.5, so a lucky visit or two carries no weight).

``choose``: the most visited allowed child ``t`` (ties: higher mean, then higher
prior, as ``Search.ranked``) unless another allowed child qualifies by its bound: at
least ``min_visits`` visits and ``min_visit_ratio`` of ``t``'s, and an LCB at least
``min_advantage`` above ``t``'s; then the qualifying child with the highest LCB (ties:
more visits, then the lower index). The margin keeps the most visited where the values
are saturated (every move wins, means of 0.99 apart by a thousandth: no evidence), and
it is the fallback whenever nothing else qualifies (a tiny budget).

``settled``: whether ``remaining`` more visits can no longer change ``choose``, taking
each child's mean as it stands (Leela Zero's ``prune_noncontenders``): no other child
can pass ``t``'s visits (``n_j + remaining < n_t``, the rule of a choice by visits), the
choice ``c`` cannot fall below the ratio (``n_c >= min_visit_ratio * (n_t +
remaining)``), and no other child could qualify with a mean above the bound it must
beat (``LCB_c``, plus the margin when ``c`` is ``t``; minus it for ``t`` itself when
``c`` is not). A bound only rises towards the mean with visits, so a child whose mean
is below that bound cannot pass it unless its mean moves. Not checked: that the means
hold (a refutation found late can still change the choice).

Statistics come from the child nodes (real visits only, never the virtual losses of a
batch in flight). ``exclude`` is a set of points (flat, pass = ``size**2``) that may not
be chosen; when it covers every child, it is ignored (as ``Search.choose`` does).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gobuddy.ai.search_node import Node


@dataclass(frozen=True)
class LcbConfig:
    """``stdevs``: the bound's width in standard errors; ``min_visit_ratio`` and
    ``min_visits``: how much search a child needs to be chosen by its bound;
    ``min_advantage``: how far its bound must pass the most visited child's (value units,
    [-1, 1]; 0.01 is half a point of win rate)."""

    stdevs: float = 5.0
    min_visit_ratio: float = 0.15
    min_visits: int = 2
    min_advantage: float = 0.01


@dataclass(frozen=True)
class Moments:
    """Per root child (the root's column order): visits, mean value and mean squared
    value for the root's side to move (0 where unvisited), and the prior."""

    n: np.ndarray
    q: np.ndarray
    q2: np.ndarray
    prior: np.ndarray


def moments(root: Node) -> Moments:
    """The root children's statistics from their nodes (see the module docstring)."""
    count = len(root.moves)
    n, q, q2 = np.zeros(count), np.zeros(count), np.zeros(count)
    for i, child in enumerate(root.children):
        if child is not None and child.visits > 0:
            n[i] = child.visits
            q[i] = -child.value_sum / child.visits
            q2[i] = child.square_sum / child.visits
    return Moments(n, q, q2, root.prior_raw)


def bounds(n: np.ndarray, q: np.ndarray, q2: np.ndarray, stdevs: float) -> np.ndarray:
    """The lower confidence bound of each child (``-inf`` where unvisited)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        w = 1.0 / (n * n)
        square = (q2 * n + (q2 + 1.0) * w) / (n + w)
        var = np.maximum(square - q * q, 0.0)
        out = q - stdevs * np.sqrt(var / n)
    return np.where(n > 0, out, -np.inf)


def allowed_mask(root: Node, exclude: set[int] | frozenset[int]) -> np.ndarray:
    """Which root children may be chosen: those not in ``exclude``, or all if none is left."""
    mask = np.array([int(m) not in exclude for m in root.moves], dtype=bool)
    return mask if mask.any() else np.ones(len(mask), dtype=bool)


@dataclass(frozen=True)
class Pick:
    """A choice among the root children: ``index`` chosen, ``top`` the most visited
    allowed child, ``bounds`` every child's LCB (``-inf`` where unvisited)."""

    index: int
    top: int
    bounds: np.ndarray


def pick(m: Moments, allowed: np.ndarray, config: LcbConfig = LcbConfig()) -> Pick:
    """The choice of ``choose`` among the children ``allowed`` (which must have a ``True``)."""
    idx = np.flatnonzero(allowed)
    top = int(idx[np.lexsort((-m.prior[idx], -m.q[idx], -m.n[idx]))[0]])  # the last key sorts first
    lcb = bounds(m.n, m.q, m.q2, config.stdevs)
    n = m.n[idx]
    qualifies = (n >= config.min_visits) & (n >= config.min_visit_ratio * m.n[top])
    qualifies &= lcb[idx] >= lcb[top] + config.min_advantage
    if not qualifies.any():
        return Pick(top, top, lcb)
    best = idx[qualifies][np.lexsort((idx[qualifies], -n[qualifies], -lcb[idx][qualifies]))[0]]
    return Pick(int(best), top, lcb)


def choose(root: Node, exclude: set[int] | frozenset[int] = frozenset(), config: LcbConfig = LcbConfig()) -> int:
    """The point to play (module docstring); the root must be expanded."""
    if root is None or not root.expanded:
        raise RuntimeError("lcb.choose: the root has not been searched")
    return int(root.moves[pick(moments(root), allowed_mask(root, exclude), config).index])


def settled(root: Node, remaining: float, exclude: set[int] | frozenset[int] = frozenset(),
            config: LcbConfig = LcbConfig()) -> bool:
    """Whether ``remaining`` more visits cannot change ``choose`` (module docstring)."""
    return is_settled(moments(root), allowed_mask(root, exclude), remaining, config)


def is_settled(m: Moments, allowed: np.ndarray, remaining: float, config: LcbConfig = LcbConfig()) -> bool:
    """``settled`` on the children's statistics (``allowed`` must have a ``True``)."""
    if allowed.sum() <= 1:
        return True
    p = pick(m, allowed, config)
    c, t = p.index, p.top
    others = np.flatnonzero(allowed)
    others = others[others != c]
    reach = m.n[others] + remaining  # the most visits another child can end with
    if np.any(reach[others != t] >= m.n[t]):
        return False
    if c != t and m.n[c] < config.min_visit_ratio * (m.n[t] + remaining):
        return False
    threshold = max(float(config.min_visits), config.min_visit_ratio * float(m.n[t]))
    beat = p.bounds[c] + np.where(others == t, -config.min_advantage, config.min_advantage if c == t else 0.0)
    could_win = (reach >= threshold) & (m.q[others] > beat)
    return not bool(np.any(could_win))
