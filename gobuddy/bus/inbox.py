"""Turning raw MQTT payloads into typed messages, or into a reasoned rejection.

``decode_incoming(topic, payload, max_bytes)`` runs every check a received message must
pass, in order: the topic is one of the tree's; the payload is not too large, is UTF-8,
is JSON (no NaN or Infinity); it is valid for the kind its topic carries (schema and the
checks beyond it); and the ids in the payload agree with the ids in the topic. The first
failure raises ``Rejected`` with the ``kind`` an error report carries. The same
``check_topic_agrees`` guards publishing. Pure functions: no I/O, no paho.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from gobuddy.bus import topics
from gobuddy.bus.message import Message
from gobuddy.bus.messages import decode
from gobuddy.bus.topics import TopicError, TopicInfo
from gobuddy.bus.validation import MessageError


class Rejected(Exception):
    """A received message that failed a check; ``kind`` is an error report's kind."""

    def __init__(self, kind: str, message: str, field: str | None = None):
        super().__init__(message)
        self.kind = kind
        self.field = field
        self.message = message


@dataclass(frozen=True)
class Received:
    """A valid message as handlers get it.

    ``message`` is the typed object and ``payload`` its JSON data; ``info`` the parsed
    topic (``info.board_id``, ``info.client_id``, ...). ``response_topic`` and
    ``correlation_data`` are the MQTT 5 request/response properties (None when absent);
    pass the whole ``Received`` to ``BusClient.respond``. ``retain`` is True for a
    retained message delivered on subscribe."""

    topic: str
    info: TopicInfo
    kind: str
    message: Message
    payload: dict[str, Any]
    qos: int = 0
    retain: bool = False
    response_topic: str | None = None
    correlation_data: bytes | None = None


def kind_for(info: TopicInfo, data: Any) -> str:
    """The message kind ``data`` must be on the topic ``info`` (engine responses carry two)."""
    if info.family == "engine_response":
        return "engine_error" if isinstance(data, dict) and "error" in data else "engine_answer"
    return info.kinds[0]


def check_topic_agrees(info: TopicInfo, data: dict[str, Any]) -> None:
    """Raise ``TopicError`` when ids in a (schema-valid) payload contradict its topic.

    Board topics: ``board_id`` equals the topic's board. Status and error topics:
    ``client_id`` and ``role`` equal the topic's. Engine requests from a physical board:
    ``board_id`` is that board or null (a board asks only about itself)."""
    if info.board_id is not None and data.get("board_id") != info.board_id:
        raise TopicError(f"board_id {data.get('board_id')!r} on the topic of board {info.board_id!r}")
    if info.family in ("status", "error"):
        if data.get("client_id") != info.client_id or data.get("role") != info.role:
            raise TopicError(
                f"{data.get('role')}/{data.get('client_id')} on the topic of {info.role}/{info.client_id}"
            )
    if info.family == "engine_request" and info.role == "board":
        if data.get("board_id") not in (None, info.client_id):
            raise TopicError(f"board {info.client_id!r} asked about board {data.get('board_id')!r}")


def is_clear(topic: str | None, payload: bytes) -> bool:
    """True for an empty payload on a retained topic: MQTT's way to delete the retained
    message (a board taken out of service). Not an error, and nothing to handle."""
    if payload or topic is None:
        return False
    try:
        return topics.parse(topic).spec.retain
    except TopicError:
        return False


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def decode_incoming(topic: str | None, payload: bytes, max_bytes: int) -> tuple[TopicInfo, str, Message]:
    """Check a received message; return (topic info, kind, typed message) or raise ``Rejected``."""
    if topic is None:
        raise Rejected("topic", "the topic is not valid UTF-8")
    try:
        info = topics.parse(topic)
    except TopicError as exc:
        raise Rejected("topic", str(exc)) from None
    if len(payload) > max_bytes:
        raise Rejected("too_large", f"{len(payload)} bytes is more than the limit of {max_bytes}")
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Rejected("invalid_utf8", str(exc)) from None
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except ValueError as exc:  # JSONDecodeError is a ValueError
        raise Rejected("invalid_json", str(exc)) from None
    kind = kind_for(info, data)
    try:
        message = decode(kind, data)
    except MessageError as exc:
        raise Rejected("schema", exc.reason, exc.field) from None
    try:
        check_topic_agrees(info, data)
    except TopicError as exc:
        raise Rejected("topic", str(exc), "board_id" if info.board_id else None) from None
    return info, kind, message
