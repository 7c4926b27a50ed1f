"""The live analysis half of ``dashboard.live_feed.LiveFeed``: for boards a page is
watching, the engine's answer for the position now on the board.

One ``analysis`` request in flight per board, sent again when the position moves on, so
a stale answer is never shown (answers are matched by game, move count and hash). The
request asks for partial answers every ``LIVE_REPORT_MS``: the top five shows a moment
after the search starts (then at most every ``PARTIAL_EVERY_S`` a newer one, each a
redraw of the pages that show it). A request that fails is not sent again at once:
after the worker's ``retry_after_ms`` when it was busy, else ``RETRY_S``;
``analysis_trouble`` says why. It needs the feed's ``client``, ``board``, ``request_async``,
``_lock``, ``_changed``, ``_bump``, ``_monotonic``, ``analysis_visits``,
``analysis_timeout_s`` and the state dictionaries made in its ``__init__``
(``_answers``, ``_hints``, ``_watched``, ``_pending``, ``_trouble``, ``_partial_at``).
"""

from __future__ import annotations

import uuid
from concurrent.futures import Future
from typing import Any

from dashboard.live_board import LiveBoard
from dashboard.position_request import position_request
from gobuddy.bus.messages import EngineAnswer
from gobuddy.bus.requests import EngineRequestFailed

WATCH_S = 30.0  # a board stays watched this long after a page last asked
LIVE_REPORT_MS = 150  # partial answers of the live analysis, this often
PARTIAL_EVERY_S = 1.0  # after the first, a partial answer replaces the shown one at most this often
RETRY_S = 2.0  # a failed live analysis is asked again after this (or the worker's retry_after_ms)


class LiveAnalysis:
    """The engine answers for watched boards (see the module docstring); mixed into ``LiveFeed``."""

    def watch(self, board_id: str) -> None:
        """Keep the engine's answer for ``board_id``'s position fresh for ``WATCH_S``."""
        with self._lock:
            self._watched[board_id] = self._monotonic()
        self._maybe_analyse(board_id)

    def answer_for(self, board: LiveBoard) -> EngineAnswer | None:
        """The answer for exactly the position ``board`` shows, if one came: the final
        one, or while the search runs its latest partial one (``is_during_search``)."""
        with self._lock:
            held = self._answers.get(board.board_id)
        return held[1] if held is not None and held[0] == _key(board) else None

    def hint_for(self, board: LiveBoard) -> EngineAnswer | None:
        """The last hint the board itself asked for (LED topic), if it is for this position."""
        with self._lock:
            hint = self._hints.get(board.board_id)
        return hint if hint is not None and _answers(hint, _key(board)) else None

    def analysing(self, board_id: str) -> bool:
        with self._lock:
            return board_id in self._pending

    def analysis_trouble(self, board: LiveBoard) -> str | None:
        """Why the engine gave no answer for the position ``board`` shows (the last
        request for it failed), or None."""
        with self._lock:
            trouble = self._trouble.get(board.board_id)
        return trouble[1] if trouble is not None and trouble[0] == _key(board) else None

    def _maybe_analyse(self, board_id: str) -> None:
        if self.client is None:
            return
        with self._lock:
            board = self.board(board_id)
            seen = self._watched.get(board_id)
            now = self._monotonic()
            if board is None or seen is None or now - seen > WATCH_S:
                return
            if board.position_hash is None or board.status == "idle" or board.game_id is None:
                return
            key = _key(board)
            held = self._answers.get(board_id)
            if held is not None and held[0] == key and not held[1].is_during_search:
                return
            pending = self._pending.get(board_id)
            if pending is not None and now - pending[1] < self.analysis_timeout_s:
                return  # one at a time: the next goes out when this one is answered
            trouble = self._trouble.get(board_id)
            if trouble is not None and trouble[0] == key and now < trouble[2]:
                return  # failed a moment ago: not again before its time (see _live_answer)
            token = uuid.uuid4().hex
            self._pending[board_id] = (key, now, token)
        request = position_request("analysis", size=board.size, komi=board.komi, rules=board.rules,
                                   setup=board.setup, moves=board.moves, to_play=board.to_play,
                                   visits=self.analysis_visits, timeout_s=self.analysis_timeout_s,
                                   board_id=board_id, include_ownership=True, report_every_ms=LIVE_REPORT_MS)
        try:
            future = self.request_async(request, on_partial=lambda a: self._live_partial(board_id, key, token, a))
        except Exception:
            with self._lock:
                self._pending.pop(board_id, None)
            raise
        future.add_done_callback(lambda f: self._live_answer(board_id, key, token, f))

    def _live_partial(self, board_id: str, key: tuple[Any, ...], token: str, answer: EngineAnswer) -> None:
        """A partial answer of the request in flight (paho's network thread: short)."""
        if not _answers(answer, key):
            return
        now = self._monotonic()
        with self._changed:
            pending = self._pending.get(board_id)
            held = self._answers.get(board_id)
            if pending is None or pending[2] != token:
                return
            if held is not None and held[0] == key and (not held[1].is_during_search
                                                        or now < self._partial_at.get(board_id, 0.0) + PARTIAL_EVERY_S):
                return  # the final one is here, or a partial one shown a moment ago: no redraw for this
            self._answers[board_id] = (key, answer)
            self._partial_at[board_id] = now
            self._bump()

    def _live_answer(self, board_id: str, key: tuple[Any, ...], token: str, future: Future) -> None:
        with self._changed:
            pending = self._pending.get(board_id)
            if pending is not None and pending[2] == token:
                del self._pending[board_id]
            error = future.exception()
            if error is None:
                answer = future.result()
                if _answers(answer, key):
                    self._answers[board_id] = (key, answer)
                    self._trouble.pop(board_id, None)
            else:
                wait_s = RETRY_S
                if isinstance(error, EngineRequestFailed):
                    wait_s = max(wait_s, (error.error.retry_after_ms or 0) / 1000)
                self._trouble[board_id] = (key, str(error) or type(error).__name__, self._monotonic() + wait_s)
            self._bump()
        self._maybe_analyse(board_id)


def _key(board: LiveBoard) -> tuple[Any, ...]:
    return (board.game_id, board.move_number, board.position_hash, board.to_play)


def _answers(answer: EngineAnswer, key: tuple[Any, ...]) -> bool:
    """Whether ``answer`` is about the position of ``key`` (move count and hash)."""
    return answer.position_key.hash == key[2] and answer.position_key.move_count == key[1]
