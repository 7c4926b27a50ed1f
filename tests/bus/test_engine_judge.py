"""The optional ``judge`` of an engine request and the ``judgement`` of its answer:
schema, typed object and example tied together; requests and answers without them
read exactly as before; a bad judge is refused naming the field."""

from __future__ import annotations

import copy
import json

import pytest

from gobuddy.ai.levels import level_names
from gobuddy.bus.messages import EngineAnswer, EngineRequest, Judge, MoveJudgement, Position, decode
from gobuddy.bus.validation import MessageError, examples, schema, validate


def _judge_request() -> dict:
    return copy.deepcopy(next(e for e in examples("engine_request") if e.get("judge") is not None))


def _judged_answer() -> dict:
    return copy.deepcopy(next(e for e in examples("engine_answer") if e.get("judgement") is not None))


def test_the_schemas_list_the_levels_weakest_first() -> None:
    judge = schema("engine_request")["properties"]["judge"]["anyOf"][0]
    assert judge["properties"]["level"]["enum"] == level_names()
    judgement = schema("engine_answer")["properties"]["judgement"]["anyOf"][0]
    assert judgement["properties"]["level"]["enum"] == level_names()


def test_a_judge_request_round_trips() -> None:
    request = decode("engine_request", _judge_request())
    assert isinstance(request, EngineRequest)
    assert request.judge == Judge(move="A1", level="25 kyu") and request.purpose == "analysis"
    data = request.to_dict()
    validate("engine_request", data)
    assert decode("engine_request", json.loads(json.dumps(data))) == request


def test_a_judged_answer_round_trips() -> None:
    answer = decode("engine_answer", _judged_answer())
    assert isinstance(answer, EngineAnswer) and isinstance(answer.judgement, MoveJudgement)
    j = answer.judgement
    assert (j.move, j.best, j.points_lost, j.mistake, j.searched) == ("A1", "C5", 11.3, True, "after")
    assert j.tolerance.safe_winrate == 0.9
    data = answer.to_dict()
    validate("engine_answer", data)
    assert decode("engine_answer", json.loads(json.dumps(data))) == answer


def test_messages_without_them_are_read_as_before() -> None:
    for example in examples("engine_request"):
        if "judge" not in example:
            assert decode("engine_request", example).judge is None
    for example in examples("engine_answer"):
        if "judgement" not in example:
            assert decode("engine_answer", example).judgement is None
    built = EngineRequest(id="r1", board_id=None, purpose="analysis", max_visits=10, deadline_ms=1,
                          position=Position(size=9, komi=7.0, rules="chinese"))
    assert built.to_dict()["judge"] is None and decode("engine_request", built.to_dict()) == built


@pytest.mark.parametrize("kind, change, field", [
    ("engine_request", lambda p: p["judge"].update(level="3 dan"), "judge.level"),
    ("engine_request", lambda p: p["judge"].update(move="I5"), "judge.move"),
    ("engine_request", lambda p: p["judge"].update(move="K5"), "judge.move"),  # off a 9x9 board
    ("engine_request", lambda p: p["judge"].pop("level"), "judge.level"),
    ("engine_request", lambda p: p["judge"].update(colour="B"), "judge.colour"),
    ("engine_answer", lambda p: p["judgement"].update(searched="guessed"), "judgement.searched"),
    ("engine_answer", lambda p: p["judgement"].update(points_lost="6"), "judgement.points_lost"),
    ("engine_answer", lambda p: p["judgement"]["tolerance"].pop("safe_winrate"), "judgement.tolerance.safe_winrate"),
    ("engine_answer", lambda p: p["judgement"].pop("mistake"), "judgement.mistake"),
])
def test_a_bad_judge_or_judgement_is_refused_naming_the_field(kind, change, field) -> None:
    payload = _judge_request() if kind == "engine_request" else _judged_answer()
    change(payload)
    with pytest.raises(MessageError) as info:
        decode(kind, payload)
    assert info.value.field == field, str(info.value)
