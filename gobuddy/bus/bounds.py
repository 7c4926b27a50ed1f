"""Bounds on a received payload, checked before the expensive work: the numbers every
consumer may rely on, and the cheap checks that enforce them.

``InboxLimits`` holds the limits a receiver applies (size, nesting depth, how far in
the future a ``ts`` may lie on the receiver's clock). ``nesting_depth(body)`` scans the
raw bytes for bracket depth without parsing (strings skipped), so ``json.loads`` never
meets a document deep enough to exhaust the interpreter's stack. ``shape_problem(data)``
walks the parsed JSON once, without recursion, and names the first array, object,
string or document that is larger than any message of the v1 schemas can be, so schema
validation (the expensive part) only ever runs on bounded input.

The bounds are generic (the same for every kind); each schema's own ``maxItems``,
``maxLength`` and number ranges are tighter and checked afterwards. Pure functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from gobuddy.bus.validation import format_path

FUTURE_TOLERANCE_MS = 10 * 60 * 1000  # how far ahead of the receiver's clock a ts may be
MAX_DEPTH = 16  # the deepest message (engine_answer moves[i].pv) nests 3 deep
MAX_ARRAY_ITEMS = 2000  # the longest array of any schema (moves)
MAX_OBJECT_KEYS = 64  # the widest object of any schema has 18 properties; status details 32
MAX_STRING_CHARS = 1024  # the longest string of any schema is a 500-character text
MAX_KEY_CHARS = 64
MAX_NODES = 20_000  # values in one document; a full 2,000-move board_state has about 6,100


@dataclass(frozen=True)
class InboxLimits:
    """What a receiver accepts: ``max_bytes`` of payload, ``max_depth`` of nesting, and
    a ``ts`` at most ``future_tolerance_ms`` ahead of its own clock (older than 2020 is
    refused by the schemas themselves)."""

    max_bytes: int = 256 * 1024
    max_depth: int = MAX_DEPTH
    future_tolerance_ms: int = FUTURE_TOLERANCE_MS

    def __post_init__(self) -> None:
        if self.max_bytes < 1 or self.max_depth < 1 or self.future_tolerance_ms < 0:
            raise ValueError(f"invalid inbox limits: {self}")


# A JSON string: it cannot fail to match once started (an unterminated string runs to the
# end, a lone trailing backslash included), and the possessive loop never backtracks, so
# the scan is linear whatever the bytes (a failing pattern would be quadratic on '"\"\"...').
_STRING = re.compile(rb'"(?:[^"\\]++|\\.|\\\Z)*+(?:"|\Z)', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = [0] * 256
_STEP[ord("[")] = _STEP[ord("{")] = 1
_STEP[ord("]")] = _STEP[ord("}")] = -1


def nesting_depth(body: bytes) -> int:
    """The deepest nesting of arrays and objects in JSON text ``body``, brackets inside
    strings not counted. Linear in ``len(body)``; never parses. For text that is not JSON
    the result is only an upper bound of what a parser would reach before failing."""
    brackets = _STRING.sub(b"", body).translate(None, _NOT_BRACKETS)
    return max(accumulate(map(_STEP.__getitem__, brackets), initial=0))


def exceeds_depth(body: bytes, limit: int) -> int | None:
    """``nesting_depth(body)`` when it is more than ``limit``, else None (with a shortcut:
    a body with at most ``limit`` opening brackets cannot be deeper)."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return None
    depth = nesting_depth(body)
    return depth if depth > limit else None


def shape_problem(data: Any) -> tuple[str, str | None] | None:
    """(reason, field path) for the first part of ``data`` larger than any message may
    be (array, object, string, dict key, or the whole document's count of values), or
    None. Iterative: the depth of ``data`` does not matter."""
    stack: list[tuple[Any, tuple[Any, ...]]] = [(data, ())]
    nodes = 0
    while stack:
        value, path = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            return f"more than {MAX_NODES} values in one message", None
        if isinstance(value, list):
            if len(value) > MAX_ARRAY_ITEMS:
                return f"an array of {len(value)} items (at most {MAX_ARRAY_ITEMS})", format_path(path)
            stack.extend((item, path + (index,)) for index, item in enumerate(value))
        elif isinstance(value, dict):
            if len(value) > MAX_OBJECT_KEYS:
                return f"an object of {len(value)} keys (at most {MAX_OBJECT_KEYS})", format_path(path)
            for key, item in value.items():
                if len(key) > MAX_KEY_CHARS:
                    return f"a key of {len(key)} characters (at most {MAX_KEY_CHARS})", format_path(path)
                stack.append((item, path + (key,)))
        elif isinstance(value, str) and len(value) > MAX_STRING_CHARS:
            return f"a string of {len(value)} characters (at most {MAX_STRING_CHARS})", format_path(path)
    return None

