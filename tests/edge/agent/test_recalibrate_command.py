"""Recalibration asked from the dashboard: a ``board_command`` from the dashboard account
starts a calibration on an empty board (its status shows the step), and is refused on a
board that has stones on it (as TURN DONE held would be)."""

from __future__ import annotations

import time

from gobuddy.bus import BusClient, topics
from gobuddy.bus.board_messages import BoardCommand
from tests.edge.agent.rig import AgentRig, wait_until


def step(observer) -> object:
    return ((observer.status() or {}).get("details") or {}).get("calibration")


def test_the_dashboard_starts_a_recalibration_of_an_empty_board(broker, observer, tmp_path) -> None:
    dashboard = BusClient(broker.config("dashboard"))
    dashboard.start()
    try:
        with AgentRig(broker, tmp_path) as rig:
            wait_until(lambda: (observer.status() or {}).get("details", {}).get("calibrated"), 15, "calibrated")
            sighting = lambda: rig.agent._last_sighting  # noqa: E731  (what the board read last)
            wait_until(lambda: sighting() is not None and not any(sighting().board) and not sighting().uncertain,
                       15, "the board read empty")  # the board must read empty, as for TURN DONE held
            assert step(observer) is None
            dashboard.publish(topics.board_command("board-t1"),
                              BoardCommand(board_id="board-t1", command="recalibrate", by="ana"), wait=True)
            wait_until(lambda: step(observer) is not None, 10, "a calibration step in the status")
            assert rig.agent.cal.active
    finally:
        dashboard.stop()


def test_a_board_with_stones_on_it_is_not_recalibrated(broker, observer, tmp_path) -> None:
    dashboard = BusClient(broker.config("dashboard"))
    dashboard.start()
    try:
        with AgentRig(broker, tmp_path) as rig:
            rig.press("START")
            rig.play("E5")
            observer.wait_moves(1)
            dashboard.publish(topics.board_command("board-t1"),
                              BoardCommand(board_id="board-t1", command="recalibrate", by="ana"), wait=True)
            time.sleep(1.5)
            assert not rig.agent.cal.active and step(observer) is None
    finally:
        dashboard.stop()
