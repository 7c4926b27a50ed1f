"""Dashboard accounts: the users table (name, bcrypt hash, role, sign-in lockout).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

UTC_TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("password_hash", sa.String(100), nullable=False),
        sa.Column("role", sa.String(8), nullable=False),
        sa.Column("created_at", UTC_TIME, nullable=False),
        sa.Column("password_changed_at", UTC_TIME, nullable=False),
        sa.Column("failed_logins", sa.Integer(), nullable=False),
        sa.Column("locked_until", UTC_TIME, nullable=True),
        sa.Column("last_login_at", UTC_TIME, nullable=True),
        sa.CheckConstraint("role IN ('viewer', 'player', 'admin')", name=op.f("ck_users_role")),
        sa.CheckConstraint("failed_logins >= 0", name=op.f("ck_users_failed_logins")),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_users")),
    )


def downgrade() -> None:
    op.drop_table("users")
