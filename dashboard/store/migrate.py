"""Bring a database to the newest schema with Alembic, from code.

Services call ``upgrade_to_head(url)`` at start: it creates the tables in an empty
database and applies any newer migration to an older one; on an up-to-date database it
changes nothing. The migration scripts live in ``dashboard/migrations`` (found next to
this package, not through the working directory).
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

from dashboard.store.engine import make_engine

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"
MIGRATION_LOCK = 0x60B0DD1  # PostgreSQL advisory lock key held while migrating


def alembic_config() -> Config:
    """An Alembic ``Config`` built in code (no ini file, no logging set-up)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["configure_logging"] = False
    return config


def upgrade_to_head(target: str | Engine) -> str:
    """Migrate the database at ``target`` (a URL or an engine) to the newest revision
    and return that revision, in one transaction. Safe when several services start at
    once: they take turns (an advisory lock on PostgreSQL, the write lock on SQLite),
    and those after the first find nothing to do."""
    engine = make_engine(target) if isinstance(target, str) else target
    config = alembic_config()
    try:
        with engine.begin() as connection:
            if connection.dialect.name == "postgresql":
                connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
            elif connection.dialect.name == "sqlite":
                connection.exec_driver_sql("BEGIN IMMEDIATE")
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
    finally:
        if isinstance(target, str):
            engine.dispose()
    return head_revision()


def head_revision() -> str:
    """The newest revision among the migration scripts."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None, "no migration scripts found"
    return head


def current_revision(engine: Engine) -> str | None:
    """The revision the database at ``engine`` is at (``None`` when never migrated)."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()
