"""``BusClient``: the one MQTT client every Go Learning Buddy service uses (paho-mqtt 2, MQTT 5).

    client = BusClient(BusConfig(client_id="recorder", role="recorder", username=..., ...))
    client.subscribe(topics.boards_filter("event"), on_event)    # handler(Received)
    client.start()                                              # connects, waits for CONNACK
    client.publish(topics.board_event("board-1"), MovePlayed(...))
    answer = client.request(EngineRequest(...))                 # engine request/response
    client.stop()                                               # offline status, disconnect

What it guarantees:

- Connect: MQTT 5 with user/password and optional TLS. A persistent session
  (``config.persistent_session``) sets clean_start=False on EVERY connect, first
  included, with a Session Expiry Interval (Mosquitto keeps the session, and its queued
  QoS 1 messages, across broker restarts only then). Reconnects forever with capped
  exponential backoff (paho's ``reconnect_delay_set``).
- Presence: a retained ``offline``/``connection_lost`` last will, and on every connect a
  retained ``online`` birth; ``stop()`` publishes ``offline``/``shutdown``.
- Subscriptions are remembered and re-sent on every connect, each with its own MQTT 5
  Subscription Identifier, so a message matching two filters reaches each filter's
  handlers once per filter (Mosquitto sends one copy per matching subscription).
- Publish: topic parsed, QoS and retain taken from the topic table, payload validated
  against its schema and its ids checked against the topic (``MessageError`` /
  ``TopicError`` raised before anything is sent).
- Receive: every message is checked (``inbox.decode_incoming`` with ``limits``: size,
  depth, shape, schema, ids, ``ts`` against this host's clock); a rejected one is
  logged, reported on this client's error topic (rate limited) and skipped. A retained
  copy on a topic the design never retains is dropped with a log line. No callback
  lets an exception reach paho's network thread; if its loop fails anyway it
  reconnects (``network_loop``), and if a network or dispatcher thread ends while the
  client is not stopping, ``on_fatal`` runs (default: exit the process with status 70
  so its supervisor restarts it). Handlers run
  one at a time, in arrival order, on one dispatcher thread (not paho's network thread);
  an exception in a handler is logged, reported and skipped. An empty payload on a
  retained topic (deleting the retained message) is skipped silently. QoS 1 messages are
  acknowledged after their handlers return, so an at-least-once consumer never loses
  one to a crash; expect duplicates after reconnects.
- Request/response: ``request`` publishes on this client's engine request topic with a
  Response Topic, random Correlation Data and a Message Expiry Interval derived from
  ``deadline_ms``; answers are matched on paho's network thread, so ``request`` may be
  called from a handler. ``respond`` answers a received request.

Not done here: retries of timed-out requests (the caller decides), ordering across
different topics, de-duplication (consumers are idempotent by design).
"""

from __future__ import annotations

import json
import logging
import queue
import socket
import ssl
import threading
from typing import Any, Callable

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.subscribeoptions import SubscribeOptions

from gobuddy.bus import topics
from gobuddy.bus.bounds import InboxLimits
from gobuddy.bus.config import BusConfig
from gobuddy.bus.delivery import Delivery, DeliveryTracker
from gobuddy.bus.inbox import (Received, Rejected, check_topic_agrees, decode_incoming, is_clear, kind_for,
                               retained_by_design)
from gobuddy.bus.message import Message, now_ms
from gobuddy.bus.network_loop import GuardedPaho, exit_process
from gobuddy.bus.reporting import Reporter, prop, topic_text
from gobuddy.bus.requests import EngineCalls, PendingRequests
from gobuddy.bus.service_messages import Status
from gobuddy.bus.subscriptions import Subscriptions
from gobuddy.bus.validation import validate

Handler = Callable[[Received], None]
_STOP = object()


def _no_delay(client: mqtt.Client, userdata: Any, sock: Any) -> None:
    """Send small packets at once (TCP_NODELAY): with Nagle's algorithm and delayed ACKs
    a request/response round trip took ~90 ms on loopback instead of ~0.5 ms."""
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except (OSError, AttributeError):  # not a TCP socket (unix, websockets wrapper)
        pass


class BusClient(EngineCalls):
    """One connection to the broker for one service; see the module docstring."""

    def __init__(self, config: BusConfig, *, logger: logging.Logger | None = None,
                 limits: InboxLimits | None = None, on_fatal: Callable[[str], None] = exit_process):
        self.config = config
        self.log = logger or logging.getLogger(f"gobuddy.bus.{config.client_id}")
        self.limits = limits or InboxLimits(max_bytes=config.max_payload_bytes)
        self._on_fatal = on_fatal
        self._subs = Subscriptions()
        self._deliveries = DeliveryTracker()
        self._requests = PendingRequests(self.log)
        self._queue: queue.Queue = queue.Queue(maxsize=config.dispatch_queue)
        self._connected = threading.Event()
        self._first_connack = threading.Event()
        self._refused: str | None = None
        self._generation = 0
        self._started = self._stopping = False
        self._details: dict[str, Any] = {}
        self._reporter = Reporter(config, self.publish, self.log)
        self._counts = {"received": 0, "handler_errors": 0, "published": 0, "retained_dropped": 0,
                        "callback_errors": 0}
        self._dispatcher = threading.Thread(target=self._dispatch_loop, name=f"bus-dispatch-{config.client_id}",
                                            daemon=True)
        self._mqtt = self._make_paho()

    # ---- setup -------------------------------------------------------------------------

    def _make_paho(self) -> mqtt.Client:
        cfg = self.config
        client = GuardedPaho(mqtt.CallbackAPIVersion.VERSION2, client_id=cfg.client_id, protocol=mqtt.MQTTv5,
                             manual_ack=True, log=self.log, on_failure=self._on_loop_failure,
                             on_exit=self._on_loop_exit)
        if cfg.username is not None:
            client.username_pw_set(cfg.username, cfg.password)
        if cfg.uses_tls:
            client.tls_set(ca_certs=cfg.tls_ca_file, certfile=cfg.tls_cert_file, keyfile=cfg.tls_key_file,
                           cert_reqs=ssl.CERT_REQUIRED)
            client.tls_insecure_set(cfg.tls_insecure)
        client.reconnect_delay_set(cfg.reconnect_min_s, cfg.reconnect_max_s)  # type: ignore[arg-type]
        client.on_pre_connect = self._on_pre_connect
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        client.on_publish = self._on_publish
        client.on_socket_open = _no_delay
        return client

    @property
    def client_id(self) -> str:
        return self.config.client_id

    @property
    def role(self) -> str:
        return self.config.role

    def is_connected(self) -> bool:
        return self._connected.is_set()

    def wait_connected(self, timeout_s: float | None = None) -> bool:
        """Block until connected (True) or until ``timeout_s`` passed (False)."""
        return self._connected.wait(timeout_s)

    @property
    def stats(self) -> dict[str, int]:
        """Counters since start: received, rejected, handler_errors, published,
        retained_dropped (retained copies on topics never retained by design),
        callback_errors (exceptions caught in paho's network thread) and loop_failures
        (network loops restarted by the guard)."""
        return {**self._counts, "rejected": self._reporter.rejected, "loop_failures": self._mqtt.loop_failures}

    @property
    def network_alive(self) -> bool:
        """True while both of this client's threads run: paho's network loop (our own
        flag, see ``network_loop``) and the dispatcher. False before ``start()``."""
        return self._mqtt.loop_running and self._dispatcher.is_alive()

    def report_refusal(self, received: Received, reason: str, *, field: str | None = None) -> None:
        """Report on this client's error topic (kind ``refused``, rate limited, never
        raises) that a valid message was refused by its consumer, e.g. a value the store
        would not take. Logging and acknowledging it stay the handler's business."""
        body = json.dumps(received.payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        self._reporter.report(received.topic, "refused", reason, field, body)

    # ---- lifecycle ---------------------------------------------------------------------

    def start(self, *, wait: bool = True, timeout_s: float | None = None) -> None:
        """Start connecting (and reconnecting) in the background.

        With ``wait`` (the default) block until the first CONNACK: raise
        ``ConnectionRefusedError`` if the broker refused (bad credentials), or
        ``TimeoutError`` after ``timeout_s`` (default ``config.connect_timeout_s``); the
        client is stopped in both cases. Without ``wait``, keep trying forever."""
        if self._started:
            raise RuntimeError("BusClient.start() called twice")
        self._started = True
        cfg = self.config
        properties = Properties(PacketTypes.CONNECT)
        if cfg.persistent_session:
            properties.SessionExpiryInterval = cfg.session_expiry_s
        self._dispatcher.start()
        self._mqtt.connect_async(cfg.host, cfg.port, cfg.keepalive_s,
                                 clean_start=not cfg.persistent_session, properties=properties)
        self._mqtt.loop_start()
        if not wait:
            return
        limit = cfg.connect_timeout_s if timeout_s is None else timeout_s
        if not self._first_connack.wait(limit):
            self.stop()
            raise TimeoutError(f"no connection to {cfg.host}:{cfg.port} within {limit}s")
        if self._refused is not None:
            self.stop()
            raise ConnectionRefusedError(f"broker {cfg.host}:{cfg.port} refused {cfg.client_id!r}: {self._refused}")

    def stop(self, timeout_s: float = 5.0) -> None:
        """Publish the offline status (if connected), disconnect, and stop the threads.

        Outstanding requests fail with ``ConnectionError``. Safe to call twice."""
        if not self._started or self._stopping:
            return
        self._stopping = True
        if self._connected.is_set() and self.config.publishes_presence:
            try:
                self._send_status("offline", "shutdown").wait(min(2.0, timeout_s))
            except Exception as exc:  # shutting down anyway
                self.log.warning("could not publish the offline status: %s", exc)
        self._mqtt.disconnect()
        self._mqtt.loop_stop()
        self._connected.clear()
        try:
            self._queue.put(_STOP, timeout=timeout_s)
        except queue.Full:
            self.log.warning("dispatch queue full at stop; %d messages not handled", self._queue.qsize())
        if threading.current_thread() is not self._dispatcher:  # stop() may be called by a handler
            self._dispatcher.join(timeout_s)
        self._requests.fail_all(f"client {self.client_id} stopped")

    def __enter__(self) -> "BusClient":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- publishing --------------------------------------------------------------------

    def publish(self, topic: str, message: Message | dict[str, Any], *, wait: bool = False,
                timeout_s: float = 5.0, properties: Properties | None = None) -> Delivery:
        """Validate and publish ``message`` on ``topic`` with the topic's QoS and retain flag.

        Raises ``TopicError`` (not a topic of the tree, or ids contradicting it),
        ``MessageError`` (invalid payload, field named) or ``ValueError`` (too large)
        before sending. With ``wait``, also waits for the broker: ``PublishRejected``
        (e.g. 0x87 not authorised) or ``TimeoutError``. Returns the ``Delivery``."""
        info = topics.parse(topic)
        data = message.to_dict() if isinstance(message, Message) else message
        kind = kind_for(info, data)
        if isinstance(message, Message) and message.KIND != kind:
            raise topics.TopicError(f"a {message.KIND} cannot be published on {topic!r} (it carries {kind})")
        validate(kind, data)
        check_topic_agrees(info, data)
        body = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")
        if len(body) > self.config.max_payload_bytes:
            raise ValueError(f"{kind} of {len(body)} bytes exceeds max_payload_bytes={self.config.max_payload_bytes}")
        delivery = self._send(topic, body, info.spec.qos, info.spec.retain, properties)
        if wait:
            delivery.wait(timeout_s)
        return delivery

    def _send(self, topic: str, body: bytes, qos: int, retain: bool, properties: Properties | None) -> Delivery:
        if not self._started:
            raise RuntimeError("start() the client before publishing")
        info = self._mqtt.publish(topic, body, qos=qos, retain=retain, properties=properties)
        delivery = Delivery(topic, qos, info.mid)
        self._counts["published"] += 1
        if qos == 0 and info.rc != mqtt.MQTT_ERR_SUCCESS:
            delivery._complete(0x80, f"not sent: {mqtt.error_string(info.rc)}")
            return delivery
        return self._deliveries.track(delivery)

    def set_status(self, **details: Any) -> None:
        """Merge ``details`` (model, queue_depth, evals_per_s, ...) into the retained
        online status and re-publish it now if connected (``None`` removes a key)."""
        for key, value in details.items():
            if value is None:
                self._details.pop(key, None)
            else:
                self._details[key] = value
        if self._connected.is_set() and self.config.publishes_presence:
            self._send_status("online", "connected")

    def _status(self, state: str, reason: str) -> Status:
        cfg = self.config
        return Status(client_id=cfg.client_id, role=cfg.role, state=state, reason=reason,
                      version=cfg.version, details=dict(self._details))

    def _send_status(self, state: str, reason: str) -> Delivery:
        return self.publish(topics.status(self.role, self.client_id), self._status(state, reason))

    # ---- subscribing -------------------------------------------------------------------

    def subscribe(self, topic_filter: str, handler: Handler, *, no_local: bool = False) -> None:
        """Call ``handler(received)`` for every valid message matching ``topic_filter``.

        The filter must come from ``topics`` (inside the v1 tree; ``$share/...`` allowed).
        Kept for the client's lifetime and re-sent on every connect; subscribing the same
        filter twice adds a handler. Retained messages are delivered when the
        subscription is new. ``no_local`` skips this client's own publications."""
        subscription, is_new = self._subs.add(topics.check_filter(topic_filter), handler, no_local)
        if is_new and self._connected.is_set():
            self._send_subscribe(subscription)

    def unsubscribe(self, topic_filter: str) -> None:
        """Forget every handler of ``topic_filter`` and unsubscribe it."""
        if self._subs.remove(topic_filter) and self._connected.is_set():
            self._mqtt.unsubscribe(topic_filter)

    def _send_subscribe(self, subscription: Any) -> None:
        properties = Properties(PacketTypes.SUBSCRIBE)
        properties.SubscriptionIdentifier = subscription.sub_id
        options = SubscribeOptions(qos=1, noLocal=subscription.no_local,
                                   retainHandling=SubscribeOptions.RETAIN_SEND_IF_NEW_SUB)
        self._mqtt.subscribe(subscription.topic_filter, options=options, properties=properties)

    # ---- paho callbacks (network thread) ------------------------------------------------

    def _on_pre_connect(self, client: mqtt.Client, userdata: Any) -> None:
        if self.config.publishes_presence:  # refresh the will's timestamp on every connect
            will = self._status("offline", "connection_lost").to_dict()
            client.will_set(topics.status(self.role, self.client_id), json.dumps(will), qos=1, retain=True)

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            self.log.warning("broker refused the connection: %s; retrying with backoff", reason)
            self._refused = str(reason)
        else:
            self._refused = None
            self._generation += 1
            self._connected.set()
            self.log.info("connected to %s:%d (session present: %s)", self.config.host, self.config.port,
                          flags.session_present)
            for subscription in self._subs.all():
                self._send_subscribe(subscription)
            if self.config.publishes_presence:
                self._send_status("online", "connected")
        self._first_connack.set()

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        self.log.debug("could not reach %s:%d; retrying with backoff", self.config.host, self.config.port)

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self._connected.clear()
        if not self._stopping:
            self.log.warning("connection lost (%s); reconnecting with backoff", reason)

    def _on_publish(self, client: mqtt.Client, userdata: Any, mid: int, reason: Any, properties: Any) -> None:
        self._deliveries.published(mid, reason.value, str(reason))

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        """Route one message (paho's network thread). Never raises: an exception here
        would end paho's network thread. A retained copy on a topic that is never
        retained by design (anyone may set the flag; the ACL cannot forbid it) is
        dropped with a log line before any handler or request sees it."""
        generation = self._generation
        try:
            self._counts["received"] += 1
            topic = topic_text(msg)
            if msg.retain and not retained_by_design(topic):
                self._counts["retained_dropped"] += 1
                self.log.warning("dropped a retained message on %r: that topic is never retained by design", topic)
                self._ack(msg, generation)
                return
            internal, handlers = self._subs.route(topic, prop(msg, "SubscriptionIdentifier"))
            if internal:
                self._take_answer(msg)
            if not handlers:
                self._ack(msg, generation)
                return
            item = (msg, handlers, generation)
            if msg.qos == 0:
                try:
                    self._queue.put_nowait(item)
                except queue.Full:
                    self.log.warning("dispatch queue full: dropped a QoS 0 message on %r", topic)
            else:
                self._queue.put(item)  # back-pressure: the broker holds further QoS 1 messages
        except Exception:
            self._counts["callback_errors"] += 1
            self.log.exception("unexpected failure receiving a message; skipped")
            self._ack(msg, generation)

    def _decode(self, msg: mqtt.MQTTMessage) -> Received | None:
        """``msg`` checked (``inbox.decode_incoming``) as handlers get it, or None when
        rejected (logged and reported)."""
        try:
            info, kind, message = decode_incoming(topic_text(msg), msg.payload, limits=self.limits, now_ms=now_ms())
        except Rejected as rejection:
            self._reporter.reject(msg, rejection)
            return None
        return Received(topic=info.topic, info=info, kind=kind, message=message, payload=message.to_dict(),
                        qos=msg.qos, retain=bool(msg.retain), response_topic=prop(msg, "ResponseTopic"),
                        correlation_data=prop(msg, "CorrelationData"))

    def _take_answer(self, msg: mqtt.MQTTMessage) -> None:
        """Match an engine answer to its request (paho's network thread). Never raises."""
        try:
            received = self._decode(msg)
            if received is not None and not self._requests.answer(received.correlation_data, received.message):
                self.log.info("dropped an engine answer %r that no request is waiting for", received.payload["id"])
        except Exception:
            self._counts["callback_errors"] += 1
            self.log.exception("unexpected failure taking an engine answer; skipped")

    def _on_loop_failure(self, error: BaseException) -> None:
        """The guard caught an exception that ended paho's loop; it reconnects next."""
        self._connected.clear()

    def _on_loop_exit(self, error: BaseException | None) -> None:
        """paho's network loop ended: expected after ``stop()``, fatal otherwise."""
        if not self._stopping:
            self._connected.clear()
            self._fatal(f"the network thread of {self.client_id} ended: {error!r}")

    def _fatal(self, reason: str) -> None:
        self.log.critical("%s", reason)
        try:
            self._on_fatal(reason)
        except Exception:
            self.log.exception("on_fatal failed")

    def _ack(self, msg: mqtt.MQTTMessage, generation: int) -> None:
        """Acknowledge a QoS 1 message received on the current connection; never raises."""
        try:
            if msg.qos > 0 and generation == self._generation:
                self._mqtt.ack(msg.mid, msg.qos)
        except Exception:
            self.log.exception("could not acknowledge a message")

    # ---- dispatching (dispatcher thread) ------------------------------------------------

    def _dispatch_loop(self) -> None:
        """Handle queued messages until ``_STOP``. Nothing a message does ends it; if it
        ends anyway (a ``BaseException``) while the client is not stopping, that is fatal."""
        ended = False
        try:
            while True:
                item = self._queue.get()
                if item is _STOP:
                    ended = True
                    return
                msg, handlers, generation = item
                try:
                    self._dispatch(msg, handlers)
                except Exception:  # never let the dispatcher die
                    self.log.exception("unexpected failure dispatching a message")
                finally:
                    self._ack(msg, generation)
        finally:
            if not ended and not self._stopping:
                self._fatal(f"the dispatcher of {self.client_id} ended unexpectedly")

    def _dispatch(self, msg: mqtt.MQTTMessage, handlers: list[Handler]) -> None:
        if is_clear(topic_text(msg), msg.payload):
            self.log.debug("retained message on %r cleared", topic_text(msg))
            return
        received = self._decode(msg)
        if received is None:
            return
        for handler in handlers:
            try:
                handler(received)
            except Exception as exc:
                self._counts["handler_errors"] += 1
                self.log.exception("handler %s failed on %s", getattr(handler, "__name__", handler), received.topic)
                self._reporter.report(received.topic, "handler", f"{type(exc).__name__}: {exc}", None, msg.payload)
