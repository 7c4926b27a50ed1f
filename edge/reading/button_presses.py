"""Pass, undo and end pressed on the board: each waits for the board to settle first.

``ButtonPresses`` is the part of ``edge.reading.reconcile.Reconciler`` that takes the board's
game buttons. ``pass``, ``undo`` and ``end_game`` change the game, once the board has
settled: a press while a stone is still settling waits for it (a corner stone that
waits too; ``end_game`` also waits for hands to leave the board), at most
``button_wait_s`` (``end_wait_s`` for end), so that what happened on the board before
the press counts first (a stone placed just before END is recorded). Presses are
applied in the order they came. After undo the board must be set back to the
recorded position (``_after_undo``). It needs the reconciler's ``game``, ``config``,
``stabiliser``, ``_now``, ``_corner``, ``_unsure``, ``_after_undo``, ``_evaluate``,
``_forget_requests``, ``start_count`` (END with ``count_first``), ``_undo_one`` (UNDO
takes back a mistake the teacher shows) and ``_with_led``.
"""

from __future__ import annotations

from typing import Any

from edge import game as board_game


class ButtonPresses:
    """The game buttons (see the module docstring); mixed into ``Reconciler``."""

    _queued: list[tuple[str, float]]

    def press(self, button: str, t: float | None = None) -> list[Any]:
        """A board button pressed at ``t`` (default: the latest frame's time): ``pass``,
        ``undo`` and ``end_game`` act here; others (hint, new game, ...) belong to the service
        and return no events. While the board is still changing (a stone just placed has
        not settled, a corner stone waits; for ``end_game`` also a hand over the board) the
        press waits, at most ``button_wait_s`` (``end_wait_s``), so that what happened on
        the board before the press counts first."""
        if button not in ("pass", "undo", "end_game") or self.game.ended:
            return []
        if self._queued or self._busy(button):
            self._queued.append((button, self._now if t is None else t))
            return []
        return self._with_led(self._apply(button))

    def press_pass(self) -> list[Any]:
        """``press("pass")``: the side to move passes; ignored when the engine is to move
        (the engine's pass comes through ``expect_engine_move``)."""
        return self.press("pass")

    def _busy(self, button: str = "") -> bool:
        return (self._corner is not None or not self.stabiliser.settled()
                or (button == "end_game" and self._unsure))

    def _wait_s(self, button: str) -> float:
        return self.config.end_wait_s if button == "end_game" else self.config.button_wait_s

    def _apply(self, button: str) -> list[Any]:
        game = self.game
        if game.ended:
            return []
        if button == "end_game":
            return self.start_count() if self.count_first else [board_game.end(game)]
        if button == "pass":
            if game.is_engine_turn():
                return []
            events: list[Any] = [board_game.pass_move(game)]
        else:
            if game.move_number == 0:
                return []
            events = self._undo_one()
            self._after_undo = True
        self._forget_requests()
        return events + self._evaluate()

    def _release_presses(self, now: float) -> list[Any]:
        """Apply the presses that waited, in order, once the board settled or they waited
        long enough."""
        events: list[Any] = []
        while self._queued and not self.game.ended:
            button, t = self._queued[0]
            if self._busy(button) and now - t < self._wait_s(button):
                break
            self._queued.pop(0)
            events += self._apply(button)
        return events
