"""Players and reviews: who played each game, merges of guest games, the adaptive
level's steps, and the stored review of every finished game.

Adds ``players``, ``player_merges``, ``level_changes``, ``game_reviews`` and
``reviewed_moves``, and ``games.black_player_id``/``white_player_id``/``review_state``.
Backfill: one player per distinct name in ``games.black``/``white`` (the name folded:
case and runs of spaces ignored; the first spelling seen, oldest game first, is the
display name), ``engine`` when a game's ``game_started`` event said so, else
``human``; every game is linked to its players; every finished game (a result), not
deleted, is ``pending`` review. The name folding is copied here on purpose (a
migration is a snapshot; ``dashboard.store.players.name_key`` may change later).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-26
"""

from __future__ import annotations

from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Iterator

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

UTC_TIME = sa.DateTime(timezone=True)


def _key(name: str) -> str:
    return " ".join(name.split()).casefold()[:64]


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("user_name", sa.String(32), nullable=True),
        sa.Column("merged_into", sa.Integer(), nullable=True),
        sa.Column("level", sa.String(32), nullable=True),
        sa.Column("created_at", UTC_TIME, nullable=False),
        sa.CheckConstraint("kind IN ('human', 'engine')", name=op.f("ck_players_kind")),
        sa.ForeignKeyConstraint(["merged_into"], ["players.id"], name=op.f("fk_players_merged_into_players"),
                                ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["user_name"], ["users.name"], name=op.f("fk_players_user_name_users"),
                                ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
        sa.UniqueConstraint("key", name=op.f("uq_players_key")),
    )
    op.create_index(op.f("ix_players_user_name"), "players", ["user_name"])
    _add_game_columns()
    op.create_index(op.f("ix_games_black_player_id_started_at"), "games", ["black_player_id", "started_at"])
    op.create_index(op.f("ix_games_white_player_id_started_at"), "games", ["white_player_id", "started_at"])
    op.create_index(op.f("ix_games_review_state"), "games", ["review_state"])
    op.create_table(
        "player_merges",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("color", sa.String(1), nullable=False),
        sa.Column("from_player_id", sa.Integer(), nullable=True),
        sa.Column("to_player_id", sa.Integer(), nullable=False),
        sa.Column("merged_at", UTC_TIME, nullable=False),
        sa.Column("merged_by", sa.String(32), nullable=True),
        sa.CheckConstraint("color IN ('B', 'W')", name=op.f("ck_player_merges_color")),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_player_merges_game_id_games"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["from_player_id"], ["players.id"],
                                name=op.f("fk_player_merges_from_player_id_players"), ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["to_player_id"], ["players.id"], name=op.f("fk_player_merges_to_player_id_players"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player_merges")),
    )
    op.create_index(op.f("ix_player_merges_to_player_id"), "player_merges", ["to_player_id"])
    op.create_index(op.f("ix_player_merges_game_id"), "player_merges", ["game_id"])
    op.create_table(
        "level_changes",
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("opponent_level", sa.String(32), nullable=False),
        sa.Column("outcome", sa.String(4), nullable=False),
        sa.Column("level_before", sa.String(32), nullable=True),
        sa.Column("level_after", sa.String(32), nullable=False),
        sa.Column("changed_at", UTC_TIME, nullable=False),
        sa.CheckConstraint("outcome IN ('win', 'loss', 'draw')", name=op.f("ck_level_changes_outcome")),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_level_changes_game_id_games"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_level_changes_player_id_players"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("player_id", "game_id", name=op.f("pk_level_changes")),
    )
    op.create_table(
        "game_reviews",
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("color", sa.String(1), nullable=False),
        sa.Column("unit", sa.String(8), nullable=False),
        sa.Column("moves", sa.Integer(), nullable=False),
        sa.Column("accuracy", sa.Float(), nullable=True),
        sa.Column("mean_loss", sa.Float(), nullable=True),
        sa.Column("weighted_loss", sa.Float(), nullable=True),
        sa.Column("top_move_rate", sa.Float(), nullable=True),
        sa.Column("top5_rate", sa.Float(), nullable=True),
        sa.Column("histogram", sa.JSON(), nullable=False),
        sa.Column("reviewed_at", UTC_TIME, nullable=False),
        sa.CheckConstraint("color IN ('B', 'W')", name=op.f("ck_game_reviews_color")),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_game_reviews_game_id_games"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id", "color", name=op.f("pk_game_reviews")),
    )
    op.create_table(
        "reviewed_moves",
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("move_number", sa.Integer(), nullable=False),
        sa.Column("color", sa.String(1), nullable=False),
        sa.Column("vertex", sa.String(4), nullable=False),
        sa.Column("loss", sa.Float(), nullable=False),
        sa.Column("category", sa.String(10), nullable=False),
        sa.Column("best", sa.String(4), nullable=True),
        sa.Column("top_move", sa.Boolean(), nullable=True),
        sa.Column("kind", sa.String(16), nullable=True),
        sa.CheckConstraint("color IN ('B', 'W')", name=op.f("ck_reviewed_moves_color")),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_reviewed_moves_game_id_games"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id", "move_number", name=op.f("pk_reviewed_moves")),
    )
    _backfill()


REVIEW_CHECK = "review_state IN ('pending', 'done', 'partial')"


def _add_game_columns() -> None:
    """The three new columns of ``games``, with their foreign keys and check."""
    if op.get_bind().dialect.name != "sqlite":
        for side in ("black", "white"):
            op.add_column("games", sa.Column(f"{side}_player_id", sa.Integer(), nullable=True))
            op.create_foreign_key(op.f(f"fk_games_{side}_player_id_players"), "games", "players",
                                  [f"{side}_player_id"], ["id"], ondelete="SET NULL")
        op.add_column("games", sa.Column("review_state", sa.String(8), nullable=True))
        op.create_check_constraint(op.f("ck_games_review_state"), "games", REVIEW_CHECK)
        return
    with _children_kept():
        with op.batch_alter_table("games") as batch:
            for side in ("black", "white"):
                batch.add_column(sa.Column(f"{side}_player_id", sa.Integer(), nullable=True))
                batch.create_foreign_key(op.f(f"fk_games_{side}_player_id_players"), "players",
                                         [f"{side}_player_id"], ["id"], ondelete="SET NULL")
            batch.add_column(sa.Column("review_state", sa.String(8), nullable=True))
            batch.create_check_constraint(op.f("ck_games_review_state"), REVIEW_CHECK)


KEPT_CHILDREN = ("setup_stones", "moves", "game_events")  # ON DELETE CASCADE from games in 0002


@contextmanager
def _children_kept() -> Iterator[None]:
    """Keep the rows that refer to ``games`` while SQLite rebuilds it. A foreign key
    cannot be added to (or a referring column dropped from) an SQLite table in place,
    so Alembic's batch mode copies the table and drops the old one; foreign keys cannot
    be turned off inside a transaction, and that drop deletes the games' moves, setup
    stones and events by cascade and unlinks their analyses. Those rows wait in
    temporary tables and are put back."""
    for table in KEPT_CHILDREN:
        op.execute(f"CREATE TEMP TABLE _keep_{table} AS SELECT * FROM {table}")
    op.execute("CREATE TEMP TABLE _keep_analyses AS SELECT id, game_id FROM analyses WHERE game_id IS NOT NULL")
    yield
    for table in KEPT_CHILDREN:
        op.execute(f"INSERT OR IGNORE INTO {table} SELECT * FROM _keep_{table}")
        op.execute(f"DROP TABLE _keep_{table}")
    op.execute("UPDATE analyses SET game_id = (SELECT k.game_id FROM _keep_analyses k WHERE k.id = analyses.id) "
               "WHERE id IN (SELECT id FROM _keep_analyses)")
    op.execute("DROP TABLE _keep_analyses")


def _backfill() -> None:
    """Players from the games' names, the games linked, finished games pending review."""
    bind = op.get_bind()
    games = sa.table("games", sa.column("id"), sa.column("black"), sa.column("white"), sa.column("started_at"),
                     sa.column("result"), sa.column("deleted_at"), sa.column("black_player_id"),
                     sa.column("white_player_id"), sa.column("review_state"))
    events = sa.table("game_events", sa.column("game_id"), sa.column("type"), sa.column("payload", sa.JSON()))
    players = sa.table("players", sa.column("id"), sa.column("key"), sa.column("name"), sa.column("kind"),
                       sa.column("created_at", UTC_TIME))
    engines: set[str] = set()
    for (payload,) in bind.execute(sa.select(events.c.payload).where(events.c.type == "game_started")):
        for side in ((payload or {}).get("players") or {}).values():
            if isinstance(side, dict) and side.get("kind") == "engine" and side.get("name"):
                engines.add(_key(side["name"]))
    rows = bind.execute(sa.select(games.c.id, games.c.black, games.c.white)
                        .order_by(games.c.started_at, games.c.id)).all()
    ids: dict[str, int] = {}
    now = datetime.now(timezone.utc)
    for _, black, white in rows:
        for name in (black, white):
            if not name or not name.strip() or _key(name) in ids:
                continue
            key = _key(name)
            bind.execute(players.insert().values(key=key, name=" ".join(name.split())[:64],
                                                 kind="engine" if key in engines else "human", created_at=now))
            ids[key] = bind.execute(sa.select(players.c.id).where(players.c.key == key)).scalar_one()
    for game_id, black, white in rows:
        b = ids.get(_key(black)) if black and black.strip() else None
        w = ids.get(_key(white)) if white and white.strip() else None
        if b is not None or w is not None:
            bind.execute(games.update().where(games.c.id == game_id).values(black_player_id=b, white_player_id=w))
    bind.execute(games.update().where(games.c.result.is_not(None), games.c.deleted_at.is_(None))
                 .values(review_state="pending"))


def downgrade() -> None:
    op.drop_table("reviewed_moves")
    op.drop_table("game_reviews")
    op.drop_table("level_changes")
    op.drop_table("player_merges")
    op.drop_index(op.f("ix_games_review_state"), "games")
    op.drop_index(op.f("ix_games_white_player_id_started_at"), "games")
    op.drop_index(op.f("ix_games_black_player_id_started_at"), "games")
    _drop_game_columns()
    op.drop_index(op.f("ix_players_user_name"), "players")
    op.drop_table("players")


def _drop_game_columns() -> None:
    """The reverse of ``_add_game_columns`` (SQLite: the table rebuilt, see ``_children_kept``)."""
    if op.get_bind().dialect.name != "sqlite":
        op.drop_constraint(op.f("ck_games_review_state"), "games", type_="check")
        for side in ("white", "black"):
            op.drop_constraint(op.f(f"fk_games_{side}_player_id_players"), "games", type_="foreignkey")
        for column in ("review_state", "white_player_id", "black_player_id"):
            op.drop_column("games", column)
        return
    with _children_kept():
        with op.batch_alter_table("games") as batch:
            batch.drop_constraint(op.f("ck_games_review_state"), type_="check")
            for side in ("white", "black"):
                batch.drop_constraint(op.f(f"fk_games_{side}_player_id_players"), type_="foreignkey")
            for column in ("review_state", "white_player_id", "black_player_id"):
                batch.drop_column(column)
