"""The count at the end in the agent's journal, so that it survives a restart.

A count under way is written to the journal (``edge.journal.offline_queue``, a
journal-only note: never sent) each time what it shows changes: once the workers'
dead stones are shown, and after each of the players' toggles. Dropping it (UNDO: back
to playing) writes a closing note; accepting it needs none, since the game's
``game_ended`` follows.

| note (``kind: "count"``) | meaning |
|---|---|
| ``game_id``, ``moves`` | the game and how many moves it had when the count began |
| ``groups`` | ``CountGroups.snapshot()``: proposed, toggled, lifted and emptied groups (GTP) |
| ``dead`` | the stones counted dead then (GTP; what the LEDs blink) |
| ``closed: true`` | the count was dropped: play went on |

``pending_count`` finds the count to show again after a restart: the latest count note
of the rebuilt game, if it is not closed, the game has not ended and still has the
same number of moves. Not kept: a count whose workers had not answered yet (the game
comes back unended after its passes; END counts it again).
"""

from __future__ import annotations

from typing import Any, Sequence

from edge.journal.game_journal import GameLog

COUNT = "count"


def count_note(record: GameLog, groups: dict[str, Any], dead: Sequence[str]) -> dict[str, Any]:
    """The note for the count of ``record``'s game as it stands."""
    return {"kind": COUNT, "game_id": record.game_id, "moves": record.game.move_number, "groups": groups,
            "dead": list(dead)}


def closed_note(record: GameLog) -> dict[str, Any]:
    """The note that the count of ``record``'s game was dropped (play goes on)."""
    return {"kind": COUNT, "game_id": record.game_id, "moves": record.game.move_number, "closed": True}


def pending_count(entries: Sequence[Any], record: GameLog) -> dict[str, Any] | None:
    """The latest count note of ``record``'s game among journal ``entries`` if that
    count is still under way (see the module docstring), else ``None``."""
    if record.game.ended:
        return None
    for entry in reversed(entries):
        note = entry.payload
        if entry.topic == "" and note.get("kind") == COUNT and note.get("game_id") == record.game_id:
            if note.get("closed") or note.get("moves") != record.game.move_number:
                return None
            return note
    return None
