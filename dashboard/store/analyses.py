"""Engine analyses stored per position, so a replay never asks the engine twice.

An analysis is keyed by ``PositionKey`` (stones + side to move + ko point, size, komi,
rules) and the model name: the same position reached in two games shares one row. A
second answer for a key replaces the first only if it searched more (more root visits),
or if it brings the ownership the stored one lacks and searched at least as much;
saving is therefore idempotent and safe to repeat. Functions take an open ``Session``
and do not commit.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterator

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from dashboard.store.games import live_game
from dashboard.store.models import Analysis, Move, SetupStone
from gobuddy.go.coords import color_to_str
from gobuddy.go.game import Game as GoGame
from gobuddy.go.game import Ruleset, position_hash
from gobuddy.go.position import Position

KEY_COLUMNS = ("position_hash", "size", "komi", "rules", "to_play", "model")


@dataclass(frozen=True)
class PositionKey:
    """What makes two positions the same for an analysis: the stones, side to move and
    simple-ko point (``hash``: ``gobuddy.go.game.position_hash``, the engine answers'
    ``position_key.hash``), board size, komi, rules. Not part of the key: the move
    history (so superko-forbidden moves and prisoner counts may differ between games
    that share a key)."""

    hash: str
    size: int
    komi: float
    rules: str
    to_play: str

    @classmethod
    def of(cls, pos: Position, komi: float, rules: str) -> "PositionKey":
        return cls(position_hash(pos), pos.size, float(komi), rules, color_to_str(pos.to_play))


@dataclass(frozen=True)
class AnalysisView:
    """A stored engine answer (``answer``: the engine_answer message as received)."""

    key: PositionKey
    model: str
    visits: int
    move_count: int
    answer: dict[str, Any]
    created_at: datetime
    game_id: str | None
    move_number: int | None


def _view(row: Analysis) -> AnalysisView:
    key = PositionKey(row.position_hash, row.size, row.komi, row.rules, row.to_play)
    return AnalysisView(key, row.model, row.visits, row.move_count, row.answer, row.created_at, row.game_id,
                        row.move_number)


def _insert_for(session: Session) -> Any:
    name = session.get_bind().dialect.name
    if name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    elif name == "sqlite":
        from sqlalchemy.dialects.sqlite import insert
    else:
        raise NotImplementedError(f"saving analyses needs INSERT ... ON CONFLICT; {name} is not supported")
    return insert


def save_analysis(session: Session, key: PositionKey, model: str, answer: dict[str, Any], *, move_count: int,
                  visits: int | None = None, game_id: str | None = None, move_number: int | None = None) -> bool:
    """Store ``answer`` for ``key`` and ``model``; return True if it was stored (new
    key, more visits than the stored one, or as many or more visits and an ownership the
    stored one lacks), False if a deeper or equal answer is already there. ``visits``
    defaults to ``answer["root"]["visits"]``. Atomic against concurrent writers (one
    upsert; the ownership case is one conditional UPDATE). Not checked: that ``answer``
    is for that position."""
    if visits is None:
        visits = int(answer["root"]["visits"])
    values = dict(move_count=move_count, visits=visits, answer=answer, created_at=datetime.now(timezone.utc),
                  game_id=game_id, move_number=move_number)
    if answer.get("ownership") is not None and _fill_ownership(session, key, model, values):
        return True
    stmt = _insert_for(session)(Analysis).values(position_hash=key.hash, size=key.size, komi=float(key.komi),
                                                 rules=key.rules, to_play=key.to_play, model=model, **values)
    stmt = stmt.on_conflict_do_update(
        index_elements=list(KEY_COLUMNS),
        set_={c: stmt.excluded[c] for c in values},
        where=stmt.excluded.visits > Analysis.visits,
    )
    return session.execute(stmt.returning(Analysis.id)).first() is not None


def _fill_ownership(session: Session, key: PositionKey, model: str, values: dict[str, Any]) -> bool:
    """Replace the stored answer for ``key`` and ``model`` by ``values`` (its answer and
    the columns that go with it) when the stored one has no ownership and no more
    visits; True if a row was replaced."""
    row = session.scalars(select(Analysis).where(*_key_filter(key), Analysis.model == model)).first()
    if row is None or (row.answer or {}).get("ownership") is not None or values["visits"] < row.visits:
        return False
    done = session.execute(update(Analysis).where(Analysis.id == row.id, Analysis.visits == row.visits)
                           .values(**values))
    return bool(done.rowcount)


def get_analysis(session: Session, key: PositionKey, model: str | None = None) -> AnalysisView | None:
    """The analysis of ``key`` by ``model`` (any model when ``None``: the one with the
    most visits), or ``None``."""
    query = select(Analysis).where(*_key_filter(key)).order_by(Analysis.visits.desc(), Analysis.id)
    if model is not None:
        query = query.where(Analysis.model == model)
    row = session.scalars(query.limit(1)).first()
    return _view(row) if row else None


def _key_filter(key: PositionKey) -> tuple[Any, ...]:
    return (Analysis.position_hash == key.hash, Analysis.size == key.size, Analysis.komi == float(key.komi),
            Analysis.rules == key.rules, Analysis.to_play == key.to_play)


def stored_game(session: Session, game_id: str) -> GoGame:
    """A stored game as a ``gobuddy.go.game.Game``: its setup and its moves up to the
    first missing one. Raises ``UnknownGame``, or ``GameError`` naming the move for an
    unplayable record."""
    game = live_game(session, game_id)
    setup = session.execute(select(SetupStone.color, SetupStone.vertex).where(SetupStone.game_id == game_id)).all()
    numbered = session.execute(select(Move.move_number, Move.color, Move.vertex).where(Move.game_id == game_id)
                               .order_by(Move.move_number)).all()
    moves = []
    for expected, (number, color, vertex) in enumerate(numbered, start=1):
        if number != expected:
            break
        moves.append((color, vertex))
    return GoGame.from_gtp(game.size, Ruleset(game.rules, game.komi), game.to_play, [(c, v) for c, v in setup], moves)


def game_positions(session: Session, game_id: str) -> Iterator[tuple[int, Position]]:
    """The position after each move count 0..n of a stored game, up to its first missing
    move (one ``Position`` played on in place: ``Game.positions``). Raises
    ``UnknownGame`` or ``GameError`` (see ``stored_game``)."""
    return stored_game(session, game_id).positions()


def game_position_keys(session: Session, game_id: str) -> dict[int, PositionKey]:
    """The ``PositionKey`` after each move count of ``game_positions``."""
    game = live_game(session, game_id)
    return {n: PositionKey.of(pos, game.komi, game.rules) for n, pos in game_positions(session, game_id)}


def analyses_for_game(session: Session, game_id: str, model: str | None = None) -> dict[int, AnalysisView]:
    """For each move count (0 = the start position, n = after move n) whose position
    has an analysis, that analysis (by ``model``, or the most visits of any model).
    Positions after the first missing move are not looked up."""
    keys = game_position_keys(session, game_id)
    if not keys:
        return {}
    game = live_game(session, game_id)
    query = select(Analysis).where(Analysis.position_hash.in_(sorted({k.hash for k in keys.values()})),
                                   Analysis.size == game.size, Analysis.komi == float(game.komi),
                                   Analysis.rules == game.rules)
    if model is not None:
        query = query.where(Analysis.model == model)
    best: dict[PositionKey, AnalysisView] = {}
    for row in session.scalars(query.order_by(Analysis.visits.desc(), Analysis.id)):
        view = _view(row)
        best.setdefault(view.key, view)
    return {n: best[k] for n, k in keys.items() if k in best}
