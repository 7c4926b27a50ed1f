"""The engine library's ``Analysis`` as the wire's ``engine_answer``: the one place where
a search result meets the bus (points become GTP vertices, colours ``"B"``/``"W"``),
the teacher's ``Judgement`` (``gobuddy.ai.teaching``) as the answer's ``judgement``, and
the end-of-game verdict (``gobuddy.ai.final_status.FinalStatus``) as its ``final_status``,
and the heaviest reason for the first move (``gobuddy.explain``) as its ``reason``.

Not checked here: that the analysis answers the request (the worker pairs them).
"""

from __future__ import annotations

from gobuddy.ai.analysis import Analysis
from gobuddy.ai.final_status import FinalStatus
from gobuddy.ai.teaching import Judgement
from gobuddy.bus.engine_messages import (DeadStones, EngineAnswer, MoveInfo, MoveJudgement, MoveReason, PositionKey,
                                         RootInfo, Tolerance)
from gobuddy.explain import explain_hint
from gobuddy.go.coords import color_to_str, to_gtp
from gobuddy.go.position import Position


def wire_judgement(judgement: Judgement, size: int) -> MoveJudgement:
    """The wire's ``judgement`` of ``judgement`` on a ``size`` board."""
    allowed = judgement.tolerance
    return MoveJudgement(
        move=to_gtp(judgement.move, size), color=color_to_str(judgement.color), level=judgement.level,
        points_lost=judgement.points_lost, winrate_lost=judgement.winrate_lost, best=to_gtp(judgement.best, size),
        winrate=judgement.winrate, score_lead=judgement.score_lead, mistake=judgement.mistake,
        tolerance=Tolerance(points=allowed.points, winrate=allowed.winrate, safe_winrate=allowed.safe_winrate),
        visits=judgement.visits, searched=judgement.searched)


def wire_dead_stones(status: FinalStatus) -> DeadStones:
    """The wire's ``final_status``: the stones counted dead, and those of unsure groups."""
    unsure = sorted(p for g in status.unsure() for p in g.stones)
    return DeadStones(dead=tuple(to_gtp(p, status.size) for p in status.dead_points()),
                      unsure=tuple(to_gtp(p, status.size) for p in unsure))


def wire_reason(position: Position, answer: dict) -> MoveReason | None:
    """The heaviest reason for the first move of ``answer`` (a final answer's wire dict)
    about ``position``, or ``None`` when nothing explains it."""
    reasons = explain_hint(position, answer, limit=1)
    if not reasons:
        return None
    r = reasons[0]
    return MoveReason(kind=r.kind, text=r.text[:300], where=tuple(to_gtp(p, position.size) for p in r.where))


def wire_answer(analysis: Analysis, *, id: str = "", board_id: str | None = None, worker: str = "",
                judgement: Judgement | None = None, final_status: FinalStatus | None = None) -> EngineAnswer:
    """The ``engine_answer`` message of ``analysis`` for request ``id`` (of ``board_id``),
    answered by ``worker``, with the ``judgement`` of a learner's move and the
    ``final_status`` of the position when given."""
    size = analysis.size
    root = analysis.root
    moves = tuple(MoveInfo(move=to_gtp(c.point, size), order=c.order, visits=c.visits, winrate=c.winrate,
                           winrate_black=c.winrate_black, score_lead=c.score_lead, prior=c.prior,
                           pv=tuple(to_gtp(p, size) for p in c.pv)) for c in analysis.moves)
    return EngineAnswer(
        id=id, board_id=board_id, position_key=PositionKey(analysis.move_count, analysis.position_hash),
        to_play=color_to_str(analysis.to_play),
        root=RootInfo(visits=root.visits, winrate=root.winrate, winrate_black=root.winrate_black,
                      score_lead=root.score_lead, value=root.value),
        moves=moves, ownership=analysis.ownership, is_during_search=analysis.is_during_search, model=analysis.model,
        elapsed_ms=analysis.elapsed_ms, worker=worker,
        judgement=wire_judgement(judgement, size) if judgement is not None else None,
        final_status=wire_dead_stones(final_status) if final_status is not None else None)
