"""The stones the final count lifted: ``games.dead`` (a JSON list of GTP vertices,
``game_ended``'s ``dead``). Nullable: earlier games named none; nothing to backfill.
Added and dropped in place: a batch copy of ``games`` on SQLite would delete the rows
that refer to it (ON DELETE CASCADE).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("games", sa.Column("dead", sa.JSON(), nullable=True))  # in place, SQLite too: no table copy


def downgrade() -> None:
    op.drop_column("games", "dead")  # in place (SQLite 3.35+): a copy of games would cascade to its moves
