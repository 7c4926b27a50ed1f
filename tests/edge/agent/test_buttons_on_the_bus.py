"""Button presses and live frames reach the broker: the agent numbers them with its clock
in milliseconds (so the numbers keep growing across its restarts), which the schemas
must accept (a bound of 2^31-1 once refused every one of them)."""

from __future__ import annotations

from gobuddy.bus.message import now_ms
from gobuddy.bus.validation import examples, validate
from tests.edge.agent.rig import AgentRig, wait_until


def test_a_button_press_is_published(broker, observer, tmp_path) -> None:
    with AgentRig(broker, tmp_path) as rig:
        rig.press("START")
        presses = wait_until(lambda: [r.payload for r in observer.inbox.items if r.kind == "button_event"], 10,
                             "the START press on the button topic")
        assert presses[0]["button"] == "new_game" and presses[0]["seq"] >= now_ms() - 60_000


def test_frames_and_buttons_numbered_by_the_clock_are_valid() -> None:
    validate("button_event", {**examples("button_event")[0], "seq": now_ms()})
    validate("board_frame", {**examples("board_frame")[0], "seq": now_ms()})
