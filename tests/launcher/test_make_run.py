"""`make run` end to end: `python -m launcher` brings up the broker, two engine workers,
the recorder, the dashboard and the simulated board; the board's auto-played moves reach
the database; SIGTERM stops every service it started."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.slow
def test_launcher_runs_the_whole_system_and_stops_it(tmp_path):
    broker_port, dashboard_port = free_port(), free_port()
    var = tmp_path / "var"
    proc = subprocess.Popen(
        [sys.executable, "-m", "launcher", "--broker-port", str(broker_port), "--dashboard-port",
         str(dashboard_port), "--var", str(var)],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.time() + 120
        moves = 0
        while time.time() < deadline and moves < 3:
            assert proc.poll() is None, proc.stdout.read()
            db = var / "gobuddy.db"
            if db.exists():
                with sqlite3.connect(db) as conn:
                    try:
                        moves = conn.execute("select count(*) from moves").fetchone()[0]
                    except sqlite3.OperationalError:
                        moves = 0
            time.sleep(1)
        assert moves >= 3, "the simulated board's moves never reached the database"
        with urllib.request.urlopen(f"http://127.0.0.1:{dashboard_port}/_stcore/health", timeout=10) as r:
            assert r.read().decode() == "ok"
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
    pids = [int(line.split("pid")[1].split()[0]) for line in out.splitlines() if " started " in line]
    assert len(pids) == 6, out  # broker, 2 workers, recorder, dashboard, edge
    assert "Dashboard:  http://127.0.0.1:" in out and "observer" in out
    assert all(not alive(pid) for pid in pids), out
