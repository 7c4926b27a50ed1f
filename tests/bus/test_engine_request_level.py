"""The optional ``level`` and ``seed`` of an engine request: schema, typed object and
example tied together, and a request without them read exactly as before."""

from __future__ import annotations

import copy
import json

import pytest

from gobuddy.ai.levels import level_names
from gobuddy.bus.messages import EngineRequest, Position, decode
from gobuddy.bus.validation import MessageError, examples, schema, validate


def test_the_schema_lists_the_levels_weakest_first() -> None:
    level = schema("engine_request")["properties"]["level"]
    assert level["anyOf"][0]["enum"] == level_names()
    assert level["anyOf"][1] == {"type": "null"} and level["default"] is None


def test_a_level_request_round_trips() -> None:
    example = next(e for e in examples("engine_request") if e.get("level") is not None)
    request = decode("engine_request", example)
    assert isinstance(request, EngineRequest)
    assert (request.purpose, request.level, request.seed) == ("genmove", "15 kyu", 20261125)
    data = request.to_dict()
    validate("engine_request", data)
    assert decode("engine_request", json.loads(json.dumps(data))) == request


def test_a_request_without_a_level_is_read_as_before() -> None:
    for example in examples("engine_request"):
        if "level" in example:
            continue
        request = decode("engine_request", example)
        assert request.level is None and request.seed is None
    built = EngineRequest(id="r1", board_id=None, purpose="genmove", max_visits=10, deadline_ms=1,
                          position=Position(size=9, komi=7.0, rules="chinese"))
    built.validate()
    assert built.to_dict()["level"] is None and decode("engine_request", built.to_dict()) == built


@pytest.mark.parametrize("change, field", [
    (lambda p: p.update(level="3 dan"), "level"),
    (lambda p: p.update(level="15-kyu"), "level"),
    (lambda p: p.update(level=15), "level"),
    (lambda p: p.update(seed=-1), "seed"),
    (lambda p: p.update(seed=2**31), "seed"),
    (lambda p: p.update(seed="7"), "seed"),
])
def test_a_bad_level_or_seed_is_refused_naming_the_field(change, field) -> None:
    payload = copy.deepcopy(next(e for e in examples("engine_request") if e.get("level") is not None))
    change(payload)
    with pytest.raises(MessageError) as info:
        decode("engine_request", payload)
    assert info.value.field == field, str(info.value)
