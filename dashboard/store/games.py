"""Reading and curating stored games: the queries behind the Games and Replay pages.

Every function takes an open ``Session`` and returns plain frozen dataclasses (no ORM
objects escape, so pages never trigger lazy loads). Deleted games (tombstones) are
invisible to every query here. Writes (``rename_game``, ``delete_game``) do not commit:
the caller's transaction does (``Store`` wraps each call in one).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from sqlalchemy import Select, delete, func, or_, select
from sqlalchemy.orm import Session

from dashboard.store.models import Board, Game, GameEvent, Move, SetupStone, TeachingNote

MAX_NAME = 200


class UnknownGame(LookupError):
    """No (undeleted) game has this id."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"no game with id {game_id!r}")
        self.game_id = game_id


@dataclass(frozen=True)
class GameSummary:
    """One row of the games list. ``title`` is the name, or "Black vs White".
    ``dead``: how many stones the final count lifted; None when no count named them."""

    id: str
    board_id: str | None
    source: str
    size: int
    komi: float
    rules: str
    handicap: int
    to_play: str
    mode: str
    black: str | None
    white: str | None
    started_at: datetime
    ended_at: datetime | None
    result: str | None
    end_reason: str | None
    name: str | None
    move_count: int
    dead: int | None = None

    @property
    def title(self) -> str:
        return self.name or f"{self.black or 'Black'} vs {self.white or 'White'}"


@dataclass(frozen=True)
class MoveView:
    number: int
    color: str
    vertex: str
    captures: tuple[str, ...]
    played_at: datetime | None


@dataclass(frozen=True)
class GameDetail:
    """A game with its setup (``(colour, vertex)``) and moves in number order.
    ``missing_moves`` lists move numbers not (yet) received below the highest one."""

    game: GameSummary
    setup: tuple[tuple[str, str], ...]
    moves: tuple[MoveView, ...]
    missing_moves: tuple[int, ...]
    extra: dict[str, str]


@dataclass(frozen=True)
class GamePage:
    games: list[GameSummary]
    total: int


@dataclass(frozen=True)
class GameFilter:
    """Filters of the games list; ``None``/empty means "any".

    ``text``: case-insensitive substring of the name, either player or the id.
    ``since``/``until``: ``since <= started_at < until`` (aware datetimes).
    ``result``: ``"B"`` (black won), ``"W"``, ``"draw"``, ``"unfinished"`` (no result),
    or an exact result such as ``"B+R"``."""

    text: str = ""
    since: datetime | None = None
    until: datetime | None = None
    board_id: str | None = None
    result: str | None = None
    mode: str | None = None
    source: str | None = None


@dataclass(frozen=True)
class BoardView:
    id: str
    kind: str
    name: str | None
    first_seen: datetime
    last_seen: datetime
    state: str | None
    state_at: datetime | None
    games: int


@dataclass(frozen=True)
class ProblemView:
    """A problem a board reported during a game; ``cleared_at`` is ``None`` while open."""

    kind: str
    points: tuple[str, ...]
    message: str
    move_number: int
    raised_at: datetime
    cleared_at: datetime | None


def _summary(game: Game, move_count: int) -> GameSummary:
    return GameSummary(game.id, game.board_id, game.source, game.size, game.komi, game.rules, game.handicap,
                       game.to_play, game.mode, game.black, game.white, game.started_at, game.ended_at,
                       game.result, game.end_reason, game.name, move_count,
                       None if game.dead is None else len(game.dead))


def _filtered(query: Select, f: GameFilter) -> Select:  # type: ignore[type-arg]
    query = query.where(Game.deleted_at.is_(None))
    text = f.text.strip().lower()
    if text:
        query = query.where(or_(*(func.lower(col).contains(text, autoescape=True)
                                  for col in (Game.name, Game.black, Game.white, Game.id))))
    if f.since is not None:
        query = query.where(Game.started_at >= f.since)
    if f.until is not None:
        query = query.where(Game.started_at < f.until)
    if f.board_id:
        query = query.where(Game.board_id == f.board_id)
    if f.result:
        if f.result in ("B", "W"):
            query = query.where(Game.result.startswith(f.result + "+"))
        elif f.result == "draw":
            query = query.where(Game.result == "0")
        elif f.result == "unfinished":
            query = query.where(Game.result.is_(None))
        else:
            query = query.where(Game.result == f.result)
    if f.mode:
        query = query.where(Game.mode == f.mode)
    if f.source:
        query = query.where(Game.source == f.source)
    return query


def list_games(session: Session, filters: GameFilter = GameFilter(), *, limit: int = 50,
               offset: int = 0) -> GamePage:
    """Games matching ``filters``, newest first (ties by id), one page of ``limit``
    from ``offset``, with the total number of matches."""
    if limit < 1 or offset < 0:
        raise ValueError(f"limit must be >= 1 and offset >= 0, got limit={limit} offset={offset}")
    total = session.scalar(_filtered(select(func.count()).select_from(Game), filters)) or 0
    moves = select(func.count()).where(Move.game_id == Game.id).correlate(Game).scalar_subquery()
    rows = session.execute(_filtered(select(Game, moves), filters)
                           .order_by(Game.started_at.desc(), Game.id.desc()).limit(limit).offset(offset))
    return GamePage([_summary(game, count) for game, count in rows], total)


def live_game(session: Session, game_id: str) -> Game:
    """The ORM row of an undeleted game; raises ``UnknownGame``."""
    game = session.get(Game, game_id)
    if game is None or game.deleted_at is not None:
        raise UnknownGame(game_id)
    return game


def get_game(session: Session, game_id: str) -> GameDetail:
    """A game with setup and moves; raises ``UnknownGame``."""
    game = live_game(session, game_id)
    moves = session.scalars(select(Move).where(Move.game_id == game_id).order_by(Move.move_number)).all()
    setup = session.execute(select(SetupStone.color, SetupStone.vertex).where(SetupStone.game_id == game_id)
                            .order_by(SetupStone.color, SetupStone.vertex)).all()
    views = tuple(MoveView(m.move_number, m.color, m.vertex, tuple(m.captures), m.played_at) for m in moves)
    present = {m.number for m in views}
    missing = tuple(n for n in range(1, max(present, default=0)) if n not in present)
    return GameDetail(_summary(game, len(views)), tuple((c, v) for c, v in setup), views, missing,
                      dict(game.extra or {}))


def rename_game(session: Session, game_id: str, name: str | None) -> None:
    """Set the user's title; ``None`` or blank goes back to "Black vs White".
    Raises ``UnknownGame``, or ``ValueError`` for a name over 200 characters."""
    game = live_game(session, game_id)
    text = (name or "").strip()
    if len(text) > MAX_NAME:
        raise ValueError(f"a game name has at most {MAX_NAME} characters, got {len(text)}")
    game.name = text or None


def delete_game(session: Session, game_id: str) -> None:
    """Delete a game: its moves, setup, events and teaching notes go; the row stays as a tombstone so a
    redelivered event cannot recreate it. Analyses stay (other games may share them).
    Raises ``UnknownGame`` (also for a game already deleted)."""
    game = live_game(session, game_id)
    for table in (Move, SetupStone, GameEvent, TeachingNote):
        session.execute(delete(table).where(table.game_id == game_id))
    game.deleted_at = datetime.now(timezone.utc)


def list_boards(session: Session) -> list[BoardView]:
    """Every board seen, by id, with its number of (undeleted) games."""
    count = (select(func.count()).where(Game.board_id == Board.id, Game.deleted_at.is_(None))
             .correlate(Board).scalar_subquery())
    rows = session.execute(select(Board, count).order_by(Board.id))
    return [BoardView(b.id, b.kind, b.name, b.first_seen, b.last_seen, b.state, b.state_at, n) for b, n in rows]


def problems_for_game(session: Session, game_id: str) -> list[ProblemView]:
    """The problems reported during a live game, in the order raised. A
    ``problem_cleared`` closes the open problems of its kind (all of them when its kind
    is null). Raises ``UnknownGame``."""
    live_game(session, game_id)
    events = session.scalars(select(GameEvent).where(GameEvent.game_id == game_id,
                                                     GameEvent.type.in_(("problem", "problem_cleared")))
                             .order_by(GameEvent.seq)).all()
    found: list[dict] = []  # type: ignore[type-arg]
    for ev in events:
        p = ev.payload
        if ev.type == "problem":
            found.append(dict(kind=p["kind"], points=tuple(p["points"]), message=p["message"],
                              move_number=ev.move_number, raised_at=ev.ts, cleared_at=None))
            continue
        for item in found:
            if item["cleared_at"] is None and p.get("kind") in (None, item["kind"]):
                item["cleared_at"] = ev.ts
    return [ProblemView(**item) for item in found]
