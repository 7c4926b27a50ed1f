"""An engine worker (``python -m engine_worker`` with the shipped model, real Mosquitto)
asked for a hint with ``explain`` (as a board asks): the answer carries the heaviest
reason for its first move, the one ``gobuddy.explain`` gives for that answer (here the
capture of a stone in atari, the group it is about named first); without ``explain``
there is none; with purpose genmove it is refused naming the field."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from engine_worker.answer import wire_reason
from gobuddy.bus.requests import EngineRequestFailed
from gobuddy.bus.validation import validate
from gobuddy.go.coords import from_gtp
from gobuddy.go.position import Position
from tests.services.processes import Service, make_request, shipped_worker

WORKER = "engine-explainer"
ATARI = [("B", "E5"), ("W", "D5"), ("B", "D4"), ("W", "pass"), ("B", "C5"), ("W", "pass")]  # D5 in atari at D6


@pytest.fixture(scope="module")
def worker(broker, presence) -> Iterator[Service]:
    with shipped_worker(broker, presence, WORKER) as service:
        yield service


def test_a_hint_with_explain_carries_its_reason(worker, client) -> None:
    request = make_request("why-1", ATARI, board_id="web-1", purpose="hint", visits=256, explain=True)
    answer = client("dashboard").request(request)
    validate("engine_answer", answer.to_dict())
    pos = Position(9)
    for _, vertex in ATARI:
        pos.play(pos.pass_point if vertex == "pass" else from_gtp(vertex, 9))
    assert answer.reason is not None
    assert answer.reason == wire_reason(pos, {**answer.to_dict(), "reason": None})
    assert (answer.moves[0].move, answer.reason.kind, answer.reason.where[0]) == ("D6", "capture", "D5")


def test_without_explain_no_reason(worker, client) -> None:
    answer = client("dashboard").request(make_request("why-none", ATARI, board_id="web-1", visits=16))
    assert answer.reason is None and "reason" not in answer.to_dict()


def test_explain_with_genmove_is_refused_naming_the_field(worker, client) -> None:
    request = replace(make_request("why-bad", ATARI, board_id="web-1", visits=16, explain=True), purpose="genmove")
    with pytest.raises(EngineRequestFailed) as failure:
        client("dashboard").request(request, timeout_s=5)
    assert failure.value.error.field == "explain", failure.value.error
