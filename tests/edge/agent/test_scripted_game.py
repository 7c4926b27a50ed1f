"""A scripted game played by hand on the simulated board: exactly its events reach the
broker, in order, and the retained state describes the game."""

from __future__ import annotations

from tests.edge.agent.rig import AgentRig, wait_until

#  9 . . . . . . . . .      B B1, W A1, B A2 captures A1 (the hand takes it off);
#  ...                      W passes; B E5, W C3, B G7.
#  2 X . . . . . . . .
#  1 . X . . . . . . .
#    A B C D E F G H J
SCRIPT = "B1 A1 A2 pass E5 C3 G7"
EXPECTED = [  # (type, move_number, colour, vertex, captures)
    ("move", 1, "B", "B1", []),
    ("move", 2, "W", "A1", []),
    ("move", 3, "B", "A2", ["A1"]),
    ("pass", 4, "W", None, None),
    ("move", 5, "B", "E5", []),
    ("move", 6, "W", "C3", []),
    ("move", 7, "B", "G7", []),
]


def test_scripted_game_events_and_retained_state(broker, observer, tmp_path):
    with AgentRig(broker, tmp_path) as rig:
        rig.press("START")
        rig.play(SCRIPT)
        observer.wait_moves(len(EXPECTED))
        events = observer.events()
        started = events[0]
        assert (started["type"], started["seq"], started["size"], started["komi"], started["mode"]) == \
            ("game_started", 0, 9, 7.0, "two_players")
        moves = [(e["type"], e["move_number"], e["color"], e.get("vertex"), e.get("captures"))
                 for e in events if e["type"] in ("move", "pass")]
        assert moves == EXPECTED
        assert not observer.events("problem", "undo")
        assert [e["seq"] for e in events] == list(range(len(events)))
        assert {e["game_id"] for e in events} == {started["game_id"]}

        state = wait_until(lambda: (s := observer.state()) and s["seq"] == events[-1]["seq"] and s, 5,
                           "the retained state of the last event")
        assert state["status"] == "playing" and state["game_id"] == started["game_id"]
        assert state["moves"] == [["B", "B1"], ["W", "A1"], ["B", "A2"], ["W", "pass"], ["B", "E5"],
                                  ["W", "C3"], ["B", "G7"]]
        assert (state["move_number"], state["to_play"], state["captures"]) == (7, "W", {"B": 1, "W": 0})
        assert rig.agent.link.rejected == 0
        assert rig.agent.status()["calibrated"] is True
