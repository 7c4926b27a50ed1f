"""The history store's tables, as SQLAlchemy 2 declarative models.

| table          | one row per                          | key                                         |
|----------------|--------------------------------------|---------------------------------------------|
| ``boards``     | physical board or dashboard slot     | ``id`` (``board-<name>`` / ``web-<slot>``)  |
| ``games``      | game (live, web or imported)         | ``id`` (the wire ``game_id``)               |
| ``setup_stones`` | stone placed before move 1         | (``game_id``, ``vertex``)                   |
| ``moves``      | move of a game, passes included      | (``game_id``, ``move_number``), from 1      |
| ``game_events``| wire game event applied              | (``game_id``, ``seq``)                      |
| ``analyses``   | engine answer for a position         | (``position_hash``, size, komi, rules, to_play, model) |
| ``users``      | person who may sign in to the dashboard | ``name`` (lower case, ``dashboard.store.users``) |
| ``players``    | person or engine level that plays games | ``id``; ``key`` (the name folded, unique)  |
| ``player_merges`` | game side moved to another player (a claim) | ``id``                                |
| ``level_changes`` | adaptive level step after a game against the engine | (``player_id``, ``game_id``)     |
| ``game_reviews`` | per-colour report of a reviewed game | (``game_id``, ``color``)                    |
| ``reviewed_moves`` | judged move of a reviewed game     | (``game_id``, ``move_number``)              |
| ``teaching_notes`` | move the teacher called a mistake, taken back or kept | ``id``; by ``game_id``       |

Vertices are GTP strings (``"D4"``, ``"pass"``), colours ``"B"``/``"W"``, times are
timezone-aware UTC ``datetime``. ``moves`` is the record; for games that came over the
wire it is rebuilt from ``game_events`` (the log, in ``seq`` order) by
``dashboard.ingest``. A deleted game stays as a tombstone (``deleted_at`` set, moves,
setup and events removed) so that a redelivered event cannot bring it back.

A game names its players twice: ``black``/``white`` as the record (the wire or the SGF
said so; never changed) and ``black_player_id``/``white_player_id``, the identity
(``dashboard.store.players``: linked at ``game_started`` and on SGF import, moved by a
merge). ``review_state`` is NULL until the game ends, then ``pending`` until
``dashboard.review`` stores its ``game_reviews`` and ``reviewed_moves`` (``done``, or
``partial`` when some positions could not be analysed).

Schema changes go through Alembic (``dashboard/migrations``); a test checks that the
migrations and these models agree.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy import (JSON, Boolean, CheckConstraint, DateTime, Float, ForeignKey, Index, Integer,
                        MetaData, String, UniqueConstraint)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UtcDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC ``datetime`` on every backend.

    Binding refuses naive datetimes (their zone is unknown). SQLite stores naive UTC
    text; rows read back are always aware UTC."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value!r}: give a timezone-aware UTC time")
        value = value.astimezone(timezone.utc)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map = {datetime: UtcDateTime, dict[str, Any]: JSON, list[Any]: JSON}


class Board(Base):
    """A board seen in a game event or a presence status. ``kind``: physical | web.
    ``state`` (online | offline) and ``state_at`` come from the newest status."""

    __tablename__ = "boards"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    name: Mapped[str | None] = mapped_column(String(100))
    first_seen: Mapped[datetime]
    last_seen: Mapped[datetime]
    state: Mapped[str | None] = mapped_column(String(16))
    state_at: Mapped[datetime | None]
    version: Mapped[str | None] = mapped_column(String(64))
    details: Mapped[dict[str, Any] | None]

    __table_args__ = (CheckConstraint("kind IN ('physical', 'web')", name="kind"),)


class Game(Base):
    """A game. ``source``: board | web | sgf. ``mode``: the wire's two_players |
    vs_engine, or imported. ``to_play``: who moves first. ``extra``: SGF game-info
    text kept from an import (ranks, date, place, event) so that export keeps it.
    ``dead``: the stones (GTP) the final count lifted (``game_ended``'s ``dead``, or an
    imported file's territory marks); NULL when no count named them."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    board_id: Mapped[str | None] = mapped_column(ForeignKey("boards.id", ondelete="SET NULL"))
    source: Mapped[str] = mapped_column(String(8))
    size: Mapped[int]
    komi: Mapped[float] = mapped_column(Float)
    rules: Mapped[str] = mapped_column(String(16))
    handicap: Mapped[int] = mapped_column(default=0)
    to_play: Mapped[str] = mapped_column(String(1), default="B")
    mode: Mapped[str] = mapped_column(String(16))
    black: Mapped[str | None] = mapped_column(String(64))
    white: Mapped[str | None] = mapped_column(String(64))
    started_at: Mapped[datetime]
    ended_at: Mapped[datetime | None]
    result: Mapped[str | None] = mapped_column(String(16))
    end_reason: Mapped[str | None] = mapped_column(String(16))
    name: Mapped[str | None] = mapped_column(String(200))
    extra: Mapped[dict[str, Any] | None]
    deleted_at: Mapped[datetime | None]
    black_player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id", ondelete="SET NULL"))
    white_player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id", ondelete="SET NULL"))
    review_state: Mapped[str | None] = mapped_column(String(8))
    dead: Mapped[list[Any] | None]

    __table_args__ = (
        CheckConstraint("source IN ('board', 'web', 'sgf')", name="source"),
        CheckConstraint("to_play IN ('B', 'W')", name="to_play"),
        CheckConstraint("size BETWEEN 2 AND 25", name="size"),
        Index(None, "started_at"),
        Index(None, "board_id", "started_at"),
        Index(None, "black"),
        Index(None, "white"),
        Index(None, "result"),
        Index(None, "mode"),
        Index(None, "name"),
        Index(None, "black_player_id", "started_at"),
        Index(None, "white_player_id", "started_at"),
        Index(None, "review_state"),
        CheckConstraint("review_state IN ('pending', 'done', 'partial')", name="review_state"),
    )


class SetupStone(Base):
    """A stone on the board before the first move (handicap, SGF AB/AW)."""

    __tablename__ = "setup_stones"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    vertex: Mapped[str] = mapped_column(String(3), primary_key=True)
    color: Mapped[str] = mapped_column(String(1))

    __table_args__ = (CheckConstraint("color IN ('B', 'W')", name="color"),)


class Move(Base):
    """Move ``move_number`` (from 1, passes included) of a game. ``vertex`` is GTP or
    ``"pass"``; ``captures`` the GTP vertices it removed. A game's moves may have gaps
    while events arrive out of order (see ``games.move_gaps``)."""

    __tablename__ = "moves"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    move_number: Mapped[int] = mapped_column(primary_key=True)
    color: Mapped[str] = mapped_column(String(1))
    vertex: Mapped[str] = mapped_column(String(4))
    captures: Mapped[list[Any]]
    played_at: Mapped[datetime | None]

    __table_args__ = (
        CheckConstraint("color IN ('B', 'W')", name="color"),
        CheckConstraint("move_number >= 1", name="move_number"),
    )


class GameEvent(Base):
    """A wire game event as applied: the log the ``moves`` of a live game derive from.
    ``payload`` is the whole message; ``ts`` its time, ``received_at`` when stored."""

    __tablename__ = "game_events"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(primary_key=True)
    type: Mapped[str] = mapped_column(String(16))
    move_number: Mapped[int]
    payload: Mapped[dict[str, Any]]
    ts: Mapped[datetime]
    received_at: Mapped[datetime]


class Analysis(Base):
    """The engine's answer for one position, shared by every game that reaches it.

    The key is the position (``position_hash``: 16 hex digits of ``Position.key()``,
    i.e. stones, side to move and simple-ko point), the board ``size``, ``komi``,
    ``rules``, ``to_play`` and the ``model``. ``game_id``/``move_number`` say where the
    position was first asked for (provenance only; lookups go by key)."""

    __tablename__ = "analyses"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    position_hash: Mapped[str] = mapped_column(String(32))
    size: Mapped[int]
    komi: Mapped[float] = mapped_column(Float)
    rules: Mapped[str] = mapped_column(String(16))
    to_play: Mapped[str] = mapped_column(String(1))
    model: Mapped[str] = mapped_column(String(255))
    move_count: Mapped[int]
    visits: Mapped[int]
    answer: Mapped[dict[str, Any]]
    created_at: Mapped[datetime]
    game_id: Mapped[str | None] = mapped_column(ForeignKey("games.id", ondelete="SET NULL"))
    move_number: Mapped[int | None]

    __table_args__ = (
        UniqueConstraint("position_hash", "size", "komi", "rules", "to_play", "model"),
        CheckConstraint("to_play IN ('B', 'W')", name="to_play"),
        Index(None, "game_id"),
    )


class User(Base):
    """A dashboard account (``dashboard.store.users`` is the only writer).

    ``password_hash`` is bcrypt's modular-crypt text (``$2b$...``), never the password.
    ``role``: viewer | player | admin. ``password_changed_at`` ends the sign-ins made
    before a password change. ``failed_logins`` counts wrong passwords since the last
    success or lockout; ``locked_until`` refuses sign-ins until then."""

    __tablename__ = "users"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    password_hash: Mapped[str] = mapped_column(String(100))
    role: Mapped[str] = mapped_column(String(8))
    created_at: Mapped[datetime]
    password_changed_at: Mapped[datetime]
    failed_logins: Mapped[int] = mapped_column(default=0)
    locked_until: Mapped[datetime | None]
    last_login_at: Mapped[datetime | None]

    __table_args__ = (
        CheckConstraint("role IN ('viewer', 'player', 'admin')", name="role"),
        CheckConstraint("failed_logins >= 0", name="failed_logins"),
    )


class Player(Base):
    """Who plays: a person or an engine level (``dashboard.store.players`` is the writer).

    ``key`` is the name folded (case and runs of spaces ignored) and unique: "Ana" and
    " ana " are one player. ``kind``: human | engine. ``user_name`` links a dashboard
    account. ``merged_into``: this player's games were given to that player (names
    that are merged resolve to it). ``level``: for a person, the adaptive opponent level
    (``dashboard.ladder``); for an engine player, the level it plays at (read from its
    name). Both are level names such as "15 kyu", or NULL."""

    __tablename__ = "players"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    key: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(8))
    user_name: Mapped[str | None] = mapped_column(ForeignKey("users.name", ondelete="SET NULL"))
    merged_into: Mapped[int | None] = mapped_column(ForeignKey("players.id", ondelete="SET NULL"))
    level: Mapped[str | None] = mapped_column(String(32))
    created_at: Mapped[datetime]

    __table_args__ = (CheckConstraint("kind IN ('human', 'engine')", name="kind"),
                      Index(None, "user_name"))


class PlayerMerge(Base):
    """One side of one game moved from a player to another (a guest game claimed, or a
    whole player merged), with when and by whom. The record of merges; nothing reads
    it to decide anything."""

    __tablename__ = "player_merges"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    color: Mapped[str] = mapped_column(String(1))
    from_player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id", ondelete="SET NULL"))
    to_player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    merged_at: Mapped[datetime]
    merged_by: Mapped[str | None] = mapped_column(String(32))

    __table_args__ = (CheckConstraint("color IN ('B', 'W')", name="color"), Index(None, "to_player_id"),
                      Index(None, "game_id"))


class LevelChange(Base):
    """The adaptive ladder's step for a person after a finished game against an engine
    level (``dashboard.ladder``): the level before and after, the engine's level and the
    person's outcome (win | loss | draw). One per (player, game): applying it twice
    changes nothing."""

    __tablename__ = "level_changes"

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    opponent_level: Mapped[str] = mapped_column(String(32))
    outcome: Mapped[str] = mapped_column(String(4))
    level_before: Mapped[str | None] = mapped_column(String(32))
    level_after: Mapped[str] = mapped_column(String(32))
    changed_at: Mapped[datetime]

    __table_args__ = (CheckConstraint("outcome IN ('win', 'loss', 'draw')", name="outcome"),)


class GameReport(Base):
    """The report of one colour of a reviewed game (``dashboard.mistakes.PlayerReport``):
    moves judged, accuracy, mean and weighted loss (in ``unit``: points | win rate),
    top-move and top-five match rates, the class histogram (class -> moves) and
    ``kinds``: kind -> mistakes (inaccuracy or worse) whose top reason has that kind
    (the sum of ``reviewed_moves.kind``, kept here for the player's page)."""

    __tablename__ = "game_reviews"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    color: Mapped[str] = mapped_column(String(1), primary_key=True)
    unit: Mapped[str] = mapped_column(String(8))
    moves: Mapped[int]
    accuracy: Mapped[float | None] = mapped_column(Float)
    mean_loss: Mapped[float | None] = mapped_column(Float)
    weighted_loss: Mapped[float | None] = mapped_column(Float)
    top_move_rate: Mapped[float | None] = mapped_column(Float)
    top5_rate: Mapped[float | None] = mapped_column(Float)
    histogram: Mapped[dict[str, Any]]
    reviewed_at: Mapped[datetime]
    kinds: Mapped[dict[str, Any] | None]

    __table_args__ = (CheckConstraint("color IN ('B', 'W')", name="color"),)


class ReviewedMove(Base):
    """A judged move of a reviewed game: its loss (>= 0, in the review's unit), class
    (``dashboard.mistakes.CLASSES``), the engine's best move, whether it was the top
    move, and ``kind``: the top reason kind of a mistake (``gobuddy.explain``), or NULL."""

    __tablename__ = "reviewed_moves"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    move_number: Mapped[int] = mapped_column(primary_key=True)
    color: Mapped[str] = mapped_column(String(1))
    vertex: Mapped[str] = mapped_column(String(4))
    loss: Mapped[float] = mapped_column(Float)
    category: Mapped[str] = mapped_column(String(10))
    best: Mapped[str | None] = mapped_column(String(4))
    top_move: Mapped[bool | None] = mapped_column(Boolean)
    kind: Mapped[str | None] = mapped_column(String(16))

    __table_args__ = (CheckConstraint("color IN ('B', 'W')", name="color"),)


class TeachingNote(Base):
    """A move the teacher called a mistake during a game (``gobuddy.ai.teaching``), and
    what the learner did: ``taken_back`` (the move is not in ``moves``: it is kept here
    as a variation of move ``move_number``) or ``kept`` (it is move ``move_number``).
    ``points_lost``/``winrate_lost`` are the judgement's (NULL when not known),
    ``better`` the engine's choice, ``level`` the learner's level it was judged at.
    Written from ``teaching`` game events (``dashboard.ingest``) and SGF imports;
    ``game_id`` has no foreign key (``Store.note_teaching`` may write a note apart from
    the game's rows); deleting a game deletes its notes."""

    __tablename__ = "teaching_notes"

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(String(64))
    move_number: Mapped[int]
    color: Mapped[str] = mapped_column(String(1))
    vertex: Mapped[str] = mapped_column(String(4))
    decision: Mapped[str] = mapped_column(String(10))
    points_lost: Mapped[float | None] = mapped_column(Float)
    winrate_lost: Mapped[float | None] = mapped_column(Float)
    better: Mapped[str | None] = mapped_column(String(4))
    level: Mapped[str | None] = mapped_column(String(32))
    noted_at: Mapped[datetime]

    __table_args__ = (
        CheckConstraint("color IN ('B', 'W')", name="color"),
        CheckConstraint("decision IN ('taken_back', 'kept')", name="decision"),
        CheckConstraint("move_number >= 1", name="move_number"),
        Index(None, "game_id", "move_number"),
    )
