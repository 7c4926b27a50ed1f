"""Mutations of the schemas' own examples, for fuzzing receivers (``mutate``), and a
topic on which each example is valid (``topic_for``). Deterministic for a given
``random.Random``. Used by the decode fuzz (tests/bus) and the broker-level fuzz of the
services (tests/services)."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from gobuddy.bus import topics
from gobuddy.bus.message import now_ms

DAY_MS = 24 * 3600 * 1000


def body(payload: object) -> bytes:
    return json.dumps(payload).encode()


def deep(depth: int, opener: bytes = b"[", closer: bytes = b"]") -> bytes:
    return opener * depth + closer * depth


def topic_for(kind: str, example: dict[str, Any]) -> str:
    """A topic on which ``example`` (of ``kind``) is valid."""
    board = example.get("board_id")
    if kind == "board_frame":
        return topics.board_frame(board)
    if kind == "button_event":
        return topics.board_button(board)
    if kind == "game_event":
        return topics.board_event(board)
    if kind == "board_state":
        return topics.board_state(board)
    if kind == "game_stored":
        return topics.board_stored(board)
    if kind == "board_command":
        return topics.board_command(board)
    if kind == "engine_request":
        return topics.engine_request("board", board) if topics.is_physical_board_id(board) else \
            topics.engine_request("dashboard", "dashboard")
    if kind.startswith("engine_"):  # answers, errors, progress: what a requester receives
        return topics.engine_response("dashboard", "dashboard")
    return (topics.status if kind == "status" else topics.error)(example["role"], example["client_id"])


JUNK: list[Any] = [None, True, False, 0, -1, 1.5, 2**31, 2**63, 10**7, 1e308, -1e308, 1.0, "", "x" * 600,
                   "x" * 2_000, "\u0000", "\ud800", "é" * 300, [], {}, [[[]]], {"a": {"b": [1]}}, [None] * 50,
                   ["A1"] * 700, list(range(3_000)), {"k": "v" * 2_000}]
RAW_JUNK = ["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "9" * 40, "[" * 40 + "]" * 40, "{" * 30,
            '"' + "\\" * 11, "tru", "nul", "0x10", "01", "1.", ".5", "--1", '"\\ud800"', "[1,]", "{,}"]


def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path to a value inside ``value`` (dict keys and list indexes)."""
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            out += paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += paths(item, prefix + (index,))
    return out


def put(data: Any, path: tuple, value: Any) -> None:
    for part in path[:-1]:
        data = data[part]
    data[path[-1]] = value


def delete(data: Any, path: tuple) -> None:
    for part in path[:-1]:
        data = data[part]
    del data[path[-1]]


def mutate(rng: random.Random, example: dict[str, Any], *, max_bytes: int = 1024 * 1024) -> tuple[str, bytes]:
    """(description, payload): one mutation of ``example``: a field deleted, retyped or
    given junk (raw JSON junk too: NaN, Infinity, 1e400, 40 digits), an unknown field,
    nesting up to 100,000, a huge array, invalid UTF-8, a body near or over 256 kB (up to
    ``max_bytes``), truncation, random bytes, a ts from another time, duplicate keys."""
    data = copy.deepcopy(example)
    where = rng.choice(paths(data))
    choice = rng.randrange(14)
    if choice == 0:
        delete(data, where)
        return f"delete {where}", body(data)
    if choice in (1, 2, 3):
        junk = rng.choice(JUNK)
        put(data, where, junk)
        return f"retype {where} to {str(junk)[:20]}", json.dumps(data, ensure_ascii=rng.random() < 0.5).encode(
            "utf-8", "surrogatepass")
    if choice == 4:
        put(data, where, "@@")
        raw = rng.choice(RAW_JUNK)
        return f"raw {raw[:20]} at {where}", body(data).replace(b'"@@"', raw.encode())
    if choice == 5:
        data[rng.choice(["extra", "unexpected", "type", "__proto__"])] = rng.choice(JUNK)
        return "an unknown field", body(data)
    if choice == 6:
        size = rng.choice([17, 100, 1_000, 20_000, 100_000])
        put(data, where, "@@")
        return f"nesting {size} at {where}", body(data).replace(b'"@@"', deep(size, *rng.choice(
            [(b"[", b"]"), (b'{"a":', b"}")])) if size < 50_000 else b"[" * size + b"]" * size)
    if choice == 7:
        put(data, where, [rng.choice(JUNK[:12])] * rng.choice([2_001, 10_000, 40_000]))
        return f"huge array at {where}", body(data)
    if choice == 8:
        text = bytearray(body(data))
        for _ in range(rng.randint(1, 4)):
            text.insert(rng.randrange(len(text) + 1), rng.choice([0xFF, 0xC3, 0xE2, 0x80, 0xED, 0xF4]))
        return "invalid UTF-8", bytes(text)
    if choice == 9:
        size = rng.choice([s for s in (256 * 1024 - 50, 256 * 1024 + 1, 1024 * 1024) if s < max_bytes - 1000])
        data["pad"] = "p" * size
        return f"a body of {size} bytes", body(data)
    if choice == 10:
        text = body(data)
        return "truncated", text[:rng.randrange(len(text))]
    if choice == 11:
        text = bytearray(body(data))
        for _ in range(rng.randint(1, 6)):
            text[rng.randrange(len(text))] = rng.randrange(256)
        return "random bytes", bytes(text)
    if choice == 12:
        if "ts" in data:
            data["ts"] = rng.choice([now_ms() + 2 * DAY_MS, 0, 1_500_000_000_000, now_ms() + 10**9, -5])
        return "a ts from another time", body(data)
    text = body(data)
    return "duplicate keys", text[:-1] + b', "' + rng.choice(list(data)).encode() + b'": null}'


