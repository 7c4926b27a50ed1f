"""A throwaway PostgreSQL server for tests: Debian's PostgreSQL 15 in a temp directory.

``PostgresServer.start()`` runs ``initdb`` into a fresh directory (as the ``postgres``
user when we are root, because initdb refuses root) and ``pg_ctl start`` on a free
loopback port with its socket in that directory; ``stop()`` stops it and removes the
directory. Durability is switched off (``fsync=off`` and friends): test data only.

``available()`` says whether the binaries are installed; tests skip with that reason
when they are not. Use ``url(dbname)`` for SQLAlchemy (psycopg 3) and
``create_database(name, template=...)`` for a fresh database per test.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.free_ports import free_port

BIN_DIR = Path("/usr/lib/postgresql/15/bin")
SUPERUSER = "postgres"


def available() -> str | None:
    """``None`` if a server can be started here, else the reason it cannot."""
    missing = [name for name in ("initdb", "pg_ctl", "postgres") if not (BIN_DIR / name).is_file()]
    if missing:
        return f"PostgreSQL 15 binaries not found in {BIN_DIR} (missing {', '.join(missing)}); install Debian's postgresql"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(SUPERUSER)
        except KeyError:
            return "running as root but there is no 'postgres' user to run initdb as"
    return None



class PostgresServer:
    """One PostgreSQL server in its own temp directory (see the module docstring)."""

    def __init__(self) -> None:
        self.port = 0
        self.root: Path | None = None

    @property
    def data_dir(self) -> Path:
        assert self.root is not None, "server not started"
        return self.root / "data"

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        command = [str(BIN_DIR / args[0]), *args[1:]]
        if os.geteuid() == 0:
            command = ["runuser", "-u", SUPERUSER, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd="/")
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
        return done

    def start(self) -> "PostgresServer":
        reason = available()
        if reason:
            raise RuntimeError(reason)
        self.root = Path(tempfile.mkdtemp(prefix="gobuddy-pg-"))
        if os.geteuid() == 0:
            user = pwd.getpwnam(SUPERUSER)
            os.chown(self.root, user.pw_uid, user.pw_gid)
        self._run("initdb", "-D", str(self.data_dir), "-U", SUPERUSER, "-A", "trust", "-E", "UTF8",
                  "--no-sync", "--locale=C")
        self.port = free_port()
        options = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=50")
        self._run("pg_ctl", "-D", str(self.data_dir), "-o", options, "-l", str(self.root / "server.log"),
                  "-w", "-t", "30", "start")
        return self

    def stop(self) -> None:
        """Stop the server (fast shutdown) and delete its directory. Safe to call twice."""
        if self.root is None:
            return
        try:
            if (self.data_dir / "postmaster.pid").exists():
                self._run("pg_ctl", "-D", str(self.data_dir), "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None

    def url(self, dbname: str = "postgres") -> str:
        """SQLAlchemy URL of database ``dbname`` on this server (psycopg 3 driver)."""
        return f"postgresql+psycopg://{SUPERUSER}@127.0.0.1:{self.port}/{dbname}"

    def create_database(self, name: str, template: str | None = None) -> str:
        """Create database ``name`` (a copy of ``template`` if given); return its URL."""
        import psycopg

        with psycopg.connect(host="127.0.0.1", port=self.port, user=SUPERUSER, dbname="postgres",
                             autocommit=True) as conn:
            sql = f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else "")
            conn.execute(sql)  # type: ignore[arg-type]
        return self.url(name)

    def __enter__(self) -> "PostgresServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
