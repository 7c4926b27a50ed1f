"""Stored reviews of finished games, and the queries of a player's history over them.

A review (``dashboard.review`` makes them) is the ``dashboard.mistakes`` report of a
game kept so that no page recomputes it: one ``game_reviews`` row per colour (accuracy,
mean point loss, class histogram, top-move match) and one ``reviewed_moves`` row per
judged move (loss, class, the engine's best move, the top reason kind of a mistake).
Saving replaces what was stored for the game and sets its ``review_state`` (``done``,
or ``partial`` when some moves could not be judged).

The history queries (``player_history``) read only these tables, the games and the
players, through the games' player indexes: a player's page costs a few indexed queries
whatever the number of games (``bench/bench_player_page.py``). Functions take an open
``Session`` and do not commit.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from typing import Mapping, Sequence

from sqlalchemy import and_, case, delete, func, or_, select
from sqlalchemy.orm import Session, aliased

from dashboard import ladder
from dashboard.mistakes import CLASSES, GameReview
from dashboard.store.games import live_game
from dashboard.store.models import Game, GameReport, LevelChange, Move, Player, ReviewedMove

MISTAKE_CLASSES = ("blunder", "mistake", "inaccuracy")  # what "a mistake" means on the player's page


@dataclass(frozen=True)
class PlayerGame:
    """One game of a player, from the player's side (``color`` B, W, or ``both`` when
    the player held both), with its stored report (None fields: not reviewed yet, or
    no move of that colour could be judged)."""

    id: str
    started_at: datetime
    color: str
    opponent: str | None
    opponent_kind: str | None
    opponent_level: str | None
    result: str | None
    outcome: str | None  # win | loss | draw | None
    mode: str
    board_id: str | None
    name: str | None
    review_state: str | None
    unit: str | None
    moves_judged: int | None
    accuracy: float | None
    mean_loss: float | None
    top_move_rate: float | None
    histogram: dict[str, int] = field(default_factory=dict)
    kinds: dict[str, int] = field(default_factory=dict)
    size: int = 9  # the board size


@dataclass(frozen=True)
class Mistake:
    """A judged move of the player's, with the game it belongs to."""

    game_id: str
    started_at: datetime
    move_number: int
    color: str
    vertex: str
    loss: float
    category: str
    best: str | None
    kind: str | None
    unit: str


@dataclass(frozen=True)
class PlayerHistory:
    """Everything the player's page shows, read in one transaction."""

    games: list[PlayerGame]
    first_moves: dict[str, int]
    kinds: list[tuple[str, str, int]]  # (game id, kind, mistakes) for mistakes with a kind
    top_mistakes: list[Mistake]
    level_changes: list[tuple[datetime, str, str, str | None, str]]  # the last 100: (when, game, outcome, before, after)
    other_ladders: dict[int, list[tuple[datetime, str, str, str | None, str]]] = field(default_factory=dict)
    # the other board sizes' ladders with steps (size -> as ``level_changes``), smallest size first


# ---------------------------------------------------------------------- writing
def save_review(session: Session, game_id: str, review: GameReview, *, kinds: Mapping[int, str | None] = {},
                complete: bool = True, now: datetime | None = None) -> None:
    """Store ``review`` as the review of ``game_id`` (replacing any before it) and set
    the game's ``review_state``: ``done`` when ``complete`` (every position analysed),
    else ``partial``. ``kinds``: move number -> the top reason kind of that mistake."""
    game = live_game(session, game_id)
    now = now or datetime.now(timezone.utc)
    for table in (GameReport, ReviewedMove):
        session.execute(delete(table).where(table.game_id == game_id))
    kinds_of: dict[str, dict[str, int]] = {"B": {}, "W": {}}
    for m in review.moves:
        kind = kinds.get(m.number)
        if kind and m.category in MISTAKE_CLASSES:
            kinds_of[m.color][kind] = kinds_of[m.color].get(kind, 0) + 1
    for color, report in review.players.items():
        session.add(GameReport(game_id=game_id, color=color, unit=review.unit[:8], moves=report.moves,
                               accuracy=report.accuracy, mean_loss=report.mean_loss,
                               weighted_loss=report.weighted_loss, top_move_rate=report.top_move_rate,
                               top5_rate=report.top5_rate, histogram=dict(report.histogram), reviewed_at=now,
                               kinds=kinds_of.get(color) or None))
    session.add_all(ReviewedMove(game_id=game_id, move_number=m.number, color=m.color, vertex=m.vertex,
                                 loss=float(m.loss), category=m.category, best=m.best, top_move=m.top_move,
                                 kind=kinds.get(m.number)) for m in review.moves if m.loss is not None and m.category)
    game.review_state = "done" if complete else "partial"


def mark_finished_pending(session: Session, game_ids: Sequence[str] | None = None) -> int:
    """Mark finished games that were never queued (a result, no ``review_state``: games
    imported from SGF, for instance) as ``pending``; only ``game_ids`` when given."""
    query = select(Game).where(Game.result.is_not(None), Game.review_state.is_(None), Game.deleted_at.is_(None))
    if game_ids is not None:
        query = query.where(Game.id.in_(list(game_ids)))
    games = session.scalars(query).all()
    for game in games:
        game.review_state = "pending"
    return len(games)


def games_to_review(session: Session, *, partial: bool = False, limit: int | None = None) -> list[str]:
    """Finished games waiting for a review, oldest first: ``pending`` ones (and
    ``partial`` ones when ``partial``: to try the engine again)."""
    states = ("pending", "partial") if partial else ("pending",)
    query = (select(Game.id).where(Game.review_state.in_(states), Game.deleted_at.is_(None))
             .order_by(Game.started_at, Game.id))
    return list(session.scalars(query.limit(limit) if limit else query))


def review_counts(session: Session) -> dict[str, int]:
    """Games by ``review_state`` (``none`` for games not finished)."""
    rows = session.execute(select(Game.review_state, func.count()).where(Game.deleted_at.is_(None))
                           .group_by(Game.review_state))
    return {state or "none": n for state, n in rows}


# ---------------------------------------------------------------------- reading
def player_games(session: Session, player_id: int) -> list[PlayerGame]:
    """Every (undeleted) game of a player, oldest first, once each, from the player's
    side; a game the player held on both sides is one entry of colour ``both`` with no
    outcome (``_one_per_game``)."""
    out: list[PlayerGame] = []
    for color, mine, theirs in (("B", Game.black_player_id, Game.white_player_id),
                                ("W", Game.white_player_id, Game.black_player_id)):
        opponent = aliased(Player)
        rows = session.execute(
            select(Game.id, Game.started_at, Game.result, Game.mode, Game.board_id, Game.name, Game.review_state,
                   opponent.name, opponent.kind, opponent.level, GameReport.unit, GameReport.moves,
                   GameReport.accuracy, GameReport.mean_loss, GameReport.top_move_rate, GameReport.histogram,
                   GameReport.kinds, Game.size)
            .outerjoin(opponent, opponent.id == theirs)
            .outerjoin(GameReport, and_(GameReport.game_id == Game.id, GameReport.color == color))
            .where(mine == player_id, Game.deleted_at.is_(None)))
        for (gid, started, result, mode, board, name, state, opp, opp_kind, opp_level, unit, judged, accuracy,
             mean_loss, top, hist, kinds, size) in rows:
            out.append(PlayerGame(gid, started, color, opp, opp_kind, opp_level if opp_kind == "engine" else None,
                                  result, ladder.outcome(result, color), mode, board, name, state, unit, judged,
                                  accuracy, mean_loss, top, dict(hist or {}), dict(kinds or {}), size))
    out.sort(key=lambda g: (g.started_at, g.id))
    return _one_per_game(out)


def _one_per_game(games: Sequence[PlayerGame]) -> list[PlayerGame]:
    """The player's games, one entry each, in order. A game where the player held both
    sides (a guest against a guest) becomes one entry of colour ``both`` with no outcome:
    it has no winner for that player, so it is neither won nor lost; its review is both
    sides' moves together (accuracy and mean loss weighted by the moves judged)."""
    sides: dict[str, list[PlayerGame]] = defaultdict(list)
    for g in games:
        sides[g.id].append(g)
    out = []
    for g in games:
        pair = sides.pop(g.id, None)
        if pair is None:
            continue
        out.append(pair[0] if len(pair) == 1 else _both_sides(pair))
    return out


def _both_sides(pair: Sequence[PlayerGame]) -> PlayerGame:
    judged = [g for g in pair if g.moves_judged and g.accuracy is not None]
    moves = sum(g.moves_judged or 0 for g in judged)

    def weighted(value: str) -> float | None:
        values = [(getattr(g, value), g.moves_judged) for g in judged if getattr(g, value) is not None]
        return sum(v * n for v, n in values) / sum(n for _, n in values) if values else None

    return replace(pair[0], color="both", outcome=None, moves_judged=moves or None, accuracy=weighted("accuracy"),
                   mean_loss=weighted("mean_loss"), top_move_rate=weighted("top_move_rate"),
                   histogram=dict(sum((Counter(g.histogram) for g in pair), Counter())),
                   kinds=dict(sum((Counter(g.kinds) for g in pair), Counter())))


def first_moves(session: Session, player_id: int) -> dict[str, int]:
    """How often the player opened with each point: their first move of each game
    (move 1 when they moved first, else move 2), most frequent first."""
    counts: dict[str, int] = {}
    for color, column in (("B", Game.black_player_id), ("W", Game.white_player_id)):
        first = case((Game.to_play == color, 1), else_=2)
        rows = session.execute(select(Move.vertex, func.count()).join(Game, Game.id == Move.game_id)
                               .where(column == player_id, Game.deleted_at.is_(None), Move.move_number == first,
                                      Move.color == color).group_by(Move.vertex))
        for vertex, n in rows:
            counts[vertex] = counts.get(vertex, 0) + n
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def top_mistakes(session: Session, player_id: int, since: datetime, limit: int = 3) -> list[Mistake]:
    """The player's biggest losses in games started since ``since``, biggest first
    (ties: newer game, earlier move): "the most instructive mistakes"."""
    rows = session.execute(
        select(ReviewedMove, Game.started_at, GameReport.unit).join(Game, Game.id == ReviewedMove.game_id)
        .join(GameReport, and_(GameReport.game_id == ReviewedMove.game_id, GameReport.color == ReviewedMove.color))
        .where(or_(and_(Game.black_player_id == player_id, ReviewedMove.color == "B"),  # the player's moves
                   and_(Game.white_player_id == player_id, ReviewedMove.color == "W")),
               Game.deleted_at.is_(None), Game.started_at >= since, ReviewedMove.category.in_(MISTAKE_CLASSES))
        .order_by(ReviewedMove.loss.desc(), Game.started_at.desc(), ReviewedMove.move_number).limit(limit))
    return [Mistake(m.game_id, started, m.move_number, m.color, m.vertex, m.loss, m.category, m.best, m.kind, unit)
            for m, started, unit in rows]


def level_changes(session: Session, player_id: int, limit: int = 100, size: int = ladder.MAIN_SIZE
                  ) -> list[tuple[datetime, str, str, str | None, str]]:
    """The player's last ``limit`` steps on the ladder of ``size`` (9x9's by default:
    each size has its own ladder, ``dashboard.ladder``), oldest first."""
    rows = session.execute(select(LevelChange.changed_at, LevelChange.game_id, LevelChange.outcome,
                                  LevelChange.level_before, LevelChange.level_after)
                           .join(Game, Game.id == LevelChange.game_id)
                           .where(LevelChange.player_id == player_id, Game.size == size)
                           .order_by(LevelChange.changed_at.desc()).limit(limit)).all()
    return [tuple(r) for r in reversed(rows)]  # type: ignore[misc]


def player_history(session: Session, player_id: int, now: datetime, week: timedelta = timedelta(days=7)
                   ) -> PlayerHistory:
    """What the player's page shows (see ``PlayerHistory``); mistakes "this week" are
    those of games started in the ``week`` before ``now``."""
    games = player_games(session, player_id)
    kinds = [(g.id, kind, n) for g in games for kind, n in g.kinds.items()]  # the reports' sums: no move scan
    sizes = session.scalars(select(Game.size).join(LevelChange, LevelChange.game_id == Game.id)
                            .where(LevelChange.player_id == player_id, Game.size != ladder.MAIN_SIZE)
                            .distinct().order_by(Game.size)).all()
    return PlayerHistory(games, first_moves(session, player_id), kinds,
                         top_mistakes(session, player_id, now - week), level_changes(session, player_id),
                         {size: level_changes(session, player_id, size=size) for size in sizes})


def class_counts(games: Sequence[PlayerGame]) -> dict[str, int]:
    """The class histogram summed over ``games``, in ``CLASSES`` order."""
    total = {name: 0 for name in CLASSES}
    for g in games:
        for name, n in g.histogram.items():
            if name in total:
                total[name] += int(n)
    return total
