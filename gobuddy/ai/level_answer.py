"""An analysis whose first move is the move a named level plays (an
``engine_request`` of purpose ``genmove`` with a ``level``; ``gobuddy.ai.levels``).

``level_answer`` analyses the position as the worker always does, with the level's
budget (one visit for a policy level: the network's evaluation of the position; the
level's visits for a search level), then puts the level's own move first:

- a policy level: ``gobuddy.ai.weak_move.choose`` on the network's policy and value,
  its random draw seeded by ``seed``, the position's key and move number (the same
  request always gets the same move);
- a search level: the saving move when the last move put an own chain in atari and
  saving works, else with the search player's manners (``gobuddy.ai.player``): after
  the opponent's pass, pass when the Tromp-Taylor count wins; otherwise the most
  visited listed move that is not an own eye-like point, and not a pass while the
  count as it stands loses (if another move is listed).

The other moves keep the search's order behind it; the level's move, when the search
did not visit it, is listed with 0 visits, the root's win rate and score, and its
policy prior. ``root`` is the search's. The ``full`` level is not handled here: it is
the ordinary analysis.
"""

from __future__ import annotations

from dataclasses import replace

from gobuddy.ai.analysis import Analysis, Candidate, analyse
from gobuddy.ai.atari import answers_atari
from gobuddy.ai.evaluator import Query
from gobuddy.ai.features import History
from gobuddy.ai.levels import Level, level_rng
from gobuddy.ai.mcts import Search
from gobuddy.ai.weak_move import choose
from gobuddy.go.position import Position
from gobuddy.go.scoring import tromp_taylor_margin

__all__ = ["level_answer"]


def _search_choice(position: Position, analysis: Analysis, komi: float) -> int | None:
    """The search level's move among the listed ones (module doc); None: keep the order."""
    color = position.to_play
    pass_point = position.pass_point
    margin = tromp_taylor_margin(position, komi) * color
    if position.last_move == pass_point and position.passes >= 1 and margin > 0:
        return pass_point
    listed = [info.point for info in analysis.moves]
    fine = [p for p in listed if p == pass_point or not position.is_eye_like(p, color)]
    if margin < 0 and len(fine) > 1:
        fine = [p for p in fine if p != pass_point]
    return fine[0] if fine else pass_point


def level_answer(search: Search, level: Level, position: Position, history: History, seed: int,
                 recent: list[int], top_k: int = 5, seconds: float | None = None,
                 ownership: bool = False) -> Analysis:
    """The answer of ``level`` in ``position`` (see the module doc); ``recent``: the last
    moves played (flat points, most recent last)."""
    if level.is_full:
        raise ValueError("the full level is the ordinary analysis")
    visits = level.visits if level.visits is not None else 1
    analysis = analyse(search, position, history, visits=visits, seconds=seconds, top_k=top_k, ownership=ownership)
    if level.style is not None:
        evaluation = search.evaluator.evaluate([Query.of(position, history)])[0]
        policy = evaluation.policy
        move = choose(position, policy, evaluation.value, level.style, level_rng(seed, position), recent)
    else:
        policy = None
        saves = answers_atari(position, position.to_play, position.last_move)
        move = saves[0].move if saves else _search_choice(position, analysis, search.config.komi)
    if move is None:
        return analysis
    listed = [info for info in analysis.moves if info.point != move]
    first = next((info for info in analysis.moves if info.point == move), None)
    if first is None:
        root = analysis.root
        prior = float(policy[move]) if policy is not None else 0.0
        first = Candidate(point=move, order=0, visits=0, winrate=root.winrate, winrate_black=root.winrate_black,
                          score_lead=root.score_lead, prior=min(1.0, max(0.0, prior)), pv=(move,))
    ordered = [first] + listed[:max(0, top_k - 1)]
    return replace(analysis, moves=tuple(replace(info, order=i) for i, info in enumerate(ordered)))
