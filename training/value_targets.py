"""Short-term value targets (KataGo's): the value a position should have, blended from
the searches that followed it instead of the game's one outcome.

The outcome is a noisy target: one blunder forty moves later flips it for every
position before. The root value of each later search is a less noisy estimate of the
same thing, and the nearer searches know more about the position in question. The
λ-return mixes them: for the position before move ``t`` (mover's view),

    G_t = (1 - λ) * v_t + λ * (-G_{t+1}),    G_T = -z_{T-1}

where ``v_t`` is the root value of move ``t``'s search (for its mover) and ``z`` the
outcome for the mover of the last move, so later searches count with weight
``(1 - λ) * λ**k`` and the outcome with what is left, ``λ**(T - t)``. The sign flips
because the players alternate. ``λ = 1 - 1 / horizon``; ``HORIZON`` is about six moves,
the shortest of KataGo's horizons scaled to a 9x9 game of about 50 moves.

``training.positions`` writes ``short_value`` for games that recorded ``root_values``
(self-play since 2026-11-27; NaN otherwise), and ``training.train
--short-value-weight A`` trains the value head towards ``(1 - A) * z + A * G`` where
``G`` is known. Not checked: that the root values came from a search of the same
strength as the one being trained.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

HORIZON = 6.0  # moves; λ = 1 - 1 / HORIZON
SHORT_TERM_LAMBDA = 1.0 - 1.0 / HORIZON


def lambda_returns(root_values: Sequence[float], outcome: np.ndarray, lam: float = SHORT_TERM_LAMBDA) -> np.ndarray:
    """``G_t`` for every move ``t`` of a game (float32, the mover's view): ``root_values``
    per move and ``outcome`` per move (the game's result for that move's mover, +1, -1
    or 0), as the module docstring defines them. ``lam`` 0 gives the root values, 1 the
    outcome."""
    v = np.asarray(root_values, dtype=np.float64)
    z = np.asarray(outcome, dtype=np.float64)
    if v.shape != z.shape or v.ndim != 1:
        raise ValueError(f"root_values and outcome must be one value per move, got {v.shape} and {z.shape}")
    if not 0.0 <= lam <= 1.0:
        raise ValueError(f"lambda must be in [0, 1], got {lam}")
    out = np.empty(len(v), dtype=np.float64)
    after = -z[-1] if len(v) else 0.0  # G_T: the outcome for the side to move after the last move
    for t in range(len(v) - 1, -1, -1):
        after = (1.0 - lam) * v[t] - lam * after
        out[t] = after
    return out.astype(np.float32)
