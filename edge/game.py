"""The live game on one board: settings, the move list (the truth), and its events.

A ``Game`` starts from ``GameSettings`` (size, komi, handicap, mode), then takes moves,
passes and undos until it ends (two passes then a count, or a resignation). The list
of moves is the record; the ``Position`` is derived from it (kept up to date while
playing, rebuilt by replay on undo). Every change returns an event object, a frozen
dataclass whose fields follow ``schemas/game_event.schema.json`` (vertices as GTP
strings, colours as ``"B"``/``"W"``), ready for the service to publish.

Modes: two players with a hint after every move, two players with hints on request
(a button), or one player against the engine (the engine's colour is given).

Not here: reading the board (``edge.reconcile``), time, and agreeing on dead stones
(``end`` takes them from the caller; by default all stones count as alive).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from gobuddy.go.coords import BLACK, WHITE, color_to_str, pass_move, to_gtp
from gobuddy.go.handicap import fixed_handicap_points
from gobuddy.go.position import IllegalMove, Position
from gobuddy.go.record import GameRecord
from gobuddy.go.scoring import area_score


class Mode(enum.Enum):
    """How the game is played; ``wire`` is the ``mode`` of the game_started message."""

    HINTS_EVERY_MOVE = "hints_every_move"
    HINTS_ON_REQUEST = "hints_on_request"
    VS_ENGINE = "vs_engine"

    @property
    def wire(self) -> str:
        return "vs_engine" if self is Mode.VS_ENGINE else "two_players"


class GameError(ValueError):
    """An action the game cannot take now (nothing to undo, game over, bad settings)."""


@dataclass(frozen=True)
class GameSettings:
    """``handicap`` 0 (or 2..9 fixed stones: white moves first), ``engine_color`` the
    engine's side (``BLACK``/``WHITE``) in ``VS_ENGINE`` mode and ``None`` otherwise,
    ``superko`` positional superko (else simple ko)."""

    size: int = 9
    komi: float = 7.0
    handicap: int = 0
    mode: Mode = Mode.HINTS_ON_REQUEST
    engine_color: int | None = None
    superko: bool = True

    def __post_init__(self) -> None:
        if self.handicap == 1 or self.handicap < 0:
            raise GameError(f"handicap must be 0 or from 2 up, got {self.handicap}")
        if self.mode is Mode.VS_ENGINE and self.engine_color not in (BLACK, WHITE):
            raise GameError("a game against the engine needs engine_color BLACK or WHITE")
        if self.mode is not Mode.VS_ENGINE and self.engine_color is not None:
            raise GameError(f"engine_color is only for {Mode.VS_ENGINE.value} games")
        if (self.komi * 2) != int(self.komi * 2):
            raise GameError(f"komi must be a multiple of 0.5, got {self.komi}")


@dataclass(frozen=True)
class MovePlayed:
    """A stone played: ``move_number`` (1-based, passes counted), ``color``, ``vertex``
    and the ``captures`` it made (GTP vertices, possibly none)."""

    move_number: int
    color: str
    vertex: str
    captures: tuple[str, ...] = ()


@dataclass(frozen=True)
class Passed:
    move_number: int
    color: str


@dataclass(frozen=True)
class Undone:
    """Move ``move_number`` (``color``, ``vertex`` or ``"pass"``) was taken back."""

    move_number: int
    color: str
    vertex: str


@dataclass(frozen=True)
class GameEnded:
    """``result`` in SGF style (``B+3.5``, ``W+R``, ``0``); ``reason`` ``score`` or
    ``resignation``; ``move_number`` the moves played."""

    move_number: int
    result: str
    reason: str


GameEvent = MovePlayed | Passed | Undone | GameEnded


@dataclass(frozen=True)
class StoneMove:
    """A stone move of the record: its ``number``, ``color``, ``point`` and ``captures``
    (flat points)."""

    number: int
    color: int
    point: int
    captures: tuple[int, ...]


@dataclass
class _Played:
    color: int
    point: int
    captures: tuple[int, ...]
    board_after: tuple[int, ...] = field(repr=False)


class Game:
    """One game on the board. ``position`` is derived and must not be changed by callers."""

    def __init__(self, settings: GameSettings = GameSettings()) -> None:
        self.settings = settings
        self.size = settings.size
        self.handicap_points: tuple[int, ...] = (
            tuple(fixed_handicap_points(settings.size, settings.handicap)) if settings.handicap else ())
        self._played: list[_Played] = []
        self.result: str | None = None
        self.position = self._start_position()
        self._start_board = tuple(self.position.board)

    # ------------------------------------------------------------------ reading
    @property
    def move_number(self) -> int:
        """Moves played so far, passes included."""
        return len(self._played)

    @property
    def to_play(self) -> int:
        return self.position.to_play

    @property
    def ended(self) -> bool:
        return self.result is not None

    @property
    def moves(self) -> list[tuple[int, int]]:
        """The record: ``(colour, flat point or pass)`` in order."""
        return [(m.color, m.point) for m in self._played]

    def is_engine_turn(self) -> bool:
        """True in a game against the engine when the engine is to move."""
        return self.settings.mode is Mode.VS_ENGINE and self.to_play == self.settings.engine_color

    def board_after(self, moves: int) -> tuple[int, ...]:
        """The stones (flat, ``BLACK``/``WHITE``/``EMPTY``) after the first ``moves`` moves."""
        if not 0 <= moves <= len(self._played):
            raise GameError(f"the game has {len(self._played)} moves, not {moves}")
        return self._start_board if moves == 0 else self._played[moves - 1].board_after

    def last_stone_move(self) -> StoneMove | None:
        """The latest move that was not a pass, or ``None``."""
        n = pass_move(self.size)
        for i in range(len(self._played) - 1, -1, -1):
            m = self._played[i]
            if m.point != n:
                return StoneMove(i + 1, m.color, m.point, m.captures)
        return None

    def record(self) -> GameRecord:
        """The game as a ``GameRecord`` (for SGF and the database)."""
        s = self.settings
        return GameRecord.from_moves(s.size, s.komi, self.moves, setup_black=self.handicap_points,
                                     handicap=s.handicap, result=self.result)

    # ------------------------------------------------------------------ changing
    def play(self, point: int) -> MovePlayed:
        """The side to move plays ``point`` (flat). Raises ``IllegalMove`` with the reason
        (occupied, suicide, ko, superko) or ``GameError`` when the game is over."""
        self._check_open()
        if point == pass_move(self.size):
            raise GameError("use pass_move() to pass")
        color = self.position.to_play
        captures = tuple(sorted(self.position.play(point)))
        self._played.append(_Played(color, point, captures, tuple(self.position.board)))
        return MovePlayed(len(self._played), color_to_str(color), to_gtp(point, self.size),
                          tuple(to_gtp(p, self.size) for p in captures))

    def pass_move(self) -> Passed:
        """The side to move passes (always legal while the game is open)."""
        self._check_open()
        color = self.position.to_play
        self.position.play(pass_move(self.size))
        self._played.append(_Played(color, pass_move(self.size), (), tuple(self.position.board)))
        return Passed(len(self._played), color_to_str(color))

    def undo(self) -> Undone:
        """Take back the last move (``GameError`` if there is none or the game is over)."""
        self._check_open()
        if not self._played:
            raise GameError("there is no move to undo")
        last = self._played.pop()
        self.position = self._start_position()
        for m in self._played:
            self.position.play(m.point, m.color, check=False)
        return Undone(len(self._played) + 1, color_to_str(last.color), to_gtp(last.point, self.size))

    def both_passed(self) -> bool:
        """True when the last two moves were passes (time to count)."""
        n = pass_move(self.size)
        return len(self._played) >= 2 and self._played[-1].point == n and self._played[-2].point == n

    def end(self, dead: tuple[int, ...] = (), result: str | None = None) -> GameEnded:
        """Finish by counting (area scoring with komi, ``dead`` stones lifted first), or
        with an agreed ``result`` string. Not checked: that both players passed."""
        self._check_open()
        if result is None:
            result = area_score(self.position, self.settings.komi, dead).result
        self.result = result
        return GameEnded(len(self._played), result, "score")

    def resign(self, color: int) -> GameEnded:
        """``color`` resigns: the other side wins (``B+R`` / ``W+R``)."""
        self._check_open()
        self.result = f"{color_to_str(-color)}+R"
        return GameEnded(len(self._played), self.result, "resignation")

    # ------------------------------------------------------------------ inside
    def _start_position(self) -> Position:
        s = self.settings
        pos = Position(s.size, superko=s.superko, to_play=WHITE if s.handicap else BLACK)
        for p in self.handicap_points:
            pos.place(p, BLACK)
        return pos

    def _check_open(self) -> None:
        if self.result is not None:
            raise GameError(f"the game is over ({self.result})")


__all__ = ["Game", "GameSettings", "Mode", "GameError", "IllegalMove", "MovePlayed", "Passed",
           "Undone", "GameEnded", "GameEvent", "StoneMove"]
