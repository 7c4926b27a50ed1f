"""Engine requests and responses of a ``BusClient``: the table of outstanding requests,
matched to answers by Correlation Data, re-sent when the workers fall silent, and the
``request``/``respond`` methods.

Each request gets random Correlation Data (16 bytes); an answer whose Correlation Data
is unknown (late, after the request gave up, or for another incarnation of this client)
is dropped, and so is one whose ``id`` is not the request's. Partial answers
(``is_during_search``) go to the request's ``on_partial`` callback; the final answer
completes the future; an ``EngineError`` fails it with ``EngineRequestFailed``.

Time: a request carries ``timeout_ms``, the time it has from the moment it is sent; a
worker measures it on its own clock from when the request arrives, so neither clock
matters to the other (a Raspberry Pi without a clock battery is often minutes or hours
off before NTP syncs). ``deadline_ms`` stays the requester's own absolute time: its
future gives up (``TimeoutError``) at that time plus ``RESPONSE_GRACE_S``.

Silence: a worker acknowledges a request it accepts with an ``engine_progress`` (queued,
with when it expects to answer), and partial answers count as progress too. A request
that got no word within ``silence_s`` of being sent, or whose worker's expected time
has passed by ``silence_s`` without an answer, is sent again with the same id and
Correlation Data (a worker that died with it in its queue lost it: Mosquitto does not
hand a dead shared subscriber's messages to the others). Whichever final answer comes
first completes the future; later ones are dropped. Not re-sent once less than
``MIN_RESEND_S`` is left.
"""

from __future__ import annotations

import logging
import math
import threading
import time
import uuid
from concurrent.futures import Future
from dataclasses import dataclass, replace
from typing import Any, Callable

from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from gobuddy.bus import topics
from gobuddy.bus.delivery import Delivery
from gobuddy.bus.engine_messages import EngineAnswer, EngineError, EngineProgress, EngineRequest
from gobuddy.bus.inbox import Received
from gobuddy.bus.message import now_ms

PartialHandler = Callable[[EngineAnswer], None]
Reply = EngineAnswer | EngineError | EngineProgress
RESPONSE_GRACE_S = 0.5  # how long after deadline_ms a requester still waits
MIN_RESEND_S = 0.3  # no re-send with less time than this left
TICK_S = 0.05  # how often outstanding requests are looked at


class EngineRequestFailed(Exception):
    """A worker answered a request with an ``EngineError`` (kept in ``.error``)."""

    def __init__(self, error: EngineError):
        where = f" (field {error.field})" if error.field else ""
        super().__init__(f"engine request {error.id!r} failed{where}: {error.error}")
        self.error = error

    @property
    def busy(self) -> bool:
        """True when the workers were too busy to answer in time (worth asking again later)."""
        return self.error.code == "busy"


@dataclass
class _Pending:
    request_id: str
    future: Future
    on_partial: PartialHandler | None
    gives_up: float  # monotonic time the future fails with TimeoutError
    silence_s: float
    resend: Callable[[], None] | None = None
    quiet_until: float = math.inf  # monotonic time after which silence means "send again"
    sends: int = 0


class PendingRequests:
    """Thread-safe table: correlation data -> outstanding request (see the module docstring)."""

    def __init__(self, log: logging.Logger, clock: Callable[[], float] = time.monotonic):
        self._lock = threading.Lock()
        self._pending: dict[bytes, _Pending] = {}
        self._log = log
        self._clock = clock

    def add(self, request_id: str, on_partial: PartialHandler | None = None, *, timeout_s: float = math.inf,
            silence_s: float = math.inf) -> tuple[bytes, Future]:
        """Register a request that gives up after ``timeout_s``; returns its fresh
        correlation data and its future."""
        correlation = uuid.uuid4().bytes
        future: Future = Future()
        future.set_running_or_notify_cancel()
        with self._lock:
            self._pending[correlation] = _Pending(request_id, future, on_partial, self._clock() + timeout_s,
                                                  silence_s)
        return correlation, future

    def sent(self, correlation: bytes, resend: Callable[[], None]) -> None:
        """The request went out (``resend`` sends it again): start listening for silence."""
        with self._lock:
            pending = self._pending.get(correlation)
            if pending is not None:
                pending.resend = resend
                pending.sends += 1
                pending.quiet_until = self._clock() + pending.silence_s

    def sends(self, correlation: bytes) -> int:
        """How many times the request was sent (0 once it is no longer outstanding)."""
        with self._lock:
            pending = self._pending.get(correlation)
            return 0 if pending is None else pending.sends

    def discard(self, correlation: bytes) -> None:
        """Forget a request (gave up or failed to send); a later answer is dropped."""
        with self._lock:
            self._pending.pop(correlation, None)

    def answer(self, correlation: bytes | None, reply: Reply) -> bool:
        """Route one reply; True if it belonged to an outstanding request."""
        with self._lock:
            pending = self._pending.get(correlation) if correlation is not None else None
            if pending is None or reply.id not in (pending.request_id, ""):
                return False
            if isinstance(reply, EngineProgress):
                pending.quiet_until = self._clock() + reply.expected_ms / 1000 + pending.silence_s
                return True
            final = isinstance(reply, EngineError) or not reply.is_during_search
            if final:
                del self._pending[correlation]
            else:
                pending.quiet_until = max(pending.quiet_until, self._clock() + 2 * pending.silence_s)
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

    def tick(self) -> None:
        """Give up on requests past their time, and send again those the workers fell
        silent on (called every ``TICK_S`` by the client's request thread)."""
        now = self._clock()
        expired: list[_Pending] = []
        resends: list[tuple[str, Callable[[], None]]] = []
        with self._lock:
            for correlation, pending in list(self._pending.items()):
                if now >= pending.gives_up:
                    expired.append(self._pending.pop(correlation))
                elif (pending.resend is not None and now >= pending.quiet_until
                      and pending.gives_up - now >= MIN_RESEND_S):
                    pending.quiet_until = now + pending.silence_s
                    pending.sends += 1
                    resends.append((pending.request_id, pending.resend))
        for pending in expired:
            pending.future.set_exception(TimeoutError(
                f"no answer to engine request {pending.request_id!r} by its deadline ({pending.sends} sends)"))
        for request_id, resend in resends:
            self._log.info("no word from the engine workers about %r: sending it again", request_id)
            try:
                resend()
            except Exception as exc:  # broker gone: the next tick tries again
                self._log.warning("could not send %r again: %s", request_id, exc)

    def outstanding(self) -> int:
        with self._lock:
            return len(self._pending)

    def fail_all(self, reason: str) -> None:
        """Fail every outstanding request with ``ConnectionError(reason)`` (on stop)."""
        with self._lock:
            pending, self._pending = list(self._pending.values()), {}
        for item in pending:
            item.future.set_exception(ConnectionError(reason))


class EngineCalls:
    """The request/response methods of ``BusClient`` (a mixin: it uses the client's
    ``config``, ``publish``, ``_subs``, ``_send_subscribe``, ``_connected`` and ``_requests``)."""

    client_id: str
    role: str
    config: Any
    log: logging.Logger
    _requests: PendingRequests
    _subs: Any
    _connected: threading.Event
    publish: Callable[..., Delivery]
    _send_subscribe: Callable[[Any], None]
    _ticker: threading.Thread | None = None

    def request(self, request: EngineRequest | dict[str, Any], *, timeout_s: float | None = None,
                on_partial: PartialHandler | None = None) -> EngineAnswer:
        """Ask the engine workers; return the final ``EngineAnswer``.

        Raises ``EngineRequestFailed`` (a worker's ``EngineError``; ``.busy`` when the
        workers were too busy), ``TimeoutError`` (no final answer by ``timeout_s``,
        default: until ``deadline_ms`` plus a short grace, re-sending on silence) or the
        publish errors. Partial answers go to ``on_partial`` (called on paho's network
        thread: keep it short)."""
        req = request if isinstance(request, EngineRequest) else EngineRequest.from_dict(request)
        future = self.request_async(req, on_partial=on_partial)
        if timeout_s is None:
            timeout_s = max(0.0, (req.deadline_ms - now_ms()) / 1000) + RESPONSE_GRACE_S + TICK_S
        try:
            return future.result(timeout_s)
        except TimeoutError:
            self._requests.discard(future.correlation)  # type: ignore[attr-defined]
            raise TimeoutError(f"no answer to engine request {req.id!r} within {timeout_s:.1f}s") from None

    def request_async(self, request: EngineRequest | dict[str, Any], *,
                      on_partial: PartialHandler | None = None) -> Future:
        """Send a request and return a ``Future`` of its final answer (see ``request``).

        The future has a ``correlation`` attribute; it fails with ``TimeoutError`` at
        ``deadline_ms`` plus a short grace, and the request is re-sent on silence before."""
        req = request if isinstance(request, EngineRequest) else EngineRequest.from_dict(request)
        remaining_s = (req.deadline_ms - now_ms()) / 1000
        if remaining_s <= 0:
            raise ValueError(f"engine request {req.id!r}: deadline_ms is already past")
        self._ensure_response_subscription()
        self._ensure_ticker()
        correlation, future = self._requests.add(req.id, on_partial, timeout_s=remaining_s + RESPONSE_GRACE_S,
                                                 silence_s=self.config.request_silence_s)
        future.correlation = correlation  # type: ignore[attr-defined]

        def send() -> None:
            left_ms = req.deadline_ms - now_ms()
            properties = Properties(PacketTypes.PUBLISH)
            properties.ResponseTopic = topics.engine_response(self.role, self.client_id)
            properties.CorrelationData = correlation
            properties.MessageExpiryInterval = max(1, math.ceil(left_ms / 1000 + RESPONSE_GRACE_S))
            self.publish(topics.engine_request(self.role, self.client_id),
                         replace(req, timeout_ms=max(1, min(left_ms, 600_000))), properties=properties)

        try:
            send()
        except Exception:
            self._requests.discard(correlation)
            raise
        self._requests.sent(correlation, send)
        return future

    def respond(self, request: Received, reply: EngineAnswer | EngineError | EngineProgress | dict[str, Any], *,
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
        subscription, is_new = self._subs.add(topics.engine_response(self.role, self.client_id), None)
        if is_new and self._connected.is_set():
            self._send_subscribe(subscription)

    def _ensure_ticker(self) -> None:
        """Start the thread that re-sends and expires requests (once per client)."""
        if self._ticker is None:
            self._ticker = threading.Thread(target=self._tick_loop, name=f"bus-requests-{self.client_id}",
                                            daemon=True)
            self._ticker.start()

    def _tick_loop(self) -> None:
        while not getattr(self, "_stopping", False):
            try:
                self._requests.tick()
            except Exception:  # never let the request thread die
                self.log.exception("request bookkeeping failed")
            time.sleep(TICK_S)
