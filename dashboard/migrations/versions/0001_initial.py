"""Initial schema: boards, games, setup stones, moves, game events, analyses.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

UTC_TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "boards",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("name", sa.String(100), nullable=True),
        sa.Column("first_seen", UTC_TIME, nullable=False),
        sa.Column("last_seen", UTC_TIME, nullable=False),
        sa.Column("state", sa.String(16), nullable=True),
        sa.Column("state_at", UTC_TIME, nullable=True),
        sa.Column("version", sa.String(64), nullable=True),
        sa.Column("details", sa.JSON(), nullable=True),
        sa.CheckConstraint("kind IN ('physical', 'web')", name=op.f("ck_boards_kind")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_boards")),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("board_id", sa.String(64), nullable=True),
        sa.Column("source", sa.String(8), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("komi", sa.Float(), nullable=False),
        sa.Column("rules", sa.String(16), nullable=False),
        sa.Column("handicap", sa.Integer(), nullable=False),
        sa.Column("to_play", sa.String(1), nullable=False),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("black", sa.String(64), nullable=True),
        sa.Column("white", sa.String(64), nullable=True),
        sa.Column("started_at", UTC_TIME, nullable=False),
        sa.Column("ended_at", UTC_TIME, nullable=True),
        sa.Column("result", sa.String(16), nullable=True),
        sa.Column("end_reason", sa.String(16), nullable=True),
        sa.Column("name", sa.String(200), nullable=True),
        sa.Column("extra", sa.JSON(), nullable=True),
        sa.Column("deleted_at", UTC_TIME, nullable=True),
        sa.CheckConstraint("source IN ('board', 'web', 'sgf')", name=op.f("ck_games_source")),
        sa.CheckConstraint("to_play IN ('B', 'W')", name=op.f("ck_games_to_play")),
        sa.CheckConstraint("size BETWEEN 2 AND 25", name=op.f("ck_games_size")),
        sa.ForeignKeyConstraint(["board_id"], ["boards.id"], name=op.f("fk_games_board_id_boards"),
                                ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
    )
    for columns in (["started_at"], ["board_id", "started_at"], ["black"], ["white"], ["result"],
                    ["mode"], ["name"]):
        op.create_index(op.f("ix_games_" + "_".join(columns)), "games", columns)
    op.create_table(
        "setup_stones",
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("vertex", sa.String(3), nullable=False),
        sa.Column("color", sa.String(1), nullable=False),
        sa.CheckConstraint("color IN ('B', 'W')", name=op.f("ck_setup_stones_color")),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_setup_stones_game_id_games"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id", "vertex", name=op.f("pk_setup_stones")),
    )
    op.create_table(
        "moves",
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("move_number", sa.Integer(), nullable=False),
        sa.Column("color", sa.String(1), nullable=False),
        sa.Column("vertex", sa.String(4), nullable=False),
        sa.Column("captures", sa.JSON(), nullable=False),
        sa.Column("played_at", UTC_TIME, nullable=True),
        sa.CheckConstraint("color IN ('B', 'W')", name=op.f("ck_moves_color")),
        sa.CheckConstraint("move_number >= 1", name=op.f("ck_moves_move_number")),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_moves_game_id_games"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id", "move_number", name=op.f("pk_moves")),
    )
    op.create_table(
        "game_events",
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(16), nullable=False),
        sa.Column("move_number", sa.Integer(), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("ts", UTC_TIME, nullable=False),
        sa.Column("received_at", UTC_TIME, nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_game_events_game_id_games"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id", "seq", name=op.f("pk_game_events")),
    )
    op.create_table(
        "analyses",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("position_hash", sa.String(32), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("komi", sa.Float(), nullable=False),
        sa.Column("rules", sa.String(16), nullable=False),
        sa.Column("to_play", sa.String(1), nullable=False),
        sa.Column("model", sa.String(255), nullable=False),
        sa.Column("move_count", sa.Integer(), nullable=False),
        sa.Column("visits", sa.Integer(), nullable=False),
        sa.Column("answer", sa.JSON(), nullable=False),
        sa.Column("created_at", UTC_TIME, nullable=False),
        sa.Column("game_id", sa.String(64), nullable=True),
        sa.Column("move_number", sa.Integer(), nullable=True),
        sa.CheckConstraint("to_play IN ('B', 'W')", name=op.f("ck_analyses_to_play")),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_analyses_game_id_games"),
                                ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_analyses")),
        sa.UniqueConstraint("position_hash", "size", "komi", "rules", "to_play", "model",
                            name=op.f("uq_analyses_position_hash_size_komi_rules_to_play_model")),
    )
    op.create_index(op.f("ix_analyses_game_id"), "analyses", ["game_id"])


def downgrade() -> None:
    for table in ("analyses", "game_events", "moves", "setup_stones", "games", "boards"):
        op.drop_table(table)
