"""The engine's advice for one board: hint and genmove requests, and which answers still count.

``Advisor.ask`` sends an ``engine_request`` about the game on the board (setup, moves,
komi; rules ``chinese``) at most once per position and purpose (``hint`` or
``genmove``), on a small thread pool so that the agent never waits for the engine.
``judge`` asks the teacher's judgement of the last move (``edge.teacher``): an
``analysis`` of the position before it with ``judge`` {move, level}, sent each time it
is called (the teacher keeps what it asked); ``count`` asks which stones count dead at
the end (``final_status``: ``edge.end_count``), with its own time limit. The final answer goes to
``on_answer(answer, purpose)`` (purpose ``judge`` for a judgement); a failure (timeout,
worker error — ``EngineRequestFailed.busy`` when the workers said they are too busy —,
broker gone) to ``on_failure(purpose, error, request_id)`` after the request is
forgotten, so that an ``ask`` sends it again once ``retry_wait`` has passed (``ask``
refuses before that, whatever position it is for: the workers' own wait is kept even
when the agent's loop asks in the moment the failure arrives).

``position_key(game)`` is what an ``engine_answer`` must carry to be for the position
on the board now: the moves played (``Position.move_count``) and ``position_hash``
(``gobuddy.go.game``), as the engine worker computes them. Not done here: deciding
what an answer lights (``edge.agent``).
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from dataclasses import replace
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

from edge.game import RULES
from edge.journal.game_journal import GameLog
from gobuddy.go.game import Game, position_hash
from gobuddy.bus import BusClient
from gobuddy.bus.message import now_ms
from gobuddy.bus.messages import EngineAnswer, EngineRequest, Judge, Position
from gobuddy.bus.requests import EngineRequestFailed
from gobuddy.go.coords import color_to_str


def position_key(game: Game) -> tuple[int, str]:
    """(move count, 16-hex-digit hash) of the game's current position."""
    return game.position.move_count, position_hash(game.position)


def retry_wait(error: Exception, retry_s: float) -> float:
    """Seconds to wait before asking again after ``error``: ``retry_s``, or longer when
    the workers said how long they are busy (``retry_after_ms``)."""
    after = error.error.retry_after_ms if isinstance(error, EngineRequestFailed) and error.busy else None
    return max(retry_s, after / 1000) if after else retry_s


def answer_key(answer: EngineAnswer) -> tuple[int, str]:
    return answer.position_key.move_count, answer.position_key.hash


class Advisor:
    """Sends a board's engine requests; see the module docstring. Thread-safe."""

    def __init__(self, bus: BusClient, board_id: str, *, visits: int, think_ms: int, timeout_s: float,
                 on_answer: Callable[[EngineAnswer, str], None],
                 on_failure: Callable[[str, Exception, str], None],
                 retry_s: float = 5.0, logger: logging.Logger | None = None) -> None:
        self.bus, self.board_id = bus, board_id
        self.visits, self.think_ms, self.timeout_s, self.retry_s = visits, think_ms, timeout_s, retry_s
        self._on_answer, self._on_failure = on_answer, on_failure
        self.log = logger or logging.getLogger("edge.advice")
        self._asked: dict[str, tuple] = {}
        self._not_before = 0.0  # monotonic: no hint or genmove before (a failure's retry_wait)
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._pool = ThreadPoolExecutor(2, thread_name_prefix="edge-engine")

    def ask(self, record: GameLog, purpose: str) -> bool:
        """Request ``purpose`` for the record's position unless already asked; True if sent."""
        game = record.game
        key = (record.game_id, *position_key(game))
        with self._lock:
            if (self._asked.get(purpose) == key or time.monotonic() < self._not_before
                    or not self.bus.is_connected()):
                return False
            self._asked[purpose] = key
        explain = {"explain": True} if purpose == "hint" else {}  # its reason: ADVICE again points at it
        self._send(self._request_for(record, purpose, record.moves(), game.to_play, **explain), purpose, key)
        return True

    def judge(self, record: GameLog, level: str) -> str | None:
        """Ask the judgement of the record's last move by a learner of ``level``; the
        request id, or ``None`` when there is no move or no broker."""
        game = record.game
        if not game.played or not self.bus.is_connected():
            return None
        moves = record.moves()
        return self._send(self._request_for(record, "analysis", moves[:-1], game.played[-1].color, "judge",
                                            judge=Judge(move=moves[-1][1], level=level)), "judge")

    def count(self, record: GameLog, timeout_s: float) -> str | None:
        """Ask which stones of the record's position count dead (``final_status``, with
        the search's ownership), within ``timeout_s``; the request id, or ``None`` with
        no broker. The answer goes to ``on_answer(answer, "count")``."""
        if not self.bus.is_connected():
            return None
        request = self._request_for(record, "analysis", record.moves(), record.game.to_play, "count",
                                    include_ownership=True, final_status=True,
                                    deadline_ms=now_ms() + int(timeout_s * 1000))
        return self._send(request, "count", None, timeout_s)

    def _request_for(self, record: GameLog, purpose: str, moves: tuple[tuple[str, str], ...],
                     to_play: int, label: str | None = None, **fields: object) -> EngineRequest:
        """A request of wire ``purpose`` about ``moves`` of the record's game; ``label``
        (default: ``purpose``) names it in its id; ``fields`` replace the defaults."""
        game = record.game
        request = EngineRequest(
            id=f"{self.board_id}:{label or purpose}:{len(moves)}:{next(self._ids)}", board_id=self.board_id,
            purpose=purpose, position=Position(size=game.size, komi=game.komi, rules=RULES, moves=moves,
                                               setup=record.setup(), to_play=None if moves else color_to_str(to_play)),
            max_visits=self.visits, max_time_ms=self.think_ms, deadline_ms=now_ms() + int(self.timeout_s * 1000))
        return replace(request, **fields) if fields else request

    def _send(self, request: EngineRequest, purpose: str, key: tuple | None = None,
              timeout_s: float | None = None) -> str:
        """Submit ``request`` to the pool (see ``_request``); its id."""
        self._pool.submit(self._request, request, purpose, key, timeout_s)
        return request.id

    def forget(self, purpose: str | None = None) -> None:
        """Allow asking again for ``purpose`` (every purpose when ``None``)."""
        with self._lock:
            if purpose is None:
                self._asked.clear()
            else:
                self._asked.pop(purpose, None)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _request(self, request: EngineRequest, purpose: str, key: tuple | None,
                 timeout_s: float | None = None) -> None:
        try:
            answer = self.bus.request(request, timeout_s=(self.timeout_s if timeout_s is None else timeout_s) + 1.0)
        except Exception as exc:
            self.log.warning("engine %s request %s failed: %s", purpose, request.id, exc)
            with self._lock:
                if key is not None and self._asked.get(purpose) == key:
                    self._not_before = max(self._not_before, time.monotonic() + retry_wait(exc, self.retry_s))
                    del self._asked[purpose]
            self._on_failure(purpose, exc, request.id)
            return
        self._on_answer(answer, purpose)
