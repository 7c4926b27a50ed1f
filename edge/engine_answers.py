"""The engine's answers on the board: hints and the engine's moves, only for the position now.

``EngineAnswers`` is the part of ``edge.agent.EdgeAgent`` that takes the engine's
answers, as the response to the agent's request (``edge.advice``) or on the board's
``led`` topic, and uses one only if its ``position_key`` (move count and position hash)
is the position on the board now (``consider``): a hint lights its point, the engine's
move lights where its stone goes (``Reconciler.show_hint``; a hint's ``reason``, asked
with it, blinks its points on a second ADVICE: ``_show_reason``,
``Reconciler.expect_engine_move``); anything else counts as a stale answer. The worker
sends the board's own answer twice (the response, and on the ``led`` topic for every
viewer): an answer id already taken is skipped, so each answer is used and counted once. A failed
request waits ``retry_s``, or as long as busy workers asked, before the next
(``_request_failed``; the status says ``engine``: ok / busy / no answer). It needs the
agent's ``reconciler``, ``record``, ``counts``, ``config``, ``log``, ``_lock``,
``_apply``, ``_engine_state``, ``_retry_at``, ``_status_at`` and ``teacher``; a judgement (purpose
``judge``) goes to ``edge.judgements``, the dead stones of a count (``count``) to
``edge.end_count``.
"""

from __future__ import annotations

import time
from collections import OrderedDict

from edge.advice import answer_key, position_key, retry_wait
from gobuddy.bus.inbox import Received
from gobuddy.bus.messages import EngineAnswer
from gobuddy.bus.requests import EngineRequestFailed
from gobuddy.go.coords import from_gtp, pass_move


ANSWER_IDS_KEPT = 256  # recent answer ids remembered (an answer comes at most twice, close together)


class EngineAnswers:
    """The engine half of the agent (see the module docstring)."""

    def _request_failed(self, purpose: str, error: Exception, request_id: str = "") -> None:
        """Wait before asking again: ``retry_s``, or longer when the workers said how long
        they are busy; the board's status says which (``engine``). A judgement that failed
        is not asked again: the move stands (``edge.teacher``)."""
        busy = isinstance(error, EngineRequestFailed) and error.busy
        with self._lock:
            if purpose == "count":
                self._count_failed(request_id)
            elif purpose == "judge":
                self.teacher.failed(request_id)
            else:
                self._retry_at = time.monotonic() + retry_wait(error, self.config.retry_s)
            self._engine_state = "busy" if busy else "no answer"
            self._status_at = 0.0

    def _on_led_topic(self, received: Received) -> None:
        self.consider(received.message, "hint")  # type: ignore[arg-type]

    _answer_ids: "OrderedDict[str, None]"

    def consider(self, answer: EngineAnswer, purpose: str) -> bool:
        """Use an engine answer if it is for the position on the board now and not taken
        already (its ``id``); True if used."""
        with self._lock:
            if answer.id in self._answer_ids:
                return False
            self._answer_ids[answer.id] = None
            while len(self._answer_ids) > ANSWER_IDS_KEPT:
                self._answer_ids.popitem(last=False)
            if purpose == "judge":
                return self._judged(answer)
            if purpose == "count":
                return self._counted(answer)
            rec = self.reconciler
            if rec is None or self.record is None or rec.game.ended:
                return False
            if answer_key(answer) != position_key(rec.game) or answer.best is None:
                self.counts["stale_answers"] += 1
                self.log.info("dropped %s answer %s: it is for position %s, the board is at %s", purpose, answer.id,
                              answer_key(answer), position_key(rec.game))
                return False
            self.counts["answers_used"] += 1
            self._engine_state = "ok"
            game, move = rec.game, answer.best.move
            point = pass_move(game.size) if move == "pass" else from_gtp(move, game.size)
            if purpose == "genmove":
                self._apply(rec.expect_engine_move(point, game.move_number))
            elif move != "pass":
                reason = answer.reason
                self._hint_reason = (answer_key(answer), tuple(from_gtp(v, game.size) for v in reason.where)) \
                    if reason is not None and reason.where else None
                self._apply(rec.show_hint(point, game.move_number))
            return True

    _hint_reason: "tuple[tuple[int, str], tuple[int, ...]] | None"

    def _show_reason(self) -> bool:
        """ADVICE while a hint is lit: blink the points its reason is about (the group
        first); False when there is none to show (then the engine is asked again)."""
        rec, kept = self.reconciler, self._hint_reason
        if rec is None or kept is None or kept[0] != position_key(rec.game):
            return False
        events = rec.show_reason(kept[1], rec.game.move_number)
        if events is None:
            return False
        self.log.info("ADVICE again: the LEDs point at what the hint's reason is about")
        self._apply(events)
        return True
