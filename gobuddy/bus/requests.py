"""Outstanding engine requests of one client, matched to answers by Correlation Data.

Each request gets random Correlation Data (16 bytes); an answer whose Correlation Data
is unknown (late, after a timeout, or for another incarnation of this client) is
dropped. Partial answers (``is_during_search``) go to the request's ``on_partial``
callback; the final answer completes the future; an ``EngineError`` fails it with
``EngineRequestFailed``. An answer whose ``id`` is not the request's is dropped too.
"""

from __future__ import annotations

import logging
import threading
import uuid
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Callable

from gobuddy.bus.engine_messages import EngineAnswer, EngineError

PartialHandler = Callable[[EngineAnswer], None]


class EngineRequestFailed(Exception):
    """A worker answered a request with an ``EngineError`` (kept in ``.error``)."""

    def __init__(self, error: EngineError):
        where = f" (field {error.field})" if error.field else ""
        super().__init__(f"engine request {error.id!r} failed{where}: {error.error}")
        self.error = error


@dataclass
class _Pending:
    request_id: str
    future: Future
    on_partial: PartialHandler | None


class PendingRequests:
    """Thread-safe table: correlation data -> outstanding request."""

    def __init__(self, log: logging.Logger):
        self._lock = threading.Lock()
        self._pending: dict[bytes, _Pending] = {}
        self._log = log

    def add(self, request_id: str, on_partial: PartialHandler | None = None) -> tuple[bytes, Future]:
        """Register a request; returns its fresh correlation data and its future."""
        correlation = uuid.uuid4().bytes
        future: Future = Future()
        future.set_running_or_notify_cancel()
        with self._lock:
            self._pending[correlation] = _Pending(request_id, future, on_partial)
        return correlation, future

    def knows(self, correlation: bytes | None) -> bool:
        with self._lock:
            return correlation is not None and correlation in self._pending

    def discard(self, correlation: bytes) -> None:
        """Forget a request (timed out or failed to send); a later answer is dropped."""
        with self._lock:
            self._pending.pop(correlation, None)

    def answer(self, correlation: bytes | None, reply: EngineAnswer | EngineError) -> bool:
        """Route one reply; True if it belonged to an outstanding request."""
        with self._lock:
            pending = self._pending.get(correlation) if correlation is not None else None
            if pending is None or reply.id not in (pending.request_id, ""):
                return False
            final = isinstance(reply, EngineError) or not reply.is_during_search
            if final:
                del self._pending[correlation]
        if isinstance(reply, EngineError):
            pending.future.set_exception(EngineRequestFailed(reply))
        elif final:
            pending.future.set_result(reply)
        elif pending.on_partial is not None:
            try:
                pending.on_partial(reply)
            except Exception:  # a failing callback must not break the network thread
                self._log.exception("on_partial callback for request %r failed", pending.request_id)
        return True

    def fail_all(self, reason: str) -> None:
        """Fail every outstanding request with ``ConnectionError(reason)`` (on stop)."""
        with self._lock:
            pending, self._pending = list(self._pending.values()), {}
        for item in pending:
            item.future.set_exception(ConnectionError(reason))
