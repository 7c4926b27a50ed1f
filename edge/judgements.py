"""The teacher's judgements on the board: asked, waited for, shown, kept.

``Judgements`` is the part of ``edge.agent.EdgeAgent`` that runs the teacher
(``edge.teacher``): ``_ask_judgement`` asks the workers to judge the learner's last stone
(once), ``_teacher_waits`` tells the engine's reply to wait (a judgement out, or a
mistake waiting for the learner), ``_judged`` shows a mistake of the board's last move
(``Reconciler.show_mistake``; a judgement of a move no longer last is stale),
``_keep_mistake`` is TURN DONE keeping it, ``_set_teaching`` the dashboard's
``set_teaching``. It needs the agent's ``teacher``, ``advisor``, ``reconciler``,
``record``, ``counts``, ``log``, ``_lock``, ``_apply``, ``_engine_state`` and ``_status_at``.
"""

from __future__ import annotations

from edge.teacher import Mistake, move_key
from gobuddy.bus.board_messages import BoardCommand
from gobuddy.bus.messages import EngineAnswer


class Judgements:
    """The teacher half of the agent (see the module docstring)."""

    def _ask_judgement(self) -> None:
        """Ask the teacher's judgement of the learner's last stone, once."""
        record = self.record
        assert record is not None
        key = self.teacher.wants(record.game_id, record.game)
        if key is not None and self.teacher.level is not None:
            request_id = self.advisor.judge(record, self.teacher.level)
            if request_id is not None:
                self.teacher.asked(key, request_id)

    def _teacher_waits(self) -> bool:
        """The engine's reply waits: the judgement of the learner's move is out, or a
        mistake waits for the learner's decision."""
        rec, record = self.reconciler, self.record
        if rec is None or record is None:
            return False
        return rec.mistake is not None or self.teacher.holds(record.game_id, rec.game)

    def _judged(self, answer: EngineAnswer) -> bool:
        """The teacher's judgement of a learner's move: a mistake of the board's last move
        blinks until the learner decides; a judgement of a move no longer last is stale."""
        key = self.teacher.answered(answer.id)
        rec, record = self.reconciler, self.record
        if rec is None or record is None or key is None or answer.judgement is None:
            return False
        if key != move_key(record.game_id, rec.game):
            self.counts["stale_answers"] += 1
            return False
        self.counts["answers_used"] += 1
        self._engine_state = "ok"
        mistake = Mistake.of(answer.judgement, rec.game)
        judgement = answer.judgement
        self.log.info("move %d %s %s judged at %s: %s (loses %s points, %.0f%%; better %s)", key[1],
                      judgement.color, judgement.move, judgement.level, "a mistake" if mistake else "fine",
                      judgement.points_lost, 100 * judgement.winrate_lost, judgement.best)
        if mistake is not None:
            self._apply(rec.show_mistake(mistake))
        return True

    def _keep_mistake(self) -> bool:
        """TURN DONE: keep the mistake the LEDs show; False when none waits."""
        rec = self.reconciler
        if rec is None or rec.mistake is None:
            return False
        self._apply(rec.keep())
        return True

    def _set_teaching(self, command: BoardCommand) -> None:
        """The dashboard's ``set_teaching``: the teacher's level from now on (``None``: off)."""
        with self._lock:
            self.teacher.level = command.level
            self._status_at = 0.0
        self.log.info("%s set the teacher to %s", command.by, command.level or "off")
