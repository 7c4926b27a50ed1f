"""An engine worker (``python -m engine_worker`` with the shipped model, real Mosquitto)
asked at the end of a game which stones are dead (``final_status``, as a board's count
asks): the answer names the stones ``gobuddy.ai.final_status.judge`` counts dead (the
Play page's decision); a request without it has none; with another purpose it is
refused naming the field."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from gobuddy.ai.final_status import judge
from gobuddy.bus.messages import Position
from gobuddy.bus.requests import EngineRequestFailed
from gobuddy.bus.validation import validate
from gobuddy.go.coords import BLACK, from_gtp, to_gtp
from gobuddy.go.position import Position as GoPosition
from tests.ai.test_final_status import ROWS
from tests.services.processes import Service, make_request, shipped_worker

WORKER = "engine-counter"
BOARD = ROWS[0].board  # the game (tests/ai/test_final_status.py): white's 11 stones with one eye are dead


def setup() -> tuple[tuple[str, str], ...]:
    rows = [line.split() for line in BOARD.strip().splitlines()]
    return tuple(("B" if ch == "X" else "W", to_gtp(r * 9 + c, 9))
                 for r, row in enumerate(rows) for c, ch in enumerate(row) if ch in "XO")


@pytest.fixture(scope="module")
def worker(broker, presence) -> Iterator[Service]:
    with shipped_worker(broker, presence, WORKER) as service:
        yield service


def end_request(request_id: str, **extra):
    request = make_request(request_id, board_id="board-1", visits=64, **extra)
    return replace(request, position=Position(size=9, komi=7.0, rules="chinese", setup=setup(), to_play="B"))


def test_the_answer_names_the_stones_counted_dead(worker, client) -> None:
    answer = client("dashboard").request(end_request("count-1", final_status=True, include_ownership=True))
    validate("engine_answer", answer.to_dict())
    assert answer.final_status is not None
    pos = GoPosition(9)
    for color, vertex in setup():
        pos.place(from_gtp(vertex, 9), BLACK if color == "B" else -BLACK)
    expected = judge(pos, ownership=answer.ownership).dead_points()
    assert list(answer.final_status.dead) == [to_gtp(p, 9) for p in expected]
    assert "C9" in answer.final_status.dead and len(answer.final_status.dead) == 11


def test_an_answer_not_asked_for_it_has_none(worker, client) -> None:
    answer = client("dashboard").request(end_request("count-none"))
    assert answer.final_status is None and "final_status" not in answer.to_dict()


def test_final_status_outside_analysis_is_refused_naming_the_field(worker, client) -> None:
    request = replace(end_request("count-bad", final_status=True), purpose="genmove")
    with pytest.raises(EngineRequestFailed) as failure:
        client("dashboard").request(request, timeout_s=5)
    assert failure.value.error.field == "final_status", failure.value.error
