"""End to end on the real firmware: ``python -m edge`` on the board firmware running in
simavr (``firmware/sim``), with a real Mosquitto.

The agent calibrates the empty board itself (CAL), a game is started with the START
button, stones are placed by shading sensors (millivolts), the moves reach the broker;
a hint for an older position leaves the LED pins dark, one for the current position
lights its row and column; the board is unplugged (its simulator stopped) and plugged
in again: the agent reconnects, lights the hint again, and records no false move."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gobuddy.bus import BusClient, topics
from tests.edge.agent.conftest import forget_board
from tests.edge.agent.rig import Observer, wait_until
from tests.edge.agent.test_hints import answer, key_after

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "firmware" / "sim"))
import simboard  # noqa: E402
from simboard import SimBoard, vertex_index  # noqa: E402

MISSING = simboard.tools_missing()
pytestmark = pytest.mark.skipif(MISSING is not None, reason=f"AVR toolchain/simavr not installed: {MISSING}")


def cover(board: SimBoard, vertices: str) -> None:
    board.set_covered([vertex_index(v) for v in vertices.split()])


def test_edge_agent_on_the_real_firmware(broker, tmp_path):
    forget_board(broker, "board-t2")
    observer = Observer(broker, "board-t2")
    engine = BusClient(broker.config("engine-1"))
    engine.start()
    link = tmp_path / "ttyACM0"
    board = SimBoard(link=link).start()
    cover(board, "")
    agent = subprocess.Popen(
        [sys.executable, "-m", "edge", "--serial", str(link), "--board-id", "board-t2", "--broker-host", broker.host,
         "--broker-port", str(broker.port), "--username", "board-t2",
         "--password-file", str(broker.password_file("board-t2")), "--data-dir", str(tmp_path / "edge"),
         "--frames-per-s", "0"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        wait_until(lambda: (tmp_path / "edge" / "calibration" / "board-t2.json").exists(), 20,
                   "the agent to calibrate the empty board")
        board.tap("START")
        wait_until(lambda: observer.events("game_started"), 10, "game_started")
        cover(board, "E5")
        observer.wait_moves(1)
        cover(board, "E5 C3")
        assert observer.wait_moves(2) == ["B E5", "W C3"]

        led = topics.board_led("board-t2")
        engine.publish(led, answer("board-t2:hint:1:1", key_after("E5"), "G7", "W", "board-t2"), wait=True)
        time.sleep(0.5)
        assert board.leds().dark, "a hint for an older position must not light"
        engine.publish(led, answer("board-t2:hint:2:1", key_after("E5 C3"), "G7", "B", "board-t2"), wait=True)
        wait_until(lambda: board.leds().point == vertex_index("G7"), 5, "row 7 and column G lit")

        board.stop()  # unplugged
        time.sleep(1.5)
        board.build_first = False
        board.start()  # plugged in again: same link, a fresh pty, the board boots
        cover(board, "E5 C3")
        wait_until(lambda: board.leds().point == vertex_index("G7"), 15, "the hint lit again after the reconnect")
        time.sleep(1.0)
        assert observer.moves() == ["B E5", "W C3"] and not observer.events("problem")

        cover(board, "E5 C3 G7")
        assert observer.wait_moves(3) == ["B E5", "W C3", "B G7"]
        wait_until(lambda: board.leds().dark, 5, "the LEDs off after the move")
        events = observer.events()
        assert [e["seq"] for e in events] == list(range(len(events)))
    finally:
        agent.send_signal(signal.SIGTERM)
        output = agent.communicate(timeout=15)[0]
        board.stop()
        engine.stop()
        observer.stop()
    assert agent.returncode == 0, output[-3000:]
    assert "calibrated (empty board" in output and "board connected" in output
