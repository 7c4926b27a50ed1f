"""The count's stop on the board: the game waits while the players look at the dead stones.

``CountStops`` is the part of ``edge.reading.reconcile.Reconciler`` that holds a count
under way (``counting``: ``None`` while playing, else the dead stones to blink, empty
until they are known; ``edge.end_count``). With ``count_first``, END and the second pass
start a count (``start_count``: a ``CountStarted`` event) instead of ending the game;
meanwhile stable boards are kept but not read as moves. ``accept_count`` ends the game
with the stones counted dead; ``resume_play`` goes back to playing (the pass that ended
the game is taken back) and reads the board as it is now. It needs the reconciler's
``game``, ``stable``, ``end``, ``_evaluate`` and ``_with_led``.
"""

from __future__ import annotations

from typing import Any, Sequence

from edge import game as board_game
from edge.end_count import CountStarted
from gobuddy.go.game import Game


class CountStops:
    """The count's stop (see the module docstring); mixed into ``Reconciler``."""

    game: Game
    counting: tuple[int, ...] | None
    count_first: bool

    def start_count(self) -> list[Any]:
        """The game would end now: count first (``CountStarted``); nothing when counting
        already or the game is over."""
        if self.game.ended or self.counting is not None:
            return []
        self.counting = ()
        return self._with_led([CountStarted(self.game.move_number)])  # type: ignore[attr-defined]

    def show_dead(self, points: Sequence[int]) -> list[Any]:
        """Blink ``points`` (flat: the stones counted dead) while the count waits."""
        if self.counting is not None:
            self.counting = tuple(points)
        return self._with_led([])  # type: ignore[attr-defined]

    def accept_count(self, dead: Sequence[int]) -> list[Any]:
        """End the game by counting with ``dead`` lifted (``Ended``)."""
        self.counting = None
        return self.end(tuple(dead))  # type: ignore[attr-defined]

    def resume_play(self) -> list[Any]:
        """Back to playing: the last pass is taken back when both passed; the board is
        read again as it stands."""
        if self.counting is None or self.game.ended:
            return []
        self.counting = None
        events: list[Any] = [board_game.undo(self.game)] if self.game.both_passed() else []
        return self._with_led(events + self._evaluate())  # type: ignore[attr-defined]
