"""What a client does with a message it rejects: log it, report it, and for an engine
worker, refuse the request at once so the requester need not wait for its deadline.

Reports go to the client's own error topic at QoS 1, at most ``errors_per_s`` a second
(a token bucket; the rest are only logged). Nothing is reported about messages on error
topics (no loops), and read-only clients report nothing.
"""

from __future__ import annotations

import json
import logging
import re
import time
from typing import Any, Callable

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from gobuddy.bus import topics
from gobuddy.bus.config import BusConfig
from gobuddy.bus.engine_messages import EngineError
from gobuddy.bus.inbox import Rejected
from gobuddy.bus.message import Message
from gobuddy.bus.service_messages import ErrorReport

Publish = Callable[..., Any]  # BusClient.publish(topic, message, properties=...)
_REQUEST_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")


def topic_text(msg: mqtt.MQTTMessage) -> str | None:
    """The message's topic, or None when it is not valid UTF-8."""
    try:
        return msg.topic
    except UnicodeDecodeError:
        return None


def prop(msg: mqtt.MQTTMessage, name: str) -> Any:
    """An MQTT 5 property of a received message, or None."""
    return getattr(msg.properties, name, None) if msg.properties is not None else None


class Reporter:
    def __init__(self, config: BusConfig, publish: Publish, log: logging.Logger):
        self._config = config
        self._publish = publish
        self._log = log
        self._tokens = max(config.errors_per_s, 1.0)
        self._last = time.monotonic()
        self.rejected = 0

    def reject(self, msg: mqtt.MQTTMessage, rejection: Rejected) -> None:
        """Log, report, and (engine workers) refuse one rejected message."""
        topic = topic_text(msg)
        self.rejected += 1
        where = f" at {rejection.field}" if rejection.field else ""
        self._log.warning("rejected a message on %r (%s%s): %s", topic, rejection.kind, where, rejection.message)
        if topic is not None and topic.startswith(f"{topics.ROOT}/error/"):
            return
        if topic is not None and topic.startswith(f"{topics.ROOT}/engine/request/") and self._config.role == "engine":
            self._refuse_request(msg, rejection)
        self.report(topic or "(not UTF-8)", rejection.kind, rejection.message, rejection.field, msg.payload)

    def report(self, topic: str, kind: str, message: str, field: str | None, payload: bytes) -> None:
        """Publish an error report (rate limited; never raises)."""
        if self._config.read_only or not self._take_token():
            return
        report = ErrorReport(client_id=self._config.client_id, role=self._config.role, topic=topic[:256],
                             kind=kind, message=message[:500], field=None if field is None else field[:256],
                             excerpt=ErrorReport.excerpt_of(payload))
        try:
            self._publish(topics.error(self._config.role, self._config.client_id), report)
        except Exception as exc:
            self._log.warning("could not publish an error report: %s", exc)

    def _refuse_request(self, msg: mqtt.MQTTMessage, rejection: Rejected) -> None:
        response_topic = prop(msg, "ResponseTopic")
        try:
            if response_topic is None or topics.parse(response_topic).family != "engine_response":
                return
        except topics.TopicError:
            return
        try:
            data = json.loads(msg.payload)
            request_id = data.get("id") if isinstance(data, dict) else None
        except ValueError:
            request_id = None
        if not isinstance(request_id, str) or not _REQUEST_ID.match(request_id):
            request_id = ""
        reply: Message = EngineError(id=request_id, error=rejection.message[:500], field=rejection.field,
                                     worker=self._config.client_id)
        properties = Properties(PacketTypes.PUBLISH)
        correlation = prop(msg, "CorrelationData")
        if correlation is not None:
            properties.CorrelationData = correlation
        try:
            self._publish(response_topic, reply, properties=properties)
        except Exception as exc:
            self._log.warning("could not refuse the invalid request: %s", exc)

    def _take_token(self) -> bool:
        rate = self._config.errors_per_s
        now = time.monotonic()
        self._tokens = min(max(rate, 1.0), self._tokens + (now - self._last) * rate)
        self._last = now
        if self._tokens < 1.0:
            return False
        self._tokens -= 1.0
        return True
