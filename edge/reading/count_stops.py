"""The count's stop on the board: the game waits while the players look at the dead stones.

``CountStops`` is the part of ``edge.reading.reconcile.Reconciler`` that holds a count
under way (``counting``: ``None`` while playing, else the dead stones to blink, empty
until they are known; ``edge.end_count``). With ``count_first``, END and the second pass
start a count (``start_count``: a ``CountStarted`` event) instead of ending the game;
meanwhile stable boards are read only for the players' choices, never as moves
(``count_board``): lifting a stone of a group toggles the group between dead and alive,
a group with every stone off counts dead (``edge.reading.count_groups``); a change is a
``CountChanged`` event and the LEDs blink the groups now counted dead (a stone of each
group first, at most ``LED_BLINK_MAX``). ``show_dead`` takes the workers' proposal,
``restore_count`` a journalled count after a restart; ``count_dead`` is every stone
counted dead now. ``accept_count`` ends the game with the stones counted dead;
``resume_play`` goes back to playing (the pass that ended the game is taken back) and
reads the board as it is now. It needs the reconciler's ``game``, ``points``, ``end``,
``_evaluate`` and ``_with_led``.
"""

from __future__ import annotations

from typing import Any, Sequence

from edge import game as board_game
from edge.end_count import CountChanged, CountStarted, blink_order
from edge.link.board_view import LED_BLINK_MAX
from edge.reading.count_groups import CountGroups
from gobuddy.go.game import Game


class CountStops:
    """The count's stop (see the module docstring); mixed into ``Reconciler``."""

    game: Game
    counting: tuple[int, ...] | None
    count_first: bool
    count_groups: CountGroups | None

    def start_count(self) -> list[Any]:
        """The game would end now: count first (``CountStarted``); nothing when counting
        already or the game is over."""
        if self.game.ended or self.counting is not None:
            return []
        self.counting = ()
        self.count_groups = CountGroups(self.game.position.board, self.game.size)
        return self._with_led([CountStarted(self.game.move_number)])  # type: ignore[attr-defined]

    def show_dead(self, points: Sequence[int]) -> list[Any]:
        """The workers' proposal (flat points): its groups, with the players' toggles so
        far, blink while the count waits."""
        if self.counting is not None and self.count_groups is not None:
            self.count_groups.propose(points)
            self._blink_dead()
        return self._with_led([])  # type: ignore[attr-defined]

    def restore_count(self, snapshot: dict[str, Any]) -> list[Any]:
        """Start the count again as journalled (``CountGroups.snapshot``) after a restart:
        the same stones blink; no ``CountStarted`` (the workers are not asked again)."""
        if self.game.ended:
            return []
        self.counting = ()
        self.count_groups = CountGroups(self.game.position.board, self.game.size)
        self.count_groups.restore(snapshot)
        self._blink_dead()
        return self._with_led([])  # type: ignore[attr-defined]

    @property
    def count_dead(self) -> tuple[int, ...]:
        """Every stone counted dead now (empty when no count is under way)."""
        return self.count_groups.dead if self.counting is not None and self.count_groups is not None else ()

    def count_board(self, board: Sequence[int]) -> list[Any]:
        """A stable board during the count (masked points read as the game has them):
        ``CountChanged`` when the players' lifts changed the dead stones; never a move."""
        groups = self.count_groups
        if self.counting is None or groups is None or not groups.see(board):
            return []
        self._blink_dead()
        return self._with_led([CountChanged(self.game.move_number, groups.dead)])  # type: ignore[attr-defined]

    def _blink_dead(self) -> None:
        assert self.count_groups is not None
        self.counting = blink_order(self.count_groups.dead, self.game.position.board,
                                    self.game.size)[:LED_BLINK_MAX]

    def accept_count(self, dead: Sequence[int]) -> list[Any]:
        """End the game by counting with ``dead`` lifted (``Ended``, with them)."""
        self.counting = self.count_groups = None
        return self.end(tuple(dead))  # type: ignore[attr-defined]

    def resume_play(self) -> list[Any]:
        """Back to playing: the last pass is taken back when both passed; the board is
        read again as it stands."""
        if self.counting is None or self.game.ended:
            return []
        self.counting = self.count_groups = None
        events: list[Any] = [board_game.undo(self.game)] if self.game.both_passed() else []
        return self._with_led(events + self._evaluate())  # type: ignore[attr-defined]
