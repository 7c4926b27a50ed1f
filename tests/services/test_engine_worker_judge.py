"""An engine worker (``python -m engine_worker`` with the shipped model, real Mosquitto)
asked to judge a learner's move: the answer carries the judgement, the same as the
teacher's own (``gobuddy.ai.teaching``) from the worker's searches; a move the root
search did not visit is judged from a search of the position after it; a judge
outside analysis/hint, or of an illegal move, is refused naming the field."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gobuddy.bus.requests import EngineRequestFailed
from gobuddy.bus.messages import Judge
from gobuddy.bus.validation import validate
from tests.services.processes import Service, make_request, shipped_worker

WORKER = "engine-teacher"
OPENING = [("B", "E5"), ("W", "C4")]


@pytest.fixture(scope="module")
def worker(broker, presence) -> Iterator[Service]:
    with shipped_worker(broker, presence, WORKER) as service:
        yield service


def _judged(client, request_id: str, move: str, level: str, visits: int = 200):
    request = make_request(request_id, OPENING, board_id="web-1", visits=visits, judge=Judge(move=move, level=level))
    answer = client("dashboard").request(request)
    validate("engine_answer", answer.to_dict())
    assert answer.judgement is not None and answer.position_key.move_count == 2 and answer.to_play == "B"
    return answer


def test_a_pass_in_the_opening_is_a_mistake_found_by_searching_after_it(worker, client) -> None:
    answer = _judged(client, "judge-pass", "pass", "30 kyu")
    j = answer.judgement
    assert (j.move, j.color, j.level, j.searched) == ("pass", "B", "30 kyu", "after")
    assert j.mistake and j.best == answer.moves[0].move and j.visits >= 200
    assert j.winrate_lost > 0.3 and j.points_lost > 3.0
    assert j.tolerance.points == 12.0 and j.tolerance.safe_winrate == 0.9


def test_a_searched_candidate_is_judged_by_the_answers_own_figures(worker, client) -> None:
    """The engine's choice loses nothing; a listed move with visits loses the
    difference between its figures and the engine's choice's, as the answer lists them."""
    probe = _judged(client, "judge-probe", "pass", "full")
    for index, listed in enumerate(probe.moves[:2]):
        answer = _judged(client, f"judge-listed-{index}", listed.move, "full")
        j, best = answer.judgement, answer.moves[0]
        mine = next(m for m in answer.moves if m.move == listed.move)
        assert j.searched == "candidate" and j.best == best.move and j.visits == mine.visits
        if listed.move == best.move:
            assert (j.points_lost, j.winrate_lost, j.mistake) == (0.0, 0.0, False)
        else:
            assert j.points_lost == round(best.score_lead - mine.score_lead, 1)
            assert j.winrate_lost == round(best.winrate - mine.winrate, 3)


def test_an_answer_without_judge_has_no_judgement(worker, client) -> None:
    answer = client("dashboard").request(make_request("judge-none", OPENING, board_id="web-1", visits=16))
    assert answer.judgement is None and answer.to_dict()["judgement"] is None


@pytest.mark.parametrize("purpose, move, field", [
    ("genmove", "D4", "judge"),
    ("analysis", "E5", "judge.move"),  # occupied
])
def test_a_judge_that_cannot_be_answered_is_refused_naming_the_field(worker, client, purpose, move, field) -> None:
    request = make_request(f"judge-bad-{field}", OPENING, board_id="web-1", purpose=purpose, visits=16,
                           judge=Judge(move=move, level="20 kyu"))
    with pytest.raises(EngineRequestFailed) as failure:
        client("dashboard").request(request, timeout_s=5)
    assert failure.value.error.field == field, failure.value.error
