"""The game on the physical board: how one is set up, and the board's ways of changing it.

The game itself (record, position, replay, hash, events) is ``gobuddy.go.game.Game``;
this module adds what only the board has: ``GameSettings`` (size, komi, handicap, how
hints are given, the engine's colour) and the changes a board makes, each refused once
the game ended and each returning the game's own event (``Played`` for a move or a pass,
``Undone``, ``Ended``, which names the dead stones of a count) for ``edge.journal.game_journal`` to put on the wire; a move the
teacher called a mistake is taken back with ``take_back`` (kept as a variation).

Modes: two players with a hint after every move, two players with hints on request
(a button), or one player against the engine (the engine's colour is given).

Not here: reading the board (``edge.reading.reconcile``), time, and agreeing on dead stones
(``end`` takes them from the caller; by default all stones count as alive).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from gobuddy.go.coords import BLACK, WHITE
from gobuddy.go.game import Ended, Game, GameError, Played, Ruleset, Undone

RULES = "chinese"  # what the board plays: area scoring, positional superko (simple ko on request)


class Mode(enum.Enum):
    """How the game is played; ``wire`` is the ``mode`` of the game_started message."""

    HINTS_EVERY_MOVE = "hints_every_move"
    HINTS_ON_REQUEST = "hints_on_request"
    VS_ENGINE = "vs_engine"

    @property
    def wire(self) -> str:
        return "vs_engine" if self is Mode.VS_ENGINE else "two_players"


@dataclass(frozen=True)
class GameSettings:
    """``handicap`` 0 (or 2..9 fixed stones: white moves first), ``engine_color`` the
    engine's side (``BLACK``/``WHITE``) in ``VS_ENGINE`` mode and ``None`` otherwise,
    ``superko`` positional superko (else simple ko). ``GameError`` for settings that
    cannot be played."""

    size: int = 9
    komi: float = 7.0
    handicap: int = 0
    mode: Mode = Mode.HINTS_ON_REQUEST
    engine_color: int | None = None
    superko: bool = True

    def __post_init__(self) -> None:
        if self.handicap == 1 or self.handicap < 0:
            raise GameError(f"handicap must be 0 or from 2 up, got {self.handicap}", 0)
        if self.mode is Mode.VS_ENGINE and self.engine_color not in (BLACK, WHITE):
            raise GameError("a game against the engine needs engine_color BLACK or WHITE", 0)
        if self.mode is not Mode.VS_ENGINE and self.engine_color is not None:
            raise GameError(f"engine_color is only for {Mode.VS_ENGINE.value} games", 0)
        if (self.komi * 2) != int(self.komi * 2):
            raise GameError(f"komi must be a multiple of 0.5, got {self.komi}", 0)

    @property
    def ruleset(self) -> Ruleset:
        return Ruleset(RULES, self.komi, simple_ko=not self.superko)

    def new_game(self) -> Game:
        """An empty game with these settings (handicap stones set, the engine's side named)."""
        game = Game.with_handicap(self.size, self.ruleset, self.handicap)
        game.engine_color = self.engine_color
        return game


def play(game: Game, point: int) -> Played:
    """The side to move plays the stone ``point`` (flat). ``GameError`` names the move
    when it is illegal, a pass, or the game is over; the game is then unchanged."""
    _check_open(game)
    if point == game.pass_point:
        raise GameError("use pass_move() to pass", game.move_number + 1)
    game.play(point)
    return game.played[-1]


def pass_move(game: Game) -> Played:
    """The side to move passes (always legal while the game is open)."""
    _check_open(game)
    game.play(game.pass_point)
    return game.played[-1]


def undo(game: Game) -> Undone:
    """Take back the last move (``GameError`` if there is none or the game is over)."""
    _check_open(game)
    return Undone(game.undo())


def take_back(game: Game, points_lost: float | None, better: int | None) -> Undone:
    """Take back the last move after the teacher's warning: undone, and kept in the
    game's variations with its ``points_lost`` and the ``better`` point (``Game.take_back``)."""
    _check_open(game)
    played = game.played
    game.take_back(points_lost, better)
    return Undone(played[-1])


def end(game: Game, dead: tuple[int, ...] = (), result: str | None = None) -> Ended:
    """Finish by counting (``Game.count``: area scoring with komi, ``dead`` stones lifted
    first and named in the ``Ended``), or with an agreed ``result``. Not checked: that
    both players passed."""
    _check_open(game)
    return game.finish(result) if result is not None else game.count(dead)


def resign(game: Game, color: int) -> Ended:
    """``color`` resigns: the other side wins."""
    _check_open(game)
    return game.resign(color)


def _check_open(game: Game) -> None:
    if game.ended:
        raise GameError(f"the game is over ({game.result})", game.move_number)


__all__ = ["GameSettings", "Mode", "RULES", "play", "pass_move", "undo", "take_back", "end", "resign"]
