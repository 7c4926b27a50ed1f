"""Engines and sessions for the history store, from a database URL.

SQLite (``sqlite:///path.db``) is the embedded default; every new connection gets
``journal_mode=WAL`` (readers see committed data while the recorder writes),
``synchronous=NORMAL``, ``busy_timeout`` and ``foreign_keys=ON``. PostgreSQL
(``postgresql+psycopg://user@host:port/db``) is for anything shared; its connections
are pinged before use so a restarted server does not break a long-lived service.

``truncate_wal`` checkpoints an SQLite WAL and cuts the file back to nothing (SQLite's own
checkpoints keep the file at its largest size, which refilled a nearly full disk after
space was freed); the recorder calls it every few seconds.

Not done here: creating tables (``dashboard.store.migrate.upgrade_to_head`` does, via
Alembic), creating the PostgreSQL database itself.
"""

from __future__ import annotations

import random
import sqlite3
import time
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

DEFAULT_BUSY_TIMEOUT_MS = 5000


def make_engine(url: str, *, busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS, echo: bool = False) -> Engine:
    """An engine for ``url``; SQLite connections get the WAL pragmas above.

    ``busy_timeout_ms`` is how long an SQLite writer waits for another's lock before
    failing with "database is locked"."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        engine = create_engine(parsed, echo=echo)
        event.listen(engine, "connect", _sqlite_pragmas(busy_timeout_ms))
        return engine
    return create_engine(parsed, echo=echo, pool_pre_ping=True)


def _sqlite_pragmas(busy_timeout_ms: int) -> Any:
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
            _switch_to_wal(cursor, busy_timeout_ms / 1000)
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
        finally:
            cursor.close()

    return on_connect


def _switch_to_wal(cursor: Any, patience_s: float) -> None:
    """Put the database in WAL mode, retrying "database is locked" for up to
    ``patience_s``: while services open a new database at the same moment, SQLite
    refuses the switch at once (without its busy handler: waiting could deadlock)."""
    deadline = time.monotonic() + patience_s
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() >= deadline:
                raise
            time.sleep(0.01 + random.random() * 0.04)


def truncate_wal(engine: Engine) -> bool:
    """For SQLite: write the WAL into the database and truncate the WAL file to zero
    bytes; True if it could (a reader in the middle of a snapshot makes it wait for the
    next call). Nothing to do, and False, for other backends."""
    if engine.dialect.name != "sqlite":
        return False
    with engine.connect() as connection:
        busy, _, _ = connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)").one()
    return busy == 0


def start_transaction(session: Session, *, write: bool) -> None:
    """Open the session's transaction explicitly; call it before any statement.

    Reads (``write=False``) see one consistent snapshot of the database on both
    backends: ``BEGIN`` on SQLite (whose driver would otherwise run each read outside
    any transaction), ``REPEATABLE READ`` on PostgreSQL. Writes on SQLite start with
    ``BEGIN IMMEDIATE``: the write lock is taken up front, so a transaction that reads
    and then writes waits (up to ``busy_timeout``) for another writer and nothing
    changes between its reads and its writes. Writes on PostgreSQL keep READ
    COMMITTED (the game row is locked by ``dashboard.ingest``)."""
    dialect = session.get_bind().dialect.name
    if dialect == "postgresql" and not write:
        session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
    elif dialect == "sqlite":
        session.connection().exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def make_sessions(engine: Engine) -> sessionmaker[Session]:
    """Session factory for ``engine``. Objects stay readable after commit."""
    return sessionmaker(engine, expire_on_commit=False)
