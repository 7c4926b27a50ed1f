"""Alembic migrations build exactly the models' schema; connections get the pragmas."""

from __future__ import annotations

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from dashboard.store.engine import make_engine
from dashboard.store.migrate import alembic_config, current_revision, head_revision, upgrade_to_head
from dashboard.store.models import Base


def test_migrated_schema_equals_the_models(db_url):
    engine = make_engine(db_url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True, "compare_server_default": True})
            assert compare_metadata(context, Base.metadata) == []
        assert current_revision(engine) == head_revision() == "0001"
    finally:
        engine.dispose()


def test_upgrade_is_idempotent_and_downgrade_works(db_url):
    assert upgrade_to_head(db_url) == "0001"
    engine = make_engine(db_url)
    try:
        with engine.begin() as conn:
            config = alembic_config()
            config.attributes["connection"] = conn
            command.downgrade(config, "base")
        assert current_revision(engine) is None
        with engine.connect() as conn:
            assert conn.dialect.get_table_names(conn) == ["alembic_version"]
        upgrade_to_head(engine)
        assert current_revision(engine) == "0001"
    finally:
        engine.dispose()


def test_sqlite_connections_use_wal_and_the_pragmas(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'wal.db'}", busy_timeout_ms=1234)
    try:
        with engine.connect() as conn:
            pragmas = {name: conn.exec_driver_sql(f"PRAGMA {name}").scalar()
                       for name in ("journal_mode", "synchronous", "busy_timeout", "foreign_keys")}
        assert pragmas == {"journal_mode": "wal", "synchronous": 1, "busy_timeout": 1234, "foreign_keys": 1}
    finally:
        engine.dispose()


def test_readers_see_committed_rows_while_a_writer_holds_its_transaction(tmp_path):
    url = f"sqlite:///{tmp_path / 'wal.db'}"
    upgrade_to_head(url)
    writer_engine, reader_engine = make_engine(url), make_engine(url)
    try:
        with writer_engine.begin() as w:
            w.exec_driver_sql("INSERT INTO boards (id, kind, first_seen, last_seen) "
                              "VALUES ('board-1', 'physical', '2026-01-01', '2026-01-01')")
        with writer_engine.begin() as w:
            w.exec_driver_sql("INSERT INTO boards (id, kind, first_seen, last_seen) "
                              "VALUES ('board-2', 'physical', '2026-01-01', '2026-01-01')")
            with reader_engine.connect() as r:  # the write is not committed yet: no lock, old snapshot
                assert r.exec_driver_sql("SELECT id FROM boards").scalars().all() == ["board-1"]
    finally:
        writer_engine.dispose()
        reader_engine.dispose()
