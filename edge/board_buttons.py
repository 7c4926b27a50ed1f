"""The board's buttons as the agent takes them (see ``edge.agent`` for what each does).

``BoardButtons`` is the part of ``edge.agent.EdgeAgent`` that takes a ``ButtonChange``:
TURN DONE on release (short: accept the count shown, else keep the teacher's mistake,
else a calibration step; held ``long_press_s``: recalibrate), while calibrating nothing
else; every other press is published as a ``button_event`` and acts: START a new game
(accepting a count under way), while a count is shown END accepts and UNDO disputes it,
otherwise PASS, UNDO and END go to the reconciler and ADVICE asks the engine (or, with
a hint lit, blinks what its reason is about). It needs
the agent's ``cal``, ``config``, ``health``, ``count``, ``reconciler``, ``record``,
``advisor``, ``log``, ``_last_sighting``, ``_done_down``, ``_button_seq``, ``_enqueue``,
``_apply``, ``_new_game`` and the count's and teacher's halves.
"""

from __future__ import annotations

import time

from edge.link.serial_link import ButtonChange
from gobuddy.bus import topics
from gobuddy.bus.message import now_ms
from gobuddy.bus.messages import ButtonEvent

BUTTONS = {"START": "new_game", "END": "end_game", "ADVICE": "hint", "PASS": "pass", "UNDO": "undo"}


class BoardButtons:
    """The buttons half of the agent (see the module docstring)."""

    def _on_button(self, press: ButtonChange) -> None:
        if press.name == "DONE":
            if press.down:
                self._done_down = press.t
            elif self._done_down is not None:
                held, self._done_down = press.t - self._done_down, None
                if held < self.config.long_press_s and not self.cal.active and self.count is not None:
                    self._players_accept()  # TURN DONE: the players accept the count
                    return
                if held < self.config.long_press_s and not self.cal.active and self._keep_mistake():
                    return  # TURN DONE: the learner keeps the move the teacher called a mistake
                mismatch = self.health is not None and self.health.mismatch
                if not self.cal.on_done(held >= self.config.long_press_s, time.monotonic(), self._last_sighting,
                                        anyway=mismatch):
                    self.advisor.forget("genmove")  # ask the engine again if it is to move
            return
        if self.cal.active:
            if press.down:
                self.log.info("%s ignored: the board is calibrating", press.name)
            return
        action = BUTTONS.get(press.name)
        if action is None or not press.down:
            return
        self._enqueue(topics.board_button(self.config.board_id), ButtonEvent(
            board_id=self.config.board_id, seq=self._button_seq_next(), button=action, press="short"))
        if action == "new_game":
            if self.count is not None:
                self._accept_count()  # a new game accepts the count of the last one
            self._new_game()
            return
        rec = self.reconciler
        if rec is None or rec.game.ended:
            return
        if self.count is not None:  # the players look at the count
            if action == "end_game":
                self._players_accept()
            elif action == "undo":
                self._dispute_count()
            return
        if action in ("pass", "undo", "end_game"):
            self._apply(rec.press(action, press.t))
        elif action == "hint" and self.record is not None:
            if self._show_reason():  # a second press while the hint is lit: what its reason is about
                return
            purpose = "genmove" if rec.game.is_engine_turn() else "hint"
            self.advisor.forget(purpose)
            self.advisor.ask(self.record, purpose)

    def _button_seq_next(self) -> int:
        """Button events' ``seq``: Unix ms of the press, kept increasing (survives restarts)."""
        self._button_seq = max(self._button_seq + 1, now_ms())
        return self._button_seq
