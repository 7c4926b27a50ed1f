"""The broker goes away in the middle of a game: the agent keeps playing and recording,
and once the broker is back every move arrives, in order, exactly once."""

from __future__ import annotations

import time

import pytest

from tests.edge.agent.rig import AgentRig, wait_until

BEFORE = "E5 C3"
DURING = "G7 D7 C6 F3 E3 G4"
AFTER = "B8"


def play_outage(broker, observer, tmp_path, outage_s: float) -> None:
    with AgentRig(broker, tmp_path) as rig:
        rig.press("START")
        rig.play(BEFORE)
        observer.wait_moves(2)
        broker.stop()
        down_at = time.monotonic()
        during = DURING.split()
        for i, vertex in enumerate(during):  # spread the moves over the outage
            wait_until(lambda: time.monotonic() >= down_at + outage_s * i / len(during), outage_s + 5, "the next turn")
            rig.play(vertex)
        # the last move reaches the journal once the agent has read its frames: wait for it, not assume it
        wait_until(lambda: len(rig.agent.queue.pending()) >= len(during), 10, "the moves waiting on disk while the broker is away")
        assert observer.moves() == ["B E5", "W C3"]
        wait_until(lambda: time.monotonic() >= down_at + outage_s, outage_s + 5, "the end of the outage")
        broker.start()
        rig.play(AFTER)
        expected = [f"{'BW'[i % 2]} {v}" for i, v in enumerate((BEFORE + " " + DURING + " " + AFTER).split())]
        assert observer.wait_moves(len(expected), timeout_s=20) == expected
        time.sleep(1.0)  # nothing more, no repeats
        events = observer.events()
        assert [e["seq"] for e in events] == list(range(len(events)))
        assert observer.moves() == expected
        state = wait_until(lambda: (s := observer.state()) and s["seq"] == events[-1]["seq"] and s, 10, "final state")
        assert [f"{c} {v}" for c, v in state["moves"]] == expected
        assert rig.agent.queue.pending() == []


def test_broker_outage_of_a_few_seconds(broker, observer, tmp_path):
    play_outage(broker, observer, tmp_path, outage_s=4.0)


@pytest.mark.slow
def test_broker_outage_of_a_minute(broker, observer, tmp_path):
    play_outage(broker, observer, tmp_path, outage_s=60.0)
