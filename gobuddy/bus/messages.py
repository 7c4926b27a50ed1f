"""Every typed message kind, and ``decode`` from a kind and JSON data to its object.

| kind           | class                                   | schema                            |
|----------------|-----------------------------------------|-----------------------------------|
| board_frame    | ``BoardFrame``                          | ``schemas/board_frame.schema.json``  |
| button_event   | ``ButtonEvent``                         | ``schemas/button_event.schema.json`` |
| game_event     | ``GameEvent`` (a subclass per ``type``) | ``schemas/game_event.schema.json``   |
| board_state    | ``BoardState``                          | ``schemas/board_state.schema.json``  |
| engine_request | ``EngineRequest``                       | ``schemas/engine_request.schema.json`` |
| engine_answer  | ``EngineAnswer``                        | ``schemas/engine_answer.schema.json``  |
| engine_error   | ``EngineError``                         | ``schemas/engine_error.schema.json``   |
| engine_progress | ``EngineProgress``                     | ``schemas/engine_progress.schema.json`` |
| game_stored    | ``GameStored``                          | ``schemas/game_stored.schema.json``    |
| board_command  | ``BoardCommand``                        | ``schemas/board_command.schema.json``  |
| status         | ``Status``                              | ``schemas/status.schema.json``       |
| error          | ``ErrorReport``                         | ``schemas/error.schema.json``        |
"""

from __future__ import annotations

from typing import Any

from gobuddy.bus.board_messages import BoardCommand, BoardFrame, BoardState, ButtonEvent, Problem
from gobuddy.bus.engine_messages import (
    DeadStones,
    EngineAnswer,
    EngineError,
    EngineProgress,
    EngineRequest,
    Judge,
    MoveInfo,
    MoveJudgement,
    MoveReason,
    Position,
    PositionKey,
    RootInfo,
    Tolerance,
)
from gobuddy.bus.game_events import (
    EVENT_TYPES,
    GameEnded,
    GameEvent,
    GameStarted,
    GameStored,
    MovePlayed,
    Passed,
    Player,
    ProblemCleared,
    ProblemRaised,
    Teaching,
    Undone,
)
from gobuddy.bus.message import Message, now_ms
from gobuddy.bus.service_messages import ErrorReport, Status
from gobuddy.bus.validation import KINDS, MessageError

MESSAGE_TYPES: dict[str, type[Message]] = {
    cls.KIND: cls
    for cls in (BoardFrame, ButtonEvent, GameEvent, BoardState, EngineRequest, EngineAnswer,
                EngineError, EngineProgress, GameStored, BoardCommand, Status, ErrorReport)
}
assert set(MESSAGE_TYPES) == set(KINDS)


def decode(kind: str, data: Any) -> Message:
    """Validate JSON ``data`` as ``kind`` and return its typed object (``MessageError`` if not)."""
    if kind not in MESSAGE_TYPES:
        raise KeyError(f"unknown message kind {kind!r}")
    return MESSAGE_TYPES[kind].from_dict(data)


__all__ = [
    "BoardFrame", "BoardState", "ButtonEvent", "DeadStones", "EVENT_TYPES", "EngineAnswer", "EngineError",
    "EngineRequest", "ErrorReport", "GameEnded", "GameEvent", "GameStarted", "MESSAGE_TYPES",
    "Judge", "Message", "MessageError", "MoveInfo", "MoveJudgement", "MoveReason", "MovePlayed", "Passed", "Player",
    "Position", "PositionKey", "Problem", "ProblemCleared", "ProblemRaised", "RootInfo", "Status", "Teaching",
    "Tolerance", "Undone",
    "decode", "now_ms",
]
