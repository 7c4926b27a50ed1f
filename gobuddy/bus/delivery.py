"""Tracking what the broker said about each publish (PUBACK reason codes over MQTT 5).

A ``Delivery`` completes when paho reports the publish done: for QoS 1 when the PUBACK
arrives (its reason code tells success, 0x10 no subscribers, or a refusal such as 0x87
not authorised), for QoS 0 when the packet was written. ``DeliveryTracker`` matches
paho's ``on_publish`` calls to deliveries by message id; it takes only its own lock,
and is never held while calling paho (paho holds its own locks around ``on_publish``).
"""

from __future__ import annotations

import threading

REFUSED_FROM = 0x80  # MQTT 5 reason codes at and above this are failures


class PublishRejected(Exception):
    """The broker refused a publish (PUBACK reason code >= 0x80, e.g. 0x87 not authorised)."""

    def __init__(self, topic: str, reason_code: int, reason: str):
        super().__init__(f"broker refused publish to {topic!r}: {reason} (0x{reason_code:02x})")
        self.topic = topic
        self.reason_code = reason_code
        self.reason = reason


class Delivery:
    """The outcome of one publish; ``wait`` blocks until the broker has answered."""

    def __init__(self, topic: str, qos: int, mid: int):
        self.topic = topic
        self.qos = qos
        self.mid = mid
        self._done = threading.Event()
        self._code = 0
        self._reason = "Success"

    def _complete(self, code: int, reason: str) -> None:
        self._code, self._reason = code, reason
        self._done.set()

    def done(self) -> bool:
        return self._done.is_set()

    @property
    def reason_code(self) -> int | None:
        """The broker's reason code (0 success, 0x10 no matching subscribers, ...), None while pending."""
        return self._code if self._done.is_set() else None

    def wait(self, timeout_s: float | None = 5.0) -> int:
        """Wait for the outcome; return the reason code (< 0x80).

        Raises ``PublishRejected`` for a refusal and ``TimeoutError`` when there was no
        answer in time (a QoS 1 message stays queued in paho and is re-sent on reconnect)."""
        if not self._done.wait(timeout_s):
            raise TimeoutError(f"no acknowledgement for the publish to {self.topic!r} within {timeout_s}s")
        if self._code >= REFUSED_FROM:
            raise PublishRejected(self.topic, self._code, self._reason)
        return self._code


class DeliveryTracker:
    """Matches paho's on_publish (which may run before ``publish`` returns) to deliveries."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: dict[int, Delivery] = {}
        self._early: dict[int, tuple[int, str]] = {}

    def track(self, delivery: Delivery) -> Delivery:
        """Register a delivery right after paho's publish returned its message id."""
        with self._lock:
            early = self._early.pop(delivery.mid, None)
            if early is None:
                self._pending[delivery.mid] = delivery
        if early is not None:
            delivery._complete(*early)
        return delivery

    def published(self, mid: int, code: int, reason: str) -> None:
        """paho's on_publish: complete the delivery, or remember the result for ``track``."""
        with self._lock:
            delivery = self._pending.pop(mid, None)
            if delivery is None:
                self._early[mid] = (code, reason)
                if len(self._early) > 10_000:  # publishes nobody tracked (e.g. births); keep it bounded
                    self._early.pop(next(iter(self._early)))
        if delivery is not None:
            delivery._complete(code, reason)
