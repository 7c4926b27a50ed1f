"""Turning raw MQTT payloads into typed messages, or into a reasoned rejection.

``decode_incoming(topic, payload, max_bytes)`` runs every check a received message must
pass, in order, cheapest first: the topic is one of the tree's; the payload is not too
large, is UTF-8, is not nested deeper than a message can be (a scan of the bytes, before
any parsing); it is JSON (no NaN, Infinity or overflowing numbers) whose arrays, objects
and strings are no larger than a message's can be (``bounds``); it is valid for the kind
its topic carries (schema and the checks beyond it); the ids in the payload agree with
the ids in the topic; and, for presence and error reports, its ``ts`` is not in the future
of the receiver's clock. The
first failure raises ``Rejected`` with the ``kind`` an error report carries; no other
exception ever leaves ``decode_incoming``, whatever the bytes. The same
``check_topic_agrees`` guards publishing. No I/O, no paho.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace
from typing import Any

from gobuddy.bus import topics
from gobuddy.bus.bounds import InboxLimits, exceeds_depth, shape_problem
from gobuddy.bus.message import Message
from gobuddy.bus.messages import decode
from gobuddy.bus.topics import TopicError, TopicInfo
from gobuddy.bus.validation import MessageError

MAX_INT_DIGITS = 19  # PostgreSQL's BIGINT holds 9,223,372,036,854,775,807 (19 digits)


class Rejected(Exception):
    """A received message that failed a check; ``kind`` is an error report's kind.
    ``data`` is the parsed JSON when parsing got that far (None otherwise), so a
    refusal can echo a request's ``id`` without parsing the payload again."""

    def __init__(self, kind: str, message: str, field: str | None = None, *, data: Any = None):
        super().__init__(message)
        self.kind = kind
        self.field = field
        self.message = message
        self.data = data


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
    """The message kind ``data`` must be on the topic ``info`` (engine responses carry three:
    an ``error`` key makes an engine_error, a ``state`` key an engine_progress)."""
    if info.family == "engine_response" and isinstance(data, dict):
        if "error" in data:
            return "engine_error"
        return "engine_progress" if "state" in data else "engine_answer"
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
    return not payload and retained_by_design(topic)


def retained_by_design(topic: str | None) -> bool:
    """True when ``topic`` is of a family the design retains (``topics.SPECS``: state,
    status); False for every other topic and for topics outside the tree. Anyone may set
    the retain flag (the broker's ACL cannot forbid it), so a receiver drops a retained
    copy where this is False."""
    try:
        return topic is not None and topics.parse(topic).spec.retain
    except TopicError:
        return False


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"{text[:40]} is not a finite number")
    return value


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {len(text)} digits (at most {MAX_INT_DIGITS})")
    return int(text)


def parse_json(payload: bytes, limits: InboxLimits = InboxLimits()) -> Any:
    """The JSON document in ``payload``, or ``Rejected`` (too_large, too_deep,
    invalid_utf8, invalid_json): size and nesting are bounded before parsing, NaN,
    Infinity, overflowing floats and integers of more than 19 digits are refused, and
    any failure of the parser (``RecursionError``, ``MemoryError`` included) is a
    rejection. Arrays, objects and strings larger than any message are refused after."""
    if len(payload) > limits.max_bytes:
        raise Rejected("too_large", f"{len(payload)} bytes is more than the limit of {limits.max_bytes}")
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Rejected("invalid_utf8", str(exc)) from None
    depth = exceeds_depth(payload, limits.max_depth)
    if depth is not None:
        raise Rejected("too_deep", f"nested {depth} deep (at most {limits.max_depth})")
    try:
        data = json.loads(text, parse_constant=_no_constant, parse_float=_finite, parse_int=_bounded_int)
    except Exception as exc:  # ValueError, and RecursionError/MemoryError from hostile input
        raise Rejected("invalid_json", f"{type(exc).__name__}: {exc}"[:500]) from None
    problem = shape_problem(data)
    if problem is not None:
        raise Rejected("too_large", problem[0], problem[1], data=data)
    return data


def decode_incoming(topic: str | None, payload: bytes, max_bytes: int | None = None, *,
                    limits: InboxLimits = InboxLimits(), now_ms: int | None = None) -> tuple[TopicInfo, str, Message]:
    """Check a received message; return (topic info, kind, typed message) or raise
    ``Rejected``, and nothing else, whatever ``payload`` holds.

    ``max_bytes``, when given, replaces ``limits.max_bytes``. For the ``CLOCKED_KINDS``, a
    ``ts`` more than ``limits.future_tolerance_ms`` ahead of ``now_ms`` (default: this
    host's clock, the one impure step) is refused with field ``ts``; how far in the past a ts may be is the
    schema's business (not before 2020), not the clock's."""
    if topic is None:
        raise Rejected("topic", "the topic is not valid UTF-8")
    try:
        info = topics.parse(topic)
    except TopicError as exc:
        raise Rejected("topic", str(exc)) from None
    if max_bytes is not None:
        limits = replace(limits, max_bytes=max_bytes)
    data = parse_json(payload, limits)
    try:
        kind = kind_for(info, data)
        message = decode(kind, data)
    except MessageError as exc:
        raise Rejected("schema", exc.reason, exc.field, data=data) from None
    except Exception as exc:  # a check that broke on input it did not foresee: still a rejection
        raise Rejected("schema", f"{type(exc).__name__}: {exc}"[:500], data=data) from None
    try:
        check_topic_agrees(info, data)
    except TopicError as exc:
        raise Rejected("topic", str(exc), "board_id" if info.board_id else None, data=data) from None
    if kind in CLOCKED_KINDS:
        check_clock(data, limits.future_tolerance_ms, time.time_ns() // 1_000_000 if now_ms is None else now_ms)
    return info, kind, message


# Kinds whose ts orders what a receiver keeps (presence, error reports), so one from the
# future would outrank the present: refused beyond the tolerance. Game events and board
# states are never refused for their clock (that would lose moves of a board whose clock
# is off; the store dates nothing later than its own now), nor are engine replies, which
# are matched by Correlation Data and id (a Pi hours behind before NTP still gets hints).
CLOCKED_KINDS = frozenset({"status", "error"})


def check_clock(data: dict[str, Any], tolerance_ms: int, now_ms: int) -> None:
    """Raise ``Rejected`` (schema, field ``ts``) when ``data["ts"]`` lies more than
    ``tolerance_ms`` ahead of ``now_ms``. Messages without a ``ts`` pass."""
    ts = data.get("ts")
    if isinstance(ts, int) and ts > now_ms + tolerance_ms:
        raise Rejected("schema", f"ts is {(ts - now_ms) / 1000:.0f} s ahead of this receiver's clock "
                                 f"(at most {tolerance_ms / 1000:.0f} s)", "ts", data=data)
