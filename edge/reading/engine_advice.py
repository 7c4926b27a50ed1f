"""The engine's advice on the board: where the engine's stone goes, a hint, and its reason.

``EngineAdvice`` is the part of ``edge.reading.reconcile.Reconciler`` that takes what the
engine said about the position now (each ignored when it is for another position):
``expect_engine_move`` (against the engine: its point lights until a stone is placed
there; a pass is played at once), ``show_hint`` (a point lit steady until the game
changes) and ``show_reason`` (instead of the lit hint, the points its reason is about
blink, the group first). It needs the reconciler's ``game``, ``counting``,
``_engine_move``, ``_hint``, ``_reason``, ``_evaluate``, ``_forget_requests`` and
``_with_led``.
"""

from __future__ import annotations

from typing import Any

from edge import game as board_game
from gobuddy.go.coords import pass_move
from gobuddy.go.game import Game


class EngineAdvice:
    """The engine's advice (see the module docstring); mixed into ``Reconciler``."""

    game: Game
    counting: tuple[int, ...] | None
    _engine_move: int | None
    _hint: int | None
    _reason: tuple[int, ...]

    def expect_engine_move(self, point: int, move_number: int) -> list[Any]:
        """The engine's answer for the position after ``move_number`` moves: a flat point
        (its LED lights until a stone is placed there) or pass (played at once). Ignored
        when stale or when the engine is not to move."""
        game = self.game
        if game.ended or self.counting is not None or not game.is_engine_turn() or move_number != game.move_number:
            return []
        if point == pass_move(game.size):
            events: list[Any] = [board_game.pass_move(game)]
            self._forget_requests()
            return self._with_led(events + self._evaluate())
        self._engine_move = point
        return self._with_led(self._evaluate())

    def show_hint(self, point: int | None, move_number: int) -> list[Any]:
        """Light ``point`` as a hint for the position after ``move_number`` moves (ignored
        when stale); ``None`` hides the hint. The hint goes when the game changes."""
        self._reason = ()
        if point is None:
            self._hint = None
        elif move_number == self.game.move_number and point != pass_move(self.game.size):
            self._hint = point
        return self._with_led([])

    def show_reason(self, points: tuple[int, ...], move_number: int) -> list[Any] | None:
        """Blink ``points`` (what the lit hint's reason is about, its group first) instead
        of the hint, until the game changes or a hint comes; ``None`` (nothing shown) when
        no hint for this position is lit, or its reason already blinks."""
        if self._hint is None or self._reason or move_number != self.game.move_number or not points:
            return None
        self._reason = tuple(points)
        return self._with_led([])
