"""Engine requests and responses of a ``BusClient``: the table of outstanding requests,
matched to answers by Correlation Data, and the ``request``/``respond`` methods.

Each request gets random Correlation Data (16 bytes); an answer whose Correlation Data
is unknown (late, after a timeout, or for another incarnation of this client) is
dropped. Partial answers (``is_during_search``) go to the request's ``on_partial``
callback; the final answer completes the future; an ``EngineError`` fails it with
``EngineRequestFailed``. An answer whose ``id`` is not the request's is dropped too.
"""

from __future__ import annotations

import logging
import math
import threading
import uuid
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Callable

from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from gobuddy.bus import topics
from gobuddy.bus.delivery import Delivery
from gobuddy.bus.engine_messages import EngineAnswer, EngineError, EngineRequest
from gobuddy.bus.inbox import Received
from gobuddy.bus.message import now_ms

PartialHandler = Callable[[EngineAnswer], None]
RESPONSE_GRACE_S = 0.5  # how long after deadline_ms a requester still waits


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


class EngineCalls:
    """The request/response methods of ``BusClient`` (a mixin: it uses the client's
    ``publish``, ``_subs``, ``_send_subscribe``, ``_connected`` and ``_requests``)."""

    client_id: str
    role: str
    _requests: PendingRequests
    _subs: Any
    _connected: threading.Event
    publish: Callable[..., Delivery]
    _send_subscribe: Callable[[Any], None]

    def request(self, request: EngineRequest | dict[str, Any], *, timeout_s: float | None = None,
                on_partial: PartialHandler | None = None) -> EngineAnswer:
        """Ask the engine workers; return the final ``EngineAnswer``.

        Raises ``EngineRequestFailed`` (a worker's ``EngineError``), ``TimeoutError``
        (no final answer by ``timeout_s``, default: until ``deadline_ms`` plus a short
        grace) or the publish errors. Partial answers go to ``on_partial`` (called on
        paho's network thread: keep it short)."""
        req = request if isinstance(request, EngineRequest) else EngineRequest.from_dict(request)
        future = self.request_async(req, on_partial=on_partial)
        if timeout_s is None:
            timeout_s = max(0.0, (req.deadline_ms - now_ms()) / 1000) + RESPONSE_GRACE_S
        try:
            return future.result(timeout_s)
        except TimeoutError:
            self._requests.discard(future.correlation)  # type: ignore[attr-defined]
            raise TimeoutError(f"no answer to engine request {req.id!r} within {timeout_s:.1f}s") from None

    def request_async(self, request: EngineRequest | dict[str, Any], *,
                      on_partial: PartialHandler | None = None) -> Future:
        """Send a request and return a ``Future`` of its final answer (see ``request``).

        The future has a ``correlation`` attribute; nothing times it out but the caller."""
        req = request if isinstance(request, EngineRequest) else EngineRequest.from_dict(request)
        remaining_s = (req.deadline_ms - now_ms()) / 1000
        if remaining_s <= 0:
            raise ValueError(f"engine request {req.id!r}: deadline_ms is already past")
        self._ensure_response_subscription()
        correlation, future = self._requests.add(req.id, on_partial)
        properties = Properties(PacketTypes.PUBLISH)
        properties.ResponseTopic = topics.engine_response(self.role, self.client_id)
        properties.CorrelationData = correlation
        properties.MessageExpiryInterval = max(1, math.ceil(remaining_s + RESPONSE_GRACE_S))
        try:
            self.publish(topics.engine_request(self.role, self.client_id), req, properties=properties)
        except Exception:
            self._requests.discard(correlation)
            raise
        future.correlation = correlation  # type: ignore[attr-defined]
        return future

    def respond(self, request: Received, reply: EngineAnswer | EngineError | dict[str, Any], *,
                wait: bool = False) -> Delivery:
        """Answer a received engine request with its Correlation Data, on the requester's
        own response topic: the one that belongs to the account whose request topic it
        came on (the broker lets only that account publish there). A request naming any
        other Response Topic is never answered there.

        Raises ``ValueError`` when the request's Response Topic is absent or not the
        requester's own, or the reply's ``id`` does not echo the request's; otherwise as
        ``publish``."""
        info = request.info
        if info.family != "engine_request" or info.role is None or info.client_id is None:
            raise ValueError(f"{request.topic!r} is not an engine request topic")
        own = topics.engine_response(info.role, info.client_id)
        if request.response_topic != own:
            raise ValueError(f"Response Topic {request.response_topic!r} is not the requester's own {own!r}")
        reply_id = reply["id"] if isinstance(reply, dict) else reply.id
        if reply_id != getattr(request.message, "id", None):
            raise ValueError(f"reply id {reply_id!r} does not echo request id {getattr(request.message, 'id', None)!r}")
        properties = Properties(PacketTypes.PUBLISH)
        if request.correlation_data is not None:
            properties.CorrelationData = request.correlation_data
        return self.publish(own, reply, wait=wait, properties=properties)

    def _ensure_response_subscription(self) -> None:
        subscription, is_new = self._subs.add_internal(topics.engine_response(self.role, self.client_id))
        if is_new and self._connected.is_set():
            self._send_subscribe(subscription)
