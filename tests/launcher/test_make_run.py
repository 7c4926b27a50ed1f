"""`make run` end to end: `python -m launcher` brings up the broker, two engine workers,
the recorder, the game reviewer, the dashboard and the simulated board; the board calibrates for colour
sensing (its auto-player lays the reference stones) and says so in its retained status;
its auto-played moves reach the database; SIGTERM stops every service it started, each
with exit status 0."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from edge.__main__ import build_parser
from gobuddy.bus import BusClient, topics
from gobuddy.bus.config import BusConfig
from launcher.__main__ import RESTARTS_PER_MINUTE, LaunchConfig, Launcher, edge_command
from tests.free_ports import free_ports

REPO = Path(__file__).resolve().parents[2]



def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def board_status(var: Path, port: int, board_id: str, timeout_s: float = 15.0, role: str = "board") -> dict:
    """A client's (by default the board's) retained status as the broker holds it, read
    with the ``observer`` account and its password file, as the launcher made them
    (waits for one that is online)."""
    password = (var / "broker" / "secrets" / "observer.password").read_text().strip()
    seen: list[dict] = []
    client = BusClient(BusConfig(client_id="observer", role="observer", port=port, username="observer",
                                 password=password))
    client.subscribe(topics.status(role, board_id), lambda r: seen.append(r.message.to_dict()))
    client.start()
    try:
        deadline = time.time() + timeout_s
        while time.time() < deadline and not (seen and seen[-1]["state"] == "online"):
            time.sleep(0.1)
    finally:
        client.stop()
    assert seen and seen[-1]["state"] == "online", f"no online status of {board_id}: {seen}"
    return seen[-1]


@pytest.mark.parametrize("auto_play, colour", [(True, True), (False, False)])
def test_the_simulated_board_senses_colours_when_it_plays_by_itself(auto_play, colour, tmp_path):
    config = LaunchConfig(var=tmp_path, simulate_game=auto_play)
    command = edge_command(config, ["--broker-port", "1884", "--username", "board-sim",
                                    "--password-file", "board-sim.password"])
    assert command[1:3] == ["-m", "edge"]
    args = build_parser().parse_args(command[3:])  # the agent's own parser accepts it
    assert (args.simulate, args.auto_play, args.color_sensing) == (True, auto_play, colour)
    assert (args.board_id, args.username, args.data_dir) == ("board-sim", "board-sim", tmp_path / "edge")


@pytest.mark.slow
def test_launcher_runs_the_whole_system_and_stops_it(tmp_path):
    broker_port, dashboard_port = free_ports(2)
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
        details = board_status(var, broker_port, "board-sim")["details"]
        assert (details.get("calibrated"), details.get("sensing")) == (True, "color"), details
        assert "calibration" not in details, details  # calibrated before the first game, and over
        with urllib.request.urlopen(f"http://127.0.0.1:{dashboard_port}/_stcore/health", timeout=10) as r:
            assert r.read().decode() == "ok"
        board_status(var, broker_port, "reviewer", role="dashboard")  # the game reviewer is on the bus
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
    pids = [int(line.split("pid")[1].split()[0]) for line in out.splitlines() if " started " in line]
    assert len(pids) == 7, out  # broker, 2 workers, recorder, reviewer, dashboard, edge
    assert "Dashboard:  http://127.0.0.1:" in out and "observer" in out
    assert all(not alive(pid) for pid in pids), out
    stopped = [line.split()[1:] for line in out.splitlines() if line.strip().startswith("stopped ")]
    assert len(stopped) == 7 and all(exit == ["(exit", "0)"] for _, *exit in stopped), out  # each a clean stop


def test_a_service_that_exits_is_started_again_until_it_keeps_dying(tmp_path):
    """A service whose bus thread died exits (status 70): the launcher starts it again,
    and stops everything only when it keeps dying."""
    marker = tmp_path / "starts"
    launcher = Launcher(LaunchConfig(var=tmp_path))
    launcher.start("flaky", [sys.executable, "-c", f"open({str(marker)!r}, 'a').write('x'); raise SystemExit(70)"])
    with pytest.raises(RuntimeError, match="flaky exited with code 70"):
        launcher.watch()
    assert marker.read_text() == "x" * (RESTARTS_PER_MINUTE + 1)
