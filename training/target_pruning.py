"""Policy target pruning (KataGo's), the other half of forced playouts.

Forced playouts (``SearchConfig.forced_playouts``: k) give a root child at least about
``sqrt(k * prior * total)`` visits, so the moves the noise raised get looked at. Those
visits say nothing about how good the move is, and left in the policy target they would
teach the network to play what it only explored. Pruning takes them back out: the most
visited child ``b`` keeps its visits; every other child loses up to
``sqrt(k * prior * total)`` visits, but only as many as keep its PUCT score, at the
reduced count, no higher than ``b``'s (the visits it would have had without forcing),
and a child left with one visit or fewer drops out.

PUCT here is the search's own (``search_node.select``): ``Q + prior * c_puct *
sqrt(total) / (1 + N)``, with the prior the root's as selection used it (noise
included). Not checked: that ``visits``, ``values`` and ``prior`` are one root's.
"""

from __future__ import annotations

import math

import numpy as np


def pruned_visits(visits: np.ndarray, values: np.ndarray, prior: np.ndarray, c_puct: float,
                  forced: float) -> np.ndarray:
    """The root's visit counts with the forced playouts taken out (float64, same order):
    ``visits`` per child, ``values`` their summed values (``W``, so ``Q = W / N``),
    ``prior`` as selection used it, ``forced`` the k the search ran with (0: unchanged)."""
    n = np.asarray(visits, dtype=np.float64)
    out = n.copy()
    total = float(n.sum())
    if forced <= 0 or total <= 0:
        return out
    w = np.asarray(values, dtype=np.float64)
    p = np.asarray(prior, dtype=np.float64)
    best = int(n.argmax())
    k = c_puct * math.sqrt(max(total, 1.0))
    best_score = w[best] / n[best] + p[best] * k / (n[best] + 1.0)
    for i in np.flatnonzero(n > 0):
        if i == best:
            continue
        q = w[i] / n[i]
        lowest = n[i] - math.sqrt(forced * p[i] * total)  # at most the forced playouts come off
        if best_score > q and p[i] > 0:
            lowest = max(lowest, p[i] * k / (best_score - q) - 1.0)  # and no more than PUCT allows
        else:
            lowest = n[i]  # it beats the best on its own merit: nothing was forced
        kept = min(n[i], max(0.0, lowest))
        out[i] = kept if kept > 1.0 else 0.0
    return out
