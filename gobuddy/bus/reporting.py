"""What a client does with a message it rejects: log it, report it, and for an engine
worker, refuse the request at once so the requester need not wait for its deadline
(on the requester's own response topic, derived from the request topic).

Reports go to the client's own error topic at QoS 1, at most ``errors_per_s`` a second
(a token bucket; the rest are only logged). Nothing is reported about messages on error
topics (no loops), and read-only clients report nothing.
"""

from __future__ import annotations

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
        """Log, report, and (engine workers) refuse one rejected message. Never raises:
        it runs in paho's network thread for engine answers."""
        try:
            topic = topic_text(msg)
            self.rejected += 1
            where = f" at {rejection.field}" if rejection.field else ""
            self._log.warning("rejected a message on %r (%s%s): %s", topic, rejection.kind, where,
                              rejection.message)
            if topic is not None and topic.startswith(f"{topics.ROOT}/error/"):
                return
            if topic is not None and self._config.role == "engine":
                self._refuse_request(topic, msg, rejection)
            self.report(topic or "(not UTF-8)", rejection.kind, rejection.message, rejection.field, msg.payload)
        except Exception:
            self._log.exception("could not handle a rejected message")

    def report(self, topic: str, kind: str, message: str, field: str | None, payload: bytes) -> None:
        """Publish an error report (rate limited; never raises)."""
        try:
            if self._config.read_only or not self._take_token():
                return
            report = ErrorReport(client_id=self._config.client_id, role=self._config.role, topic=topic[:256],
                                 kind=kind, message=message[:500], field=None if field is None else field[:256],
                                 excerpt=ErrorReport.excerpt_of(payload))
            self._publish(topics.error(self._config.role, self._config.client_id), report)
        except Exception as exc:
            self._log.warning("could not publish an error report: %s", exc)

    def _refuse_request(self, topic: str, msg: mqtt.MQTTMessage, rejection: Rejected) -> None:
        """Answer an invalid request with an ``engine_error`` at once, whatever made it
        invalid (deep or broken JSON included), when the request can be attributed: it
        came on a requester's own request topic and names that requester's own response
        topic as its Response Topic. The reply goes to the topic derived from the request
        topic, never to one the request merely names; no Response Topic, no reply."""
        try:
            info = topics.parse(topic)
            if info.family != "engine_request" or info.role is None or info.client_id is None:
                return
            response_topic = topics.engine_response(info.role, info.client_id)
        except topics.TopicError:
            return
        if prop(msg, "ResponseTopic") != response_topic:
            return
        data = rejection.data
        request_id = data.get("id") if isinstance(data, dict) else None
        if not isinstance(request_id, str) or not _REQUEST_ID.match(request_id):
            request_id = ""
        reply: Message = EngineError(id=request_id, error=rejection.message[:500],
                                     field=None if rejection.field is None else rejection.field[:256],
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
