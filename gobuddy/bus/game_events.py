"""Typed game events: one class per ``type`` of ``schemas/game_event.schema.json``.

Every event carries ``board_id``, ``game_id``, ``seq`` (0 for game_started, +1 per event
of the game) and ``move_number`` (see the schema for its meaning per type), so consumers
can apply events idempotently: key by (board_id, game_id, seq). ``GameEvent.from_dict``
returns the subclass named by ``type``. Moves are not checked for legality here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from gobuddy.bus.message import Message, now_ms, typed
from gobuddy.bus.validation import MessageError
from gobuddy.go import game as go_game
from gobuddy.go.coords import color_to_str, to_gtp

Stone = tuple[str, str]  # (colour, vertex)


@dataclass(frozen=True, kw_only=True)
class GameEvent(Message):
    """Fields shared by every game event; ``TYPE`` is the wire ``type`` of a subclass."""

    KIND = "game_event"
    TYPE: ClassVar[str] = ""
    board_id: str
    game_id: str
    seq: int
    move_number: int
    ts: int = field(default_factory=now_ms)

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.TYPE, **super().to_dict()}

    @classmethod
    def from_dict(cls, data: Any) -> "GameEvent":
        """Validate, then build the subclass for ``data["type"]`` (raises ``MessageError``
        when called on a subclass with another type's data)."""
        event = super().from_dict(data)
        if cls is not GameEvent and not isinstance(event, cls):
            raise MessageError("game_event", "type", f"expected {cls.TYPE!r}, got {data['type']!r}")
        return event

    @classmethod
    def build(cls, data: dict[str, Any]) -> "GameEvent":
        return typed(EVENT_TYPES[data["type"]], data)


GUEST = "guest"  # the name of a person nobody named (a board's players not chosen)


@dataclass(frozen=True)
class Player:
    name: str
    kind: str = "human"  # or "engine"


@dataclass(frozen=True, kw_only=True)
class GameStarted(GameEvent):
    """A new game: ``setup`` stones are placed before move 1; ``to_play`` moves first."""

    TYPE = "game_started"
    move_number: int = 0
    size: int
    komi: float
    rules: str
    handicap: int = 0
    setup: tuple[Stone, ...] = ()
    to_play: str = "B"
    mode: str = "two_players"
    players: dict[str, Player] | None = None  # {"B": Player, "W": Player}


@dataclass(frozen=True, kw_only=True)
class MovePlayed(GameEvent):
    """A stone of ``color`` at ``vertex``; ``captures`` are the stones it removed."""

    TYPE = "move"
    color: str
    vertex: str
    captures: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Passed(GameEvent):
    TYPE = "pass"
    color: str


@dataclass(frozen=True, kw_only=True)
class Undone(GameEvent):
    """Move ``move_number`` (``color`` at ``vertex``, or ``"pass"``) was taken back."""

    TYPE = "undo"
    color: str
    vertex: str


@dataclass(frozen=True, kw_only=True)
class ProblemRaised(GameEvent):
    """The board shows something that is not a legal next move (see ``problem_kind``)."""

    TYPE = "problem"
    kind: str
    points: tuple[str, ...] = ()
    message: str = ""


@dataclass(frozen=True, kw_only=True)
class ProblemCleared(GameEvent):
    TYPE = "problem_cleared"
    kind: str | None = None


@dataclass(frozen=True, kw_only=True)
class GameEnded(GameEvent):
    """``result`` in SGF style (``"B+3.5"``, ``"W+R"``); ``reason`` score/resignation/...;
    ``dead``: the stones (GTP vertices) the count lifted, ``None`` when the end named no
    count (then left out of the payload)."""

    TYPE = "game_ended"
    LEFT_OFF = ("dead",)
    result: str
    reason: str
    dead: tuple[str, ...] | None = None


@dataclass(frozen=True, kw_only=True)
class Teaching(GameEvent):
    """The teacher called move ``move_number`` (``color`` at ``vertex``) a mistake at
    ``level`` and the learner decided: ``verdict`` taken_back (an undo of the move comes
    first; the move is kept as a variation) or kept. ``points_lost`` (``None``: not
    known), ``winrate_lost`` and the ``better`` vertex are the engine's judgement."""

    TYPE = "teaching"
    color: str
    vertex: str
    verdict: str
    points_lost: float | None
    winrate_lost: float
    better: str | None
    level: str


def from_game(event: go_game.GameEvent, size: int, *, board_id: str, game_id: str, seq: int) -> GameEvent:
    """The wire event of one of a ``gobuddy.go.game.Game``'s own events (a move, a pass,
    an undo, the end), GTP vertices for its flat points; captures sorted."""
    ids: dict[str, Any] = dict(board_id=board_id, game_id=game_id, seq=seq)
    if isinstance(event, go_game.Ended):
        dead = None if event.dead is None else tuple(to_gtp(p, size) for p in event.dead)
        return GameEnded(**ids, move_number=event.move_number, result=event.result, reason=event.reason, dead=dead)
    move = event.played if isinstance(event, go_game.Undone) else event
    color, vertex = color_to_str(move.color), to_gtp(move.point, size)
    if isinstance(event, go_game.Undone):
        return Undone(**ids, move_number=move.number, color=color, vertex=vertex)
    if move.point == size * size:
        return Passed(**ids, move_number=move.number, color=color)
    return MovePlayed(**ids, move_number=move.number, color=color, vertex=vertex,
                      captures=tuple(sorted(to_gtp(p, size) for p in move.captured)))


EVENT_TYPES: dict[str, type[GameEvent]] = {
    cls.TYPE: cls
    for cls in (GameStarted, MovePlayed, Passed, Undone, ProblemRaised, ProblemCleared, GameEnded, Teaching)
}


@dataclass(frozen=True, kw_only=True)
class GameStored(Message):
    """The recorder has stored every event 0..``seq`` of a game (-1: none of them)."""

    KIND = "game_stored"
    board_id: str
    game_id: str
    seq: int
    recorder: str
    ts: int = field(default_factory=now_ms)
