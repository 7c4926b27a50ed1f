"""The schema and the engine: Alembic migrations build exactly the models' schema;
SQLite connections get the WAL pragmas; reads see one snapshot while others write."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import text

from dashboard.store import Store, games
from dashboard.store.engine import make_engine, truncate_wal
from dashboard.store.migrate import alembic_config, current_revision, head_revision, upgrade_to_head
from dashboard.store.models import Base
from tests import postgres_server
from tests.dashboard.conftest import WireGame, send


def test_migrated_schema_equals_the_models(db_url):
    engine = make_engine(db_url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True, "compare_server_default": True})
            assert compare_metadata(context, Base.metadata) == []
        assert current_revision(engine) == head_revision() == "0006"
    finally:
        engine.dispose()


def test_upgrade_is_idempotent_and_downgrade_works(db_url):
    assert upgrade_to_head(db_url) == "0006"
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
        assert current_revision(engine) == "0006"
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


def test_services_starting_together_migrate_once(tmp_path, request):
    """Four services migrate one new database at the same moment: all succeed."""
    urls = {"sqlite": f"sqlite:///{tmp_path / 'race.db'}"}
    if postgres_server.available() is None:
        urls["postgresql"] = request.getfixturevalue("postgres").create_database("race")
    for url in urls.values():
        with ThreadPoolExecutor(4) as pool:
            assert list(pool.map(upgrade_to_head, [url] * 4)) == ["0006"] * 4


def test_a_read_sees_one_snapshot_while_the_recorder_writes(store):
    send(store, *WireGame("r1").events)
    recorder = Store(make_engine(store.engine.url.render_as_string(hide_password=False)))
    try:
        with store.session() as s:
            assert games.list_games(s).total == 1
            send(recorder, *WireGame("r2", board_id="board-2").events)  # commits during our read
            assert games.list_games(s).total == 1
        assert store.list_games().total == 2
    finally:
        recorder.close()


def test_the_sqlite_wal_is_cut_back_to_nothing(tmp_path):
    """The recorder truncates the WAL: SQLite's own checkpoints keep the file at its
    largest size (a disk filled up again after space was freed)."""
    engine = make_engine(f"sqlite:///{tmp_path / 'w.db'}")
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE t (x TEXT)"))
        for _ in range(200):
            connection.execute(text("INSERT INTO t VALUES (:x)"), {"x": "x" * 4000})
    wal = tmp_path / "w.db-wal"
    assert wal.stat().st_size > 500_000
    assert truncate_wal(engine) and wal.stat().st_size == 0
    with engine.connect() as connection:
        assert connection.execute(text("SELECT COUNT(*) FROM t")).scalar() == 200
    engine.dispose()
    assert truncate_wal(make_engine("postgresql+psycopg://nobody@127.0.0.1:1/none")) is False
