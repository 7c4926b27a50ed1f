"""``game_ended`` lists the stones the final count lifted (``dead``): optional, GTP
vertices, each once (so at most 625, the largest board's points); left out of the
payload when the end named no count."""

from __future__ import annotations

import pytest

from gobuddy.bus.messages import GameEnded, GameEvent
from gobuddy.bus.validation import MessageError, validate

IDS = dict(board_id="board-1", game_id="board-1-20260110-181500", seq=71, move_number=66, ts=1768069400000)


@pytest.mark.parametrize("dead, payload_dead", [
    (("G7", "G8", "H7"), ["G7", "G8", "H7"]),
    ((), []),  # a count with every stone alive
    (None, "absent"),  # no count named (resignation, an older sender)
])
def test_dead_round_trips(dead, payload_dead) -> None:
    event = GameEnded(**IDS, result="B+18", reason="score", dead=dead)
    data = event.to_dict()
    validate("game_event", data)
    assert data.get("dead", "absent") == payload_dead
    assert GameEvent.from_dict(data) == event


@pytest.mark.parametrize("dead, why", [
    (["g7"], "lower case"),
    (["G7", "G7"], "a stone twice"),
    (["I5"], "no I column"),
    (["A26"], "off the largest board"),
    ("G7", "not a list"),
])
def test_bad_dead_lists_are_refused(dead, why) -> None:
    data = {**GameEnded(**IDS, result="B+18", reason="score").to_dict(), "dead": dead}
    with pytest.raises(MessageError):
        validate("game_event", data)
