"""What a received message must pass before any handler sees it (no broker needed)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gobuddy.bus.inbox import Rejected, decode_incoming
from gobuddy.bus.validation import examples

MOVE = examples("game_event")[2]  # board-1
EVENT_TOPIC = "gobuddy/v1/board/board-1/event"


def body(payload: object) -> bytes:
    return json.dumps(payload).encode()


def test_a_valid_message_decodes() -> None:
    info, kind, message = decode_incoming(EVENT_TOPIC, body(MOVE), 10_000)
    assert (info.board_id, kind, type(message).__name__) == ("board-1", "game_event", "MovePlayed")


def test_engine_response_topics_carry_answers_or_errors() -> None:
    topic = "gobuddy/v1/engine/response/board/board-1"
    assert decode_incoming(topic, body(examples("engine_answer")[0]), 10_000)[1] == "engine_answer"
    assert decode_incoming(topic, body(examples("engine_error")[0]), 10_000)[1] == "engine_error"


# (topic, payload, rejection kind, field)
REJECTIONS = [
    (None, body(MOVE), "topic", None),
    ("gobuddy/v1/board/board-1/event/x", body(MOVE), "topic", None),
    ("gobuddy/v1/board/board-1/moves", body(MOVE), "topic", None),
    ("elsewhere/board-1/event", body(MOVE), "topic", None),
    (EVENT_TOPIC, b"\xff\xfe{}", "invalid_utf8", None),
    (EVENT_TOPIC, b"{\"type\": \"move\",", "invalid_json", None),
    (EVENT_TOPIC, b"", "invalid_json", None),
    (EVENT_TOPIC, body({**MOVE, "captures": []}).replace(b"[]", b"NaN"), "invalid_json", None),
    (EVENT_TOPIC, body([MOVE]), "schema", None),
    (EVENT_TOPIC, body({**MOVE, "seq": "one"}), "schema", "seq"),
    (EVENT_TOPIC, body({k: v for k, v in MOVE.items() if k != "color"}), "schema", "color"),
    (EVENT_TOPIC, body({**MOVE, "game_id": "g" * 100_000}), "too_large", None),
    (EVENT_TOPIC, body({**MOVE, "game_id": "g" * 1_000}), "schema", "game_id"),
    (EVENT_TOPIC, body({**MOVE, "game_id": "g" * 5_000}), "too_large", "game_id"),  # longer than any string
    ("gobuddy/v1/board/board-2/event", body(MOVE), "topic", "board_id"),  # payload of another board
    ("gobuddy/v1/board/board-1/frame", body(MOVE), "schema", "size"),     # wrong kind for the topic
    ("gobuddy/v1/status/engine/engine-9", body(examples("status")[0]), "topic", None),
    ("gobuddy/v1/engine/request/board/board-2", body(examples("engine_request")[0]), "topic", None),
]


@pytest.mark.parametrize("topic,payload,kind,field", REJECTIONS)
def test_rejections(topic: str | None, payload: bytes, kind: str, field: str | None) -> None:
    with pytest.raises(Rejected) as info:
        decode_incoming(topic, payload, 50_000)
    assert (info.value.kind, info.value.field) == (kind, field), info.value.message


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(payload=st.binary(max_size=200))
def test_any_bytes_are_decoded_or_rejected_never_crash(payload: bytes) -> None:
    try:
        decode_incoming(EVENT_TOPIC, payload, 10_000)
    except Rejected:
        pass


@settings(max_examples=200, deadline=None)
@given(value=json_values, key=st.sampled_from(sorted(MOVE)))
def test_any_json_in_any_field_is_decoded_or_rejected_never_crash(value: object, key: str) -> None:
    for payload in (value, {**MOVE, key: value}):
        try:
            decode_incoming(EVENT_TOPIC, json.dumps(payload).encode(), 10_000)
        except Rejected:
            pass
