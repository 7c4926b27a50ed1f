"""Hostile payloads at ``decode_incoming`` (no broker): every one decodes to a valid
message or raises ``Rejected``, never anything else, quickly, whatever its bytes."""

from __future__ import annotations

import gc
import json
import logging
import random
import re
import time
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from gobuddy.bus import topics
from gobuddy.bus.bounds import InboxLimits, nesting_depth
from gobuddy.bus.config import BusConfig
from gobuddy.bus.inbox import Rejected, decode_incoming, retained_by_design
from gobuddy.bus.message import now_ms
from gobuddy.bus.reporting import Reporter
from gobuddy.bus.validation import KINDS, SCHEMA_DIR, examples, schema, validate
from tests.bus.mutations import DAY_MS, body, deep, mutate, topic_for

EVENT_TOPIC = topics.board_event("board-1")
MOVE = examples("game_event")[2]  # board-1, seq 1
STATUS = examples("status")[0]


def rejection(topic: str, payload: bytes, **options: Any) -> Rejected:
    with pytest.raises(Rejected) as info:
        decode_incoming(topic, payload, **options)
    return info.value


# ---- the depth scan ---------------------------------------------------------------------

@pytest.mark.parametrize("text, depth", [
    (b"{}", 1), (b"[[1], [2, [3]]]", 3), (b'{"a": "[[[[[[[["}', 1), (b'{"a": "\\"[[[[", "b": [[]]}', 3),
    (b'["\\\\", [[]]]', 3), (b'"[[[', 0), (b'"\\', 0), (b"", 0), (b"]]]", 0),
])
def test_nesting_depth_skips_strings(text: bytes, depth: int) -> None:
    assert nesting_depth(text) == depth


@pytest.mark.parametrize("text", [b'"' + b'\\"' * 120_000, b'"\\' * 80_000, b'["' * 80_000, b"[" * 250_000])
def test_the_depth_scan_is_linear_on_pathological_bytes(text: bytes) -> None:
    started = time.perf_counter()
    nesting_depth(text)
    assert time.perf_counter() - started < 0.5


# ---- one rejection per hostile idea ------------------------------------------------------

def with_text(value_text: str, key: str = "captures") -> bytes:
    """MOVE with the raw JSON ``value_text`` as the value of ``key``."""
    return body({**MOVE, key: "@@"}).replace(b'"@@"', value_text.encode())


# (name, topic, payload, rejection kind, field)
HOSTILE = [
    ("array 100,000 deep", EVENT_TOPIC, deep(100_000), "too_deep", None),
    ("object 40,000 deep", EVENT_TOPIC, b'{"a":' * 40_000 + b"1" + b"}" * 40_000, "too_deep", None),
    ("deep inside a field", EVENT_TOPIC, with_text("[" * 20 + "]" * 20), "too_deep", None),
    ("deep and unterminated", EVENT_TOPIC, b"[" * 200_000, "too_deep", None),
    ("1 MB body", EVENT_TOPIC, body({**MOVE, "pad": "p" * 1_000_000}), "too_large", None),
    ("256 kB body", EVENT_TOPIC, body({**MOVE, "pad": "p" * 256 * 1024}), "too_large", None),
    ("256 kB of whitespace", EVENT_TOPIC, body(MOVE) + b" " * 256 * 1024, "too_large", None),
    ("a wide array", EVENT_TOPIC, with_text(json.dumps(["A1"] * 30_000)), "too_large", "captures"),
    ("a wide object", EVENT_TOPIC, with_text(json.dumps({f"k{i}": i for i in range(5_000)})), "too_large", "captures"),
    ("a long key", EVENT_TOPIC, with_text(json.dumps({"k" * 5_000: 1})), "too_large", "captures"),
    ("many small arrays", EVENT_TOPIC, with_text(json.dumps([[1]] * 1_900 + [[[1] * 30] * 100] * 10)), "too_large",
     None),
    ("NaN", EVENT_TOPIC, with_text("NaN", "seq"), "invalid_json", None),
    ("Infinity", EVENT_TOPIC, with_text("Infinity", "seq"), "invalid_json", None),
    ("-Infinity", EVENT_TOPIC, with_text("-Infinity", "seq"), "invalid_json", None),
    ("a float overflowing to inf", EVENT_TOPIC, with_text("1e400", "seq"), "invalid_json", None),
    ("an integer of 30 digits", EVENT_TOPIC, with_text("9" * 30, "seq"), "invalid_json", None),
    ("an integer of 5,000 digits", EVENT_TOPIC, with_text("9" * 5_000, "seq"), "invalid_json", None),
    ("1e308 for an integer", EVENT_TOPIC, with_text("1e308", "seq"), "schema", "seq"),
    ("1.0 for an integer", EVENT_TOPIC, with_text("1.0", "seq"), "schema", "seq"),
    ("true for an integer", EVENT_TOPIC, with_text("true", "seq"), "schema", "seq"),
    ("seq 10**7", EVENT_TOPIC, body({**MOVE, "seq": 10**7}), "schema", "seq"),
    ("seq 2**62", EVENT_TOPIC, body({**MOVE, "seq": 2**62}), "schema", "seq"),
    ("seq -1", EVENT_TOPIC, body({**MOVE, "seq": -1}), "schema", "seq"),
    ("ts of 1970", EVENT_TOPIC, body({**MOVE, "ts": 1_000}), "schema", "ts"),
    ("ts of 2286", EVENT_TOPIC, body({**MOVE, "ts": 9_999_999_999_999}), "schema", "ts"),
    ("invalid UTF-8", EVENT_TOPIC, body(MOVE).replace(b"board-1", b"board-\xff1", 1), "invalid_utf8", None),
    ("a truncated UTF-8 sequence", EVENT_TOPIC, body(MOVE)[:-1] + b"\xe2\x82", "invalid_utf8", None),
    ("a NUL in a player's name", topics.board_event("board-1"),
     body({**examples("game_event")[0], "players": {"B": {"name": "A\u0000", "kind": "human"},
                                                    "W": {"name": "B", "kind": "human"}}}),
     "schema", "players.B.name"),
    ("a status details key of 100 characters", topics.status("engine", "engine-pc1-0"),
     body({**STATUS, "details": {"k" * 100: 1}}), "too_large", "details"),
    ("a huge number in status details", topics.status("engine", "engine-pc1-0"),
     body({**STATUS, "details": {"x": 1e300}}), "schema", "details.x"),
]


@pytest.mark.parametrize("name, topic, payload, kind, field", HOSTILE, ids=[case[0] for case in HOSTILE])
def test_hostile_payloads_are_rejected_quickly(name: str, topic: str, payload: bytes, kind: str,
                                               field: str | None) -> None:
    # The decoder's own work: this thread's CPU (not the other threads a test process may
    # hold), with the collector held off (a full collection of a long-lived test process's
    # heap, set off by the payload's allocations, took 0.3 s once: not this code's cost).
    gc.collect()
    gc.disable()
    try:
        started = time.thread_time()
        rejected = rejection(topic, payload)
        spent = time.thread_time() - started
    finally:
        gc.enable()
    assert (rejected.kind, rejected.field) == (kind, field), rejected.message
    assert spent < 0.1


STATUS_TOPIC = topics.status("board", "board-1")
STATUS = {"client_id": "board-1", "role": "board", "state": "online", "reason": "connected", "version": "1",
          "details": {}}


def test_a_status_ts_ahead_of_the_receivers_clock_is_refused_within_its_tolerance() -> None:
    now = now_ms()
    ahead = {**STATUS, "ts": now + DAY_MS}
    assert rejection(STATUS_TOPIC, body(ahead), now_ms=now).field == "ts"
    assert decode_incoming(STATUS_TOPIC, body({**STATUS, "ts": now + 9 * 60_000}), now_ms=now)  # within 10 minutes
    assert rejection(STATUS_TOPIC, body({**STATUS, "ts": now + 11 * 60_000}), now_ms=now).field == "ts"
    lenient = InboxLimits(future_tolerance_ms=2 * DAY_MS)
    assert decode_incoming(STATUS_TOPIC, body(ahead), limits=lenient, now_ms=now)


def test_moves_and_engine_replies_are_never_refused_for_the_senders_clock() -> None:
    """A board whose clock is off keeps its moves (the store dates nothing in the future),
    and a requester hours behind its workers still gets its answers."""
    now = now_ms()
    assert decode_incoming(EVENT_TOPIC, body({**MOVE, "ts": now + DAY_MS}), now_ms=now)
    answer = {**examples("engine_answer")[0], "board_id": "board-1", "ts": now + 3 * 3600_000}
    assert decode_incoming(topics.board_led("board-1"), body(answer), now_ms=now)
    assert decode_incoming(topics.engine_response("board", "board-1"), body(answer), now_ms=now)


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    problem = {**examples("game_event")[6], "message": "[" * 200 + "{" * 200}
    assert decode_incoming(EVENT_TOPIC, body(problem))[2].message == problem["message"]


def test_only_state_and_status_are_retained_by_design() -> None:
    retained = {family for family, spec in topics.SPECS.items() if spec.retain}
    assert retained == {"state", "status"}
    assert retained_by_design(topics.board_state("board-1")) and retained_by_design(topics.status("board", "board-1"))
    for topic in (EVENT_TOPIC, topics.board_led("board-1"), topics.engine_request("board", "board-1"),
                  topics.engine_response("board", "board-1"), topics.error("board", "board-1"),
                  topics.board_frame("board-1"), topics.board_button("board-1"), "elsewhere/x", None):
        assert not retained_by_design(topic)


def test_every_integer_in_the_schemas_is_bounded_for_postgresql() -> None:
    """Every "integer" has a minimum and a maximum within BIGINT; every "number" a range;
    every array maxItems; every string maxLength or a bounded pattern, enum or const."""
    unbounded: list[str] = []

    def visit(node: Any, where: str) -> None:
        if isinstance(node, dict):
            kind = node.get("type")
            if kind in ("integer", "number") and not ("maximum" in node and "minimum" in node):
                unbounded.append(where)
            if kind == "integer" and not -2**63 <= node.get("minimum", 0) <= node.get("maximum", 0) < 2**63:
                unbounded.append(where)
            if kind == "array" and "maxItems" not in node and "prefixItems" not in node:
                unbounded.append(where)
            if kind == "string" and "maxLength" not in node and not finite_pattern(node.get("pattern", "*")):
                unbounded.append(where)
            for key, value in node.items():
                visit(value, f"{where}/{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                visit(value, f"{where}/{index}")

    for kind in (*KINDS, "common"):
        visit({k: v for k, v in (schema(kind) if kind != "common" else _common()).items() if k != "examples"}, kind)
    assert unbounded == []


def finite_pattern(pattern: str) -> bool:
    """An anchored pattern without an unbounded repetition matches strings of bounded length."""
    plain = re.sub(r"\\.", "", pattern)
    return plain.startswith("^") and plain.endswith("$") and "*" not in plain and "+" not in plain


def _common() -> dict[str, Any]:
    return json.loads((SCHEMA_DIR / "common.schema.json").read_text())


# ---- the worker's refusal goes only where the requester's account reads ------------------

def request_message(topic: str, payload: bytes, response_topic: str | None) -> mqtt.MQTTMessage:
    msg = mqtt.MQTTMessage(topic=topic.encode())
    msg.payload = payload
    msg.properties = Properties(PacketTypes.PUBLISH)
    if response_topic is not None:
        msg.properties.ResponseTopic = response_topic
    msg.properties.CorrelationData = b"c1"
    return msg


REQUEST_TOPIC = topics.engine_request("board", "board-1")
OWN = topics.engine_response("board", "board-1")


@pytest.mark.parametrize("payload, response_topic, replies", [
    (deep(100_000), OWN, [(OWN, "")]),
    (body({**examples("engine_request")[0], "max_visits": 1e308}), OWN, [(OWN, "board-1:hint:41")]),
    (b"{broken", OWN, [(OWN, "")]),
    (deep(100_000), topics.engine_response("board", "board-2"), []),  # never where a request names
    (deep(100_000), topics.engine_response("dashboard", "dashboard"), []),
    (deep(100_000), None, []),
])
def test_an_invalid_request_is_refused_on_the_requesters_own_topic(payload: bytes, response_topic: str | None,
                                                                  replies: list) -> None:
    sent: list[tuple[str, Any]] = []

    def publish(topic: str, message: Any, **options: Any) -> None:
        if message.KIND == "engine_error":
            validate("engine_error", message.to_dict())
            sent.append((topic, message.id))

    reporter = Reporter(BusConfig(client_id="engine-1", role="engine"), publish, _quiet_log())
    msg = request_message(REQUEST_TOPIC, payload, response_topic)
    try:
        decode_incoming(REQUEST_TOPIC, payload)
    except Rejected as rejected:
        reporter.reject(msg, rejected)
    assert sent == replies and reporter.rejected == 1


def _quiet_log() -> logging.Logger:
    log = logging.getLogger("tests.hostile")
    log.disabled = True
    return log


# ---- the fuzz: mutations of every schema's own examples ----------------------------------

SEEDS = [(kind, example) for kind in KINDS for example in examples(kind)]
FUZZ_PAYLOADS = 5_400


def test_fuzzed_examples_are_decoded_or_rejected_never_anything_else() -> None:
    rng = random.Random(20261125)
    outcomes: dict[str, int] = {}
    slowest = (0.0, "")
    started = time.perf_counter()
    for n in range(FUZZ_PAYLOADS):
        kind, example = SEEDS[n % len(SEEDS)]
        topic = topic_for(kind, example)
        what, payload = mutate(rng, example)
        began = time.perf_counter()
        try:
            _, got_kind, message = decode_incoming(topic, payload)
        except Rejected as rejected:
            outcomes[rejected.kind] = outcomes.get(rejected.kind, 0) + 1
        except BaseException as exc:  # the property under test: nothing but Rejected
            pytest.fail(f"{kind} mutated by {what}: {type(exc).__name__}: {exc}")
        else:
            validate(got_kind, message.to_dict())
            outcomes["valid"] = outcomes.get("valid", 0) + 1
        slowest = max(slowest, (time.perf_counter() - began, f"{kind}: {what}"))
    elapsed = time.perf_counter() - started
    assert sum(outcomes.values()) == FUZZ_PAYLOADS
    assert {"too_deep", "too_large", "invalid_json", "invalid_utf8", "schema", "valid"} <= set(outcomes), outcomes
    assert slowest[0] < 0.5, slowest
    print(f"\n{FUZZ_PAYLOADS} payloads in {elapsed:.1f} s: {outcomes}; slowest {slowest[0] * 1000:.0f} ms "
          f"({slowest[1]})")


def test_a_valid_example_survives_the_fuzz_helpers() -> None:
    for kind, example in SEEDS:
        assert decode_incoming(topic_for(kind, example), body(example))[1] in (kind, "engine_answer", "engine_error")

