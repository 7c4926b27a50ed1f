"""Mistake kinds summed per reviewed colour: ``game_reviews.kinds`` (kind -> mistakes of
inaccuracy or worse with that top reason kind), so that a player's page reads the kinds
of thousands of games with the reports, without scanning ``reviewed_moves``. Backfilled
from ``reviewed_moves``; NULL stays for reviews without any kind.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

MISTAKES = ("blunder", "mistake", "inaccuracy")


def upgrade() -> None:
    op.add_column("game_reviews", sa.Column("kinds", sa.JSON(), nullable=True))  # in place on SQLite too: no FK
    bind = op.get_bind()
    moves = sa.table("reviewed_moves", sa.column("game_id"), sa.column("color"), sa.column("kind"),
                     sa.column("category"))
    reviews = sa.table("game_reviews", sa.column("game_id"), sa.column("color"), sa.column("kinds", sa.JSON()))
    found: dict[tuple[str, str], dict[str, int]] = {}
    rows = bind.execute(sa.select(moves.c.game_id, moves.c.color, moves.c.kind, sa.func.count())
                        .where(moves.c.kind.is_not(None), moves.c.category.in_(MISTAKES))
                        .group_by(moves.c.game_id, moves.c.color, moves.c.kind))
    for game_id, color, kind, n in rows:
        found.setdefault((game_id, color), {})[kind] = n
    for (game_id, color), kinds in found.items():
        bind.execute(reviews.update().where(reviews.c.game_id == game_id, reviews.c.color == color)
                     .values(kinds=kinds))


def downgrade() -> None:
    with op.batch_alter_table("game_reviews") as batch:  # nothing refers to game_reviews: a copy is safe
        batch.drop_column("kinds")
