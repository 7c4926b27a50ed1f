"""The agent restarted mid-game rebuilds the game: from its journal, or, with the journal
lost, from the board's retained state on the broker; and the board in front of it
supplies what happened while it was down."""

from __future__ import annotations

import shutil

from tests.edge.agent.rig import AgentRig, wait_until


def test_restart_rebuilds_from_journal_then_from_retained_state(broker, observer, tmp_path):
    with AgentRig(broker, tmp_path / "pi") as rig:
        rig.press("START")
        rig.play("E5 C3")
        observer.wait_moves(2)
        rig.stop_agent()
        rig.play("G7")  # played while the agent is down: the board still shows it
        agent = rig.start_agent()
        assert agent.record is not None and agent.record.game.move_number >= 2
        assert observer.wait_moves(3) == ["B E5", "W C3", "B G7"]  # read from the board once it is back
        rig.play("D7")
        assert observer.wait_moves(4) == ["B E5", "W C3", "B G7", "W D7"]
        wait_until(lambda: (s := observer.state()) and s["move_number"] == 4, 5, "the state after move 4")

        rig.stop_agent()  # the Pi's disk is replaced: only the calibration is put back
        fresh = tmp_path / "new-pi"
        shutil.copytree(tmp_path / "pi" / "calibration", fresh / "calibration")
        agent = rig.start_agent(fresh)
        wait_until(lambda: agent.record is not None and agent.record.game.move_number == 4, 10,
                   "the game adopted from the retained state")
        rig.play("C6")
        assert observer.wait_moves(5) == ["B E5", "W C3", "B G7", "W D7", "B C6"]
        events = observer.events()
        assert [e["seq"] for e in events] == list(range(len(events)))
        assert [e["type"] for e in events].count("game_started") == 1
        assert {e["game_id"] for e in events} == {events[0]["game_id"]}
        assert [e["move_number"] for e in events if e["type"] == "move"] == [1, 2, 3, 4, 5]

        rig.stop_agent()  # and once more from that new journal (an adopted game)
        agent = rig.start_agent(fresh)
        assert agent.record is not None and agent.record.game.move_number == 5
        assert agent.record.seq == events[-1]["seq"]
