"""The teacher's judgement of a learner's move: how much it lost, what was better,
and whether it is a mistake at the learner's level.

Shaped like KaTrain's teaching mode: a move is judged by its point loss (the engine's
choice's score lead less the played move's, for the player who moved), and the loss
tolerated grows as the level weakens, so a beginner is stopped only for the big
mistakes that a beginner can see. The win rate lost is judged too, with its own
tolerance (our network's score head is compressed: a first move on the 1-1 point costs
it under 5 points but a third of the win rate), and alone when the model has no score
head. For the weakest levels a move that keeps the win rate safe is accepted whatever
it loses (KaTrain's users' complaint: judging a won game by points pushes beginners
into play beyond them).

| level            | points tolerated | win rate lost tolerated            | safe win rate |
|------------------|-----------------:|-----------------------------------:|--------------:|
| 30 kyu           | 12               | 0.30                               | 0.90          |
| 25 kyu           | 10               | 0.25                               | 0.90          |
| 20 kyu           | 8                | 0.20                               | 0.90          |
| 15 kyu           | 6                | 0.15                               | 0.95          |
| 10 kyu           | 4                | 0.12                               | none          |
| 7 kyu            | 3                | 0.10                               | none          |
| 5 kyu            | 2.5              | 0.08                               | none          |
| 2 kyu            | 1.5              | 0.06                               | none          |
| full             | 1                | 0.05                               | none          |

The played move's figures are never guessed: they are the root search's figures for
that move when the search gave it at least ``MIN_VISITS`` visits (or it is the
engine's choice), otherwise the figures of a search of the position after the move
(``after``: its root, turned to the mover's side). ``judge`` raises ``ValueError``
when the move needs that search and none is given (``needs_search`` says so first).

Points are flat (``gobuddy.go.coords``); the wire's judgement (GTP vertices) is made
by the engine worker. Not checked here: that ``after`` is the position after ``move``
(the caller searches it), and the move's legality (the caller played it).
"""

from __future__ import annotations

from dataclasses import dataclass

from gobuddy.ai.analysis import Analysis, Candidate
from gobuddy.ai.features import History, board_array, push_history
from gobuddy.ai.levels import FULL, level_named
from gobuddy.go.position import IllegalMove, Position

MIN_VISITS = 8
"""A candidate with fewer root visits than this is searched on its own (its figures
from so few visits are too noisy to judge by)."""


@dataclass(frozen=True)
class Tolerance:
    """What a level forgives: ``points`` lost and ``winrate`` lost (a loss above either
    is a mistake), and ``safe_winrate``: a move after which the mover's win rate is at
    least this is accepted whatever it lost (``None``: never)."""

    points: float
    winrate: float
    safe_winrate: float | None = None


TOLERANCES: dict[str, Tolerance] = {
    "30 kyu": Tolerance(12.0, 0.30, 0.90),
    "25 kyu": Tolerance(10.0, 0.25, 0.90),
    "20 kyu": Tolerance(8.0, 0.20, 0.90),
    "15 kyu": Tolerance(6.0, 0.15, 0.95),
    "10 kyu": Tolerance(4.0, 0.12),
    "7 kyu": Tolerance(3.0, 0.10),
    "5 kyu": Tolerance(2.5, 0.08),
    "2 kyu": Tolerance(1.5, 0.06),
    FULL: Tolerance(1.0, 0.05),
}


def tolerance(level: str) -> Tolerance:
    """The tolerance of the level called ``level`` (``KeyError`` for an unknown name)."""
    return TOLERANCES[level_named(level).name]


@dataclass(frozen=True)
class Judgement:
    """The judgement of ``move`` (flat point, pass included) played by ``color`` in the
    position of the analysis: ``points_lost`` (``None`` without a score head; negative
    when the move came out better than the engine's choice), ``winrate_lost`` (both for
    the mover, rounded), ``best`` the engine's choice there, ``winrate``/``score_lead``
    the mover's after the move, ``mistake`` at ``level`` (with its ``tolerance``),
    ``visits`` behind the move's figures and ``searched``: ``"candidate"`` (the root
    search's) or ``"after"`` (a search of the position after the move)."""

    move: int
    color: int
    level: str
    points_lost: float | None
    winrate_lost: float
    best: int
    winrate: float
    score_lead: float | None
    mistake: bool
    tolerance: Tolerance
    visits: int
    searched: str


def _candidate(before: Analysis, move: int) -> Candidate | None:
    """The root search's figures for ``move`` when they are good enough to judge by."""
    for info in before.moves:
        if info.point == move and (info.order == 0 or info.visits >= MIN_VISITS):
            return info
    return None


def needs_search(before: Analysis, move: int) -> bool:
    """Whether judging ``move`` needs a search of the position after it."""
    return _candidate(before, move) is None


def position_after(position: Position, history: History, move: int) -> tuple[Position, History]:
    """The position after the side to move plays ``move`` in ``position`` (a copy), with
    its history, to search when ``needs_search``; ``IllegalMove`` naming the reason
    when the move is not legal there."""
    why = None if move == position.pass_point else position.illegal_reason(move, position.to_play)
    if why is not None:
        raise IllegalMove(f"the move is not legal in this position: {why}")
    after = position.copy()
    after.play(move, position.to_play, check=False)
    return after, push_history(history, board_array(position))


def judge(before: Analysis, move: int, level: str, after: Analysis | None = None) -> Judgement:
    """Judge ``move`` played in the position ``before`` analyses, at ``level`` (a name
    of ``gobuddy.ai.levels``); ``after``: the analysis of the position after the move,
    needed when ``needs_search``. ``ValueError`` when ``before`` lists no move, or the
    move needs ``after`` and has none."""
    best = before.best
    if best is None:
        raise ValueError("the analysis before the move lists no move to compare with")
    found = _candidate(before, move)
    if found is not None:
        winrate, score, visits, searched = found.winrate, found.score_lead, found.visits, "candidate"
    elif after is None:
        raise ValueError("the move was not searched enough in the position before it: search the position after it")
    else:
        root = after.root
        winrate = 1.0 - root.winrate
        score = -root.score_lead if root.score_lead is not None else None
        visits, searched = root.visits, "after"
    name = level_named(level).name
    allowed = TOLERANCES[name]
    if move == best.point:
        points_lost: float | None = 0.0 if score is not None else None
        winrate_lost = 0.0
    else:
        points_lost = (round(best.score_lead - score, 1)
                       if score is not None and best.score_lead is not None else None)
        winrate_lost = round(best.winrate - winrate, 3)
    too_much = winrate_lost > allowed.winrate or (points_lost is not None and points_lost > allowed.points)
    safe = allowed.safe_winrate is not None and winrate >= allowed.safe_winrate
    return Judgement(move=move, color=before.to_play, level=name, points_lost=points_lost,
                     winrate_lost=winrate_lost, best=best.point, winrate=round(min(1.0, max(0.0, winrate)), 4),
                     score_lead=round(score, 1) if score is not None else None, mistake=too_much and not safe,
                     tolerance=allowed, visits=int(visits), searched=searched)


__all__ = ["MIN_VISITS", "TOLERANCES", "Judgement", "Tolerance", "judge", "needs_search", "position_after",
           "tolerance"]
