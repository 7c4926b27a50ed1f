"""Calibration on the board itself: the agent measures the empty board when it has no
calibration (CAL), stores it per board, and measures again when DONE is held, but only
while the board reads empty."""

from __future__ import annotations

from edge.calibration.levels import CalibrationStore
from tests.edge.agent.rig import AgentRig, wait_until


def test_calibrates_empty_board_and_again_on_request(broker, observer, tmp_path):
    with AgentRig(broker, tmp_path, calibrated=False) as rig:
        stored = CalibrationStore(tmp_path).load("board-t1")
        assert stored is not None and not stored.colour_sensing  # empty board only: occupancy sensing
        first = rig.agent.calibration
        rig.board.press("DONE", hold_s=2.5).result(10)
        wait_until(lambda: rig.agent.calibration is not first, 10, "a new calibration after DONE held")

        rig.press("START")
        rig.play("E5")
        assert observer.wait_moves(1) == ["B E5"]
        second = rig.agent.calibration
        rig.board.press("DONE", hold_s=2.5).result(10)  # a stone on the board: refused
        rig.board.idle(1.0).result(10)
        assert rig.agent.calibration is second
        rig.play("C3")  # and the board is read as before
        assert observer.wait_moves(2) == ["B E5", "W C3"]
