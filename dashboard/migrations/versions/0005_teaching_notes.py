"""Teaching notes: the moves the teacher called mistakes during a game, taken back (kept
as variations) or kept by the learner (``teaching_notes``). A new table; nothing to
backfill.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "teaching_notes",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("move_number", sa.Integer(), nullable=False),
        sa.Column("color", sa.String(1), nullable=False),
        sa.Column("vertex", sa.String(4), nullable=False),
        sa.Column("decision", sa.String(10), nullable=False),
        sa.Column("points_lost", sa.Float(), nullable=True),
        sa.Column("winrate_lost", sa.Float(), nullable=True),
        sa.Column("better", sa.String(4), nullable=True),
        sa.Column("level", sa.String(32), nullable=True),
        sa.Column("noted_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("color IN ('B', 'W')", name=op.f("ck_teaching_notes_color")),
        sa.CheckConstraint("decision IN ('taken_back', 'kept')", name=op.f("ck_teaching_notes_decision")),
        sa.CheckConstraint("move_number >= 1", name=op.f("ck_teaching_notes_move_number")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_teaching_notes")),
    )
    op.create_index(op.f("ix_teaching_notes_game_id_move_number"), "teaching_notes", ["game_id", "move_number"])


def downgrade() -> None:
    op.drop_index(op.f("ix_teaching_notes_game_id_move_number"), table_name="teaching_notes")
    op.drop_table("teaching_notes")
