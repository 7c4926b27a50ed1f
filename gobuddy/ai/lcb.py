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

``choose``: among the allowed children with at least ``min_visits`` visits and at least
``min_visit_ratio`` of the most visited allowed child's, the highest LCB (ties: more
visits, then the lower index). When no allowed child qualifies (a tiny budget), the most
visited allowed child (ties: higher mean, then higher prior), as ``Search.ranked``.

``settled``: whether ``remaining`` more visits can no longer change ``choose``, taking
each child's mean as it stands (Leela Zero's ``prune_noncontenders``): a choice by
visits is settled when no other child can pass its visits; a choice by LCB ``c`` when no
other child ``j`` could push ``c`` below the ratio (``n_j + remaining < n_c / ratio``)
nor could qualify with a mean above ``c``'s bound (``n_j + remaining`` below the
thresholds, or ``q_j <= LCB_c``). A bound only rises towards the mean with visits, so a
child whose mean is below ``LCB_c`` cannot pass it unless its mean moves. Not checked:
that the means hold (a refutation found late can still change the choice).

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
    ``min_visits``: how much search a child needs to be chosen by its bound."""

    stdevs: float = 5.0
    min_visit_ratio: float = 0.15
    min_visits: int = 2


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


def pick(m: Moments, allowed: np.ndarray, config: LcbConfig = LcbConfig()) -> tuple[int, bool]:
    """The chosen child index and whether its bound chose it (``False``: the fallback,
    most visits). ``allowed`` must have a ``True``."""
    idx = np.flatnonzero(allowed)
    n = m.n[idx]
    top = n.max()
    eligible = (n >= config.min_visits) & (n >= config.min_visit_ratio * top)
    if not eligible.any():
        order = np.lexsort((-m.prior[idx], -m.q[idx], -n))  # the last key sorts first
        return int(idx[order[0]]), False
    lcb = bounds(n, m.q[idx], m.q2[idx], config.stdevs)
    lcb = np.where(eligible, lcb, -np.inf)
    order = np.lexsort((idx, -n, -lcb))
    return int(idx[order[0]]), True


def choose(root: Node, exclude: set[int] | frozenset[int] = frozenset(), config: LcbConfig = LcbConfig()) -> int:
    """The point to play (module docstring); the root must be expanded."""
    if root is None or not root.expanded:
        raise RuntimeError("lcb.choose: the root has not been searched")
    i, _ = pick(moments(root), allowed_mask(root, exclude), config)
    return int(root.moves[i])


def settled(root: Node, remaining: float, exclude: set[int] | frozenset[int] = frozenset(),
            config: LcbConfig = LcbConfig()) -> bool:
    """Whether ``remaining`` more visits cannot change ``choose`` (module docstring)."""
    allowed = allowed_mask(root, exclude)
    if allowed.sum() <= 1:
        return True
    m = moments(root)
    c, by_bound = pick(m, allowed, config)
    others = np.flatnonzero(allowed)
    others = others[others != c]
    reach = m.n[others] + remaining  # the most visits another child can end with
    if not by_bound:
        return bool(np.all(reach < m.n[c]))
    idx = np.flatnonzero(allowed)
    lcb_c = bounds(m.n[c:c + 1], m.q[c:c + 1], m.q2[c:c + 1], config.stdevs)[0]
    threshold = max(float(config.min_visits), config.min_visit_ratio * float(m.n[idx].max()))
    displaces = reach >= m.n[c] / config.min_visit_ratio
    could_win = (reach >= threshold) & (m.q[others] > lcb_c)
    return not bool(np.any(displaces | could_win))
