"""Schemas, typed messages and validation, tied together (no broker needed)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from gobuddy.bus import topics
from gobuddy.bus.messages import (
    MESSAGE_TYPES,
    BoardFrame,
    BoardState,
    EngineAnswer,
    EngineRequest,
    GameEvent,
    GameStarted,
    MovePlayed,
    Passed,
    Position,
    Status,
    decode,
)
from gobuddy.bus.validation import KINDS, SCHEMA_DIR, MessageError, examples, schema, validate

ALL_EXAMPLES = [(kind, index, ex) for kind in KINDS for index, ex in enumerate(examples(kind))]


def is_within(expected: Any, actual: Any) -> bool:
    """Every key of ``expected`` is in ``actual`` with an equal value (recursively);
    ``actual`` may add keys (defaults that ``expected`` left out)."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(k in actual and is_within(v, actual[k]) for k, v in expected.items())
    if isinstance(expected, list):
        return isinstance(actual, list) and len(expected) == len(actual) and all(map(is_within, expected, actual))
    return expected == actual


def test_every_schema_file_is_a_known_kind_with_examples() -> None:
    files = {p.name.removesuffix(".schema.json") for p in SCHEMA_DIR.glob("*.schema.json")}
    assert files == set(KINDS) | {"common"}
    for kind in KINDS:
        Draft202012Validator.check_schema(schema(kind))
        assert len(examples(kind)) >= 2, kind
    assert set(MESSAGE_TYPES) == set(KINDS)


@pytest.mark.parametrize("kind,index,example", ALL_EXAMPLES, ids=[f"{k}-{i}" for k, i, _ in ALL_EXAMPLES])
def test_schema_example_round_trips_through_its_typed_object(kind: str, index: int, example: dict) -> None:
    message = decode(kind, example)
    assert type(message).KIND == kind
    data = message.to_dict()
    validate(kind, data)
    assert is_within(example, data)
    assert decode(kind, json.loads(json.dumps(data))) == message


def test_game_events_decode_to_the_subclass_named_by_type() -> None:
    types = {ex["type"]: type(decode("game_event", ex)).__name__ for ex in examples("game_event")}
    assert types == {"game_started": "GameStarted", "move": "MovePlayed", "pass": "Passed", "undo": "Undone",
                     "problem": "ProblemRaised", "problem_cleared": "ProblemCleared", "game_ended": "GameEnded",
                     "teaching": "Teaching"}
    move = examples("game_event")[2]
    assert isinstance(MovePlayed.from_dict(move), MovePlayed)
    with pytest.raises(MessageError, match="expected 'pass'"):
        Passed.from_dict(move)


def test_typed_objects_built_in_code_are_valid_with_defaults() -> None:
    built = [
        BoardFrame(board_id="board-1", seq=0, size=2, rows=("X.", ".O"), stable=True),
        BoardState(board_id="board-2"),
        GameStarted(board_id="board-1", game_id="g1", seq=0, size=9, komi=7.0, rules="chinese"),
        MovePlayed(board_id="board-1", game_id="g1", seq=1, move_number=1, color="B", vertex="E5"),
        EngineRequest(id="r1", board_id=None, purpose="analysis", max_visits=10, deadline_ms=1,
                      position=Position(size=9, komi=7.0, rules="chinese", moves=(("B", "E5"),))),
        Status(client_id="engine-1", role="engine", state="online", reason="connected", version="0.1.0",
               details={"queue_depth": 0}),
    ]
    for message in built:
        message.validate()
        assert decode(message.KIND, message.to_dict()) == message


def test_position_side_to_play() -> None:
    assert Position(9, 7.0, "chinese").side_to_play() == "B"
    assert Position(9, 7.0, "chinese", moves=(("B", "E5"),)).side_to_play() == "W"
    assert Position(9, 7.0, "chinese", moves=(("B", "E5"),), to_play="B").side_to_play() == "B"


def _mutated(kind: str, index: int, change: Any) -> dict:
    payload = copy.deepcopy(examples(kind)[index])
    change(payload)
    return payload


# (kind, example index, mutation, field the error must name)
INVALID = [
    ("game_event", 2, lambda p: p.pop("vertex"), "vertex"),
    ("game_event", 2, lambda p: p.update(vertex="I5"), "vertex"),
    ("game_event", 2, lambda p: p.update(vertex="e5"), "vertex"),
    ("game_event", 2, lambda p: p.update(captures=["A1", 5]), "captures[1]"),
    ("game_event", 2, lambda p: p.update(move_number=0), "move_number"),
    ("game_event", 2, lambda p: p.update(color="black"), "color"),
    ("game_event", 2, lambda p: p.update(seq="1"), "seq"),
    ("game_event", 2, lambda p: p.update(extra=True), "extra"),
    ("game_event", 2, lambda p: p.update(type="resign"), "type"),
    ("game_event", 2, lambda p: p.update(board_id="Board 1"), "board_id"),
    ("game_event", 2, lambda p: p.update(game_id="x" * 65), "game_id"),
    ("game_event", 0, lambda p: p.update(size=26), "size"),
    ("game_event", 0, lambda p: p.update(komi=7.25), "komi"),
    ("game_event", 0, lambda p: p.update(setup=[["B", "K10"]]), "setup[0][1]"),
    ("game_event", 6, lambda p: p.update(message="x" * 501), "message"),
    ("game_event", 8, lambda p: p.update(result="B+lots"), "result"),
    ("board_frame", 0, lambda p: p["rows"].pop(), "rows"),
    ("board_frame", 0, lambda p: p["rows"].__setitem__(3, "........"), "rows[3]"),
    ("board_frame", 0, lambda p: p["rows"].__setitem__(3, "....x...."), "rows[3]"),
    ("board_frame", 1, lambda p: p.update(raw=[1, 2, 3]), "raw"),
    ("board_state", 0, lambda p: p.update(move_number=5), "move_number"),
    ("board_state", 0, lambda p: p["moves"].append(["B", "J10"]), "moves[4][1]"),
    ("board_state", 0, lambda p: p.pop("problem"), "problem"),
    ("engine_request", 0, lambda p: p["position"]["moves"].append(["W", "J10"]), "position.moves[4][1]"),
    ("engine_request", 0, lambda p: p["position"]["moves"].append(["W"]), "position.moves[4]"),
    ("engine_request", 0, lambda p: p.update(top_k=0), "top_k"),
    ("engine_request", 0, lambda p: p.update(purpose="win"), "purpose"),
    ("engine_request", 0, lambda p: p.pop("deadline_ms"), "deadline_ms"),
    ("engine_answer", 0, lambda p: p["moves"][1].update(order=5), "moves[1].order"),
    ("engine_answer", 0, lambda p: p["moves"][0].update(winrate=1.5), "moves[0].winrate"),
    ("engine_answer", 0, lambda p: p["moves"][0]["pv"].append("Z99"), "moves[0].pv[3]"),
    ("engine_answer", 1, lambda p: p.update(ownership=[0.0] * 10), "ownership"),
    ("engine_answer", 0, lambda p: p["position_key"].update(hash="XYZ"), "position_key.hash"),
    ("status", 0, lambda p: p.update(state="busy"), "state"),
    ("status", 0, lambda p: p["details"].update(notes={"nested": 1}), "details.notes"),
    ("error", 0, lambda p: p.update(excerpt="x" * 201), "excerpt"),
]


@pytest.mark.parametrize("kind,index,change,field", INVALID, ids=[f"{k}-{f}" for k, _, _, f in INVALID])
def test_invalid_payload_is_rejected_naming_the_field(kind: str, index: int, change: Any, field: str) -> None:
    payload = _mutated(kind, index, change)
    with pytest.raises(MessageError) as info:
        decode(kind, payload)
    assert info.value.field == field, str(info.value)
    assert info.value.kind == kind


@pytest.mark.parametrize("payload", [None, [], "text", 42, {}])
def test_non_objects_and_empty_objects_are_rejected(payload: Any) -> None:
    with pytest.raises(MessageError):
        GameEvent.from_dict(payload)


def test_id_patterns_in_code_equal_the_schema() -> None:
    common = json.loads((SCHEMA_DIR / "common.schema.json").read_text())["$defs"]
    assert common["board_id"]["pattern"] == topics.BOARD_ID_PATTERN
    assert common["client_id"]["pattern"] == topics.CLIENT_ID_PATTERN
    assert tuple(common["role"]["enum"]) == topics.ROLES


def test_engine_answer_best_move() -> None:
    answer = EngineAnswer.from_dict(examples("engine_answer")[0])
    assert answer.best is not None and answer.best.move == "D6" and answer.best.pv[:2] == ("D6", "C6")
