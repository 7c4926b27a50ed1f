"""The teacher's stop on the board: a mistake blinks until the learner decides.

``TeacherStops`` is the part of ``edge.reading.reconcile.Reconciler`` that holds the
teacher's call on the last move (``mistake``, an ``edge.teacher.Mistake``):
``show_mistake`` blinks its stone and the better point (``led_pattern``: after a
problem and captures to remove, before the engine's point and a hint); the board set
back to the position before it, or UNDO, takes it back (``_undo_one``:
``Game.take_back``, kept as a variation with its point loss); TURN DONE (``keep``), or
any later move, pass or end (``_kept_by_play``) keeps it. Each decision is one
``Decided`` event, before the move that went on. It needs the reconciler's ``game`` and
``_with_led``.
"""

from __future__ import annotations

from typing import Any

from edge import game as board_game
from edge.teacher import Decided, Mistake
from gobuddy.go.game import Ended, Game, Played


class TeacherStops:
    """The teacher's stop (see the module docstring); mixed into ``Reconciler``."""

    game: Game
    mistake: Mistake | None

    def show_mistake(self, mistake: Mistake) -> list[Any]:
        """Blink the teacher's ``mistake`` (its stone, then the better point) until the
        learner decides; ignored unless it is the game's last move."""
        if mistake.is_last(self.game):
            self.mistake = mistake
        return self._with_led([])

    def keep(self) -> list[Any]:
        """The learner keeps the mistake shown (TURN DONE): ``Decided`` kept; nothing when
        no mistake waits."""
        mistake, self.mistake = self.mistake, None
        return self._with_led([Decided(mistake, "kept")] if mistake is not None else [])

    def _undo_one(self) -> list[Any]:
        """Take back the last move: the teacher's mistake waiting is taken back and kept
        as a variation (``Decided`` taken_back), any other move undone."""
        mistake = self.mistake
        if mistake is not None and mistake.is_last(self.game):
            self.mistake = None
            return [board_game.take_back(self.game, mistake.points_lost, mistake.better),
                    Decided(mistake, "taken_back")]
        return [board_game.undo(self.game)]

    def _kept_by_play(self, events: list[Any]) -> None:
        """Play went on past a mistake shown (a move, a pass, the end): ``Decided`` kept,
        put before the event that went on."""
        m = self.mistake
        if m is not None and not m.is_last(self.game):
            self.mistake = None
            at = next((i for i, e in enumerate(events) if isinstance(e, (Played, Ended))), len(events))
            events.insert(at, Decided(m, "kept"))

    def _mistake_points(self) -> tuple[int, ...]:
        """What the LEDs blink for the mistake shown: its stone, then the better point."""
        m = self.mistake
        if m is None:
            return ()
        return (m.point,) if m.better is None else (m.point, m.better)
