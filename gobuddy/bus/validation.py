"""Validation of message payloads against the JSON Schemas in the repository's ``schemas/``.

``validate(kind, payload)`` checks a decoded JSON payload (plain dicts, lists, str, int,
float, bool, None) against ``schemas/<kind>.schema.json`` (draft 2020-12) and then the few
rules a schema cannot express (lengths that depend on ``size``, vertices on the board,
ranks in order). It raises ``MessageError`` naming the offending field as a path such as
``moves[3].pv[0]``. Validators are compiled once per process, on first use.

Stricter than JSON Schema in one respect: ``"type": "integer"`` admits only integers
written as such (``5``), never a number with a zero fraction (``5.0``, ``1e308``).
Every number, string and array in the schemas has a bound, and every integer fits
PostgreSQL's INTEGER (or BIGINT for times), so a valid message is one the store takes.

The schema directory is found relative to this package (``<repo>/schemas``); it is read,
never written. Not checked here: that topics match payloads (see ``client``), and
anything about Go beyond coordinates (legality, captures, hashes).
"""

from __future__ import annotations

import json
import math
import re
from functools import cache
from pathlib import Path
from typing import Any, Callable

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from jsonschema.validators import extend
from referencing import Registry, Resource

from gobuddy.go.coords import CoordinateError, from_gtp

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schemas"
KINDS = (
    "board_frame",
    "button_event",
    "game_event",
    "board_state",
    "engine_request",
    "engine_answer",
    "engine_error",
    "engine_progress",
    "game_stored",
    "board_command",
    "status",
    "error",
)


class MessageError(ValueError):
    """A payload that is not a valid message of ``kind``; ``field`` is a path or None."""

    def __init__(self, kind: str, field: str | None, reason: str):
        self.kind = kind
        self.field = field
        self.reason = reason
        where = f" at {field}" if field else ""
        super().__init__(f"invalid {kind}{where}: {reason}")


# ---- loading ---------------------------------------------------------------------------

@cache
def _registry() -> Registry:
    resources = []
    for path in sorted(SCHEMA_DIR.glob("*.schema.json")):
        contents = json.loads(path.read_text(encoding="utf-8"))
        Draft202012Validator.check_schema(contents)
        resources.append((contents["$id"], Resource.from_contents(contents)))
    return Registry().with_resources(resources)


def schema(kind: str) -> dict[str, Any]:
    """The parsed JSON Schema of ``kind`` (raises ``KeyError`` for an unknown kind)."""
    if kind not in KINDS:
        raise KeyError(f"unknown message kind {kind!r}; known: {', '.join(KINDS)}")
    return _registry().contents(f"https://schemas.gobuddy.invalid/v1/{kind}.schema.json")


def _is_integer(checker: Any, instance: Any) -> bool:
    """JSON Schema's "integer" also admits numbers with a zero fraction (``1.0``,
    ``1e308``); ours admits only integers written as such, so a value a consumer stores
    in an INTEGER column or loops over is a Python ``int`` (``bool`` excluded)."""
    return isinstance(instance, int) and not isinstance(instance, bool)


StrictValidator = extend(Draft202012Validator,
                         type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer))


@cache
def _validator(kind: str) -> Draft202012Validator:
    return StrictValidator(schema(kind), registry=_registry())


def examples(kind: str) -> list[dict[str, Any]]:
    """The ``examples`` listed in the schema of ``kind`` (each a valid payload)."""
    return list(schema(kind).get("examples", []))


# ---- validating ------------------------------------------------------------------------

def validate(kind: str, payload: Any) -> None:
    """Raise ``MessageError`` unless ``payload`` is a valid message of ``kind``."""
    errors = list(_validator(kind).iter_errors(payload))
    if errors:
        # A failed if/then leaves its properties "unevaluated": report the real cause.
        specific = [e for e in errors if e.validator != "unevaluatedProperties"] or errors
        error = best_match(specific)
        raise MessageError(kind, _error_field(error), _short(error.message))
    check = _CHECKS.get(kind)
    if check is not None:
        check(payload)


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def format_path(path: Any) -> str | None:
    """``["moves", 3, "pv", 0]`` -> ``"moves[3].pv[0]"``; empty -> None."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or None


_UNEXPECTED = re.compile(r"\('([^']*)'")


def _error_field(error: ValidationError) -> str | None:
    path = list(error.absolute_path)
    if error.validator == "required" and isinstance(error.instance, dict):
        missing = [name for name in error.validator_value if name not in error.instance]
        path += missing[:1]
    elif error.validator in ("additionalProperties", "unevaluatedProperties"):
        found = _UNEXPECTED.search(error.message)
        if found:
            path.append(found.group(1))
    return format_path(path)


# ---- checks a JSON Schema cannot express -----------------------------------------------

def _fail(kind: str, path: list[Any], reason: str) -> None:
    raise MessageError(kind, format_path(path), reason)


def _on_board(kind: str, path: list[Any], vertex: str, size: int) -> None:
    try:
        from_gtp(vertex, size)
    except CoordinateError as exc:
        _fail(kind, path, str(exc))


def _check_frame(p: dict[str, Any]) -> None:
    size = p["size"]
    if len(p["rows"]) != size:
        _fail("board_frame", ["rows"], f"{len(p['rows'])} rows on a {size}x{size} board")
    for index, row in enumerate(p["rows"]):
        if len(row) != size:
            _fail("board_frame", ["rows", index], f"{len(row)} columns on a {size}x{size} board")
    if p["raw"] is not None and len(p["raw"]) != size * size:
        _fail("board_frame", ["raw"], f"{len(p['raw'])} readings, expected {size * size}")


def _check_position(kind: str, base: list[Any], size: int, setup: list, moves: list) -> None:
    for index, (_, vertex) in enumerate(setup):
        _on_board(kind, base + ["setup", index, 1], vertex, size)
    for index, (_, vertex) in enumerate(moves):
        _on_board(kind, base + ["moves", index, 1], vertex, size)


def _check_state(p: dict[str, Any]) -> None:
    size = p["size"]
    _check_position("board_state", [], size, p["setup"], p["moves"])
    if p["move_number"] != len(p["moves"]):
        _fail("board_state", ["move_number"], f"{p['move_number']} but {len(p['moves'])} moves listed")
    if p["problem"] is not None:
        for index, vertex in enumerate(p["problem"]["points"]):
            _on_board("board_state", ["problem", "points", index], vertex, size)


def _check_game_event(p: dict[str, Any]) -> None:
    if p["type"] == "game_started":
        _check_position("game_event", [], p["size"], p["setup"], [])


def _check_request(p: dict[str, Any]) -> None:
    position = p["position"]
    _check_position("engine_request", ["position"], position["size"], position.get("setup", []),
                    position["moves"])
    if p.get("judge") is not None:
        _on_board("engine_request", ["judge", "move"], p["judge"]["move"], position["size"])


def _check_answer(p: dict[str, Any]) -> None:
    for index, info in enumerate(p["moves"]):
        if info["order"] != index:
            _fail("engine_answer", ["moves", index, "order"], f"order {info['order']} at rank {index}")
    ownership = p["ownership"]
    if ownership is not None:
        side = math.isqrt(len(ownership))
        if side * side != len(ownership) or not 2 <= side <= 25:
            _fail("engine_answer", ["ownership"], f"{len(ownership)} values is not size*size for a size 2..25")


_CHECKS: dict[str, Callable[[dict[str, Any]], None]] = {
    "board_frame": _check_frame,
    "board_state": _check_state,
    "game_event": _check_game_event,
    "engine_request": _check_request,
    "engine_answer": _check_answer,
}
