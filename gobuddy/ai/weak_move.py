"""How a weak level chooses a move from the network's raw policy: like a weaker human,
not like a strong engine with noise.

``choose(pos, evaluation, style, rng)`` (the evaluation of ``pos`` from any
``Evaluator``, the side to move's view) decides, in this order:

1. **Atari answered.** If the opponent's last move put an own chain in atari and a
   saving move works (``gobuddy.ai.atari.answers_atari``: extend or capture, read
   with the rules engine, ladders included), play it: the biggest chain's, the move
   that leaves it the most liberties. Beginners always do.
2. **Passing.** Before move ``n / 2`` a level never passes (unless no sensible move
   is left), whatever the opponent does. After it: following the opponent's pass,
   pass when the network thinks we win (value > 0) or gives ``pass`` at least
   ``PASS_AFTER_PASS``; otherwise pass only when the policy's own first choice is
   pass or no sensible move is left.
3. **Candidates.** Legal points minus: own eye-like points (never filled); moves that
   put an own chain of two or more stones in atari without capturing, unless the
   policy gives them at least ``URGENT`` (a throw-in the network believes in); and,
   early in the game (before ``0.4 n`` moves), first-line points unless the policy
   gives them at least ``URGENT`` or they capture. Then the ``breadth`` best by
   policy (the moves this player "sees").
4. **The move.** Drawn with weights ``policy ** (1 / temperature)`` times ``local``
   for points within two lines (Chebyshev distance) of either of the last two moves
   (weak players answer locally). With probability ``mistake`` the weights are
   flattened (uniform over the seen candidates): a careless move, but still one of the
   moves a player of that level would consider, so its size stays realistic.

The same ``rng`` state and inputs give the same move. ``style.breadth == 1`` with a
tiny temperature plays the policy's favourite.
"""

from __future__ import annotations

import random
from itertools import accumulate
from dataclasses import dataclass

import numpy as np

from gobuddy.ai.atari import answers_atari
from gobuddy.go.position import Position
from gobuddy.go.playout import self_atari

URGENT = 0.05  # a policy probability at which an otherwise excluded move is believed
PASS_AFTER_PASS = 0.05  # after the opponent's pass, the policy's pass probability that ends the game


@dataclass(frozen=True)
class Style:
    """The knobs of a policy level (see the module doc)."""

    breadth: int
    temperature: float
    local: float = 1.0
    mistake: float = 0.0
    self_atari: bool = False  # a beginner's blunder: may put its own chains in atari


def _on_first_line(point: int, size: int) -> bool:
    r, c = divmod(point, size)
    return r == 0 or c == 0 or r == size - 1 or c == size - 1


def _near(point: int, others: list[int], size: int, reach: int = 2) -> bool:
    r, c = divmod(point, size)
    return any(abs(q // size - r) <= reach and abs(q % size - c) <= reach for q in others)


def _captures(pos: Position, point: int, color: int) -> bool:
    board = pos.board
    return any(board[q] == -color and pos.liberties(q) == 1
               for q in pos._nbrs[point])  # noqa: SLF001 - the position's own neighbour table


def candidates(pos: Position, policy: np.ndarray, self_atari_ok: bool = False) -> list[int]:
    """The sensible points for the side to move (step 3 of the module doc, before the
    breadth cut), best policy first; ``self_atari_ok`` keeps self-ataris in."""
    color = pos.to_play
    size = pos.size
    early = pos.move_count < 0.4 * pos.n
    out = []
    for p in pos.legal_moves(color):
        if pos.is_eye_like(p, color):
            continue
        urgent = policy[p] >= URGENT
        if not urgent and not self_atari_ok and self_atari(pos, p, color):
            continue
        if early and not urgent and _on_first_line(p, size) and not _captures(pos, p, color):
            continue
        out.append(p)
    out.sort(key=lambda p: (-policy[p], p))
    return out


def choose(pos: Position, policy: np.ndarray, value: float, style: Style, rng: random.Random,
           recent: list[int] | None = None) -> int:
    """A move for the side to move of ``pos`` (flat point or ``pos.pass_point``).

    ``policy``: the network's policy for ``pos`` (``n + 1`` entries, pass last);
    ``value``: its value for the side to move; ``recent``: the last moves (flat points,
    most recent last; default: ``pos.last_move``)."""
    color = pos.to_play
    pass_point = pos.pass_point
    if recent is None:
        recent = [] if pos.last_move is None else [pos.last_move]
    saves = answers_atari(pos, color, pos.last_move)
    if saves:
        return saves[0].move
    policy = np.asarray(policy, dtype=np.float64)
    opponent_passed = pos.last_move == pass_point
    late = pos.move_count >= pos.n // 2
    if late and opponent_passed and (value > 0 or policy[pass_point] >= PASS_AFTER_PASS):
        return pass_point
    seen = candidates(pos, policy, style.self_atari)[:max(1, style.breadth)]
    if not seen:
        return pass_point
    if late and int(np.argmax(policy)) == pass_point:
        return pass_point
    if rng.random() < style.mistake:
        return seen[rng.randrange(len(seen))]
    near = [m for m in recent[-2:] if 0 <= m < pos.n]  # the last two moves' points (passes left out)
    logits = np.log(np.array([max(policy[p], 1e-9) for p in seen])) / max(style.temperature, 1e-3)
    if style.local != 1.0 and near:
        logits += np.log(np.array([style.local if _near(p, near, pos.size) else 1.0 for p in seen]))
    weights = np.exp(logits - logits.max())
    weights /= weights.sum()
    pick = rng.random()
    return next((p for p, cumulative in zip(seen, accumulate(weights)) if pick < cumulative), seen[-1])


__all__ = ["URGENT", "Style", "candidates", "choose"]
