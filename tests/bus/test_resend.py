"""``PendingRequests``: when a request is sent again, and when it gives up (a fake clock).

| what the workers said                         | at t (s) | the requester           |
|-----------------------------------------------|----------|-------------------------|
| nothing                                       | 1.5      | sends again             |
| progress: expected in 3 s                     | 1.5..4.4 | waits                   |
| progress: expected in 3 s, then nothing       | 4.5      | sends again             |
| a partial answer                              | +3.0     | waits (searching)       |
| less than MIN_RESEND_S left                   |          | never sends again       |
| past its time                                 |          | TimeoutError            |
"""

from __future__ import annotations

import logging

import pytest

from gobuddy.bus.engine_messages import EngineError, EngineProgress
from gobuddy.bus.requests import EngineRequestFailed, PendingRequests
from gobuddy.bus.validation import examples
from gobuddy.bus.messages import decode


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def table(timeout_s: float = 10.0, silence_s: float = 1.5) -> tuple[PendingRequests, Clock, bytes, list[float]]:
    clock = Clock()
    pending = PendingRequests(logging.getLogger("test"), clock)
    correlation, future = pending.add("r-1", timeout_s=timeout_s, silence_s=silence_s)
    sent: list[float] = []
    pending.sent(correlation, lambda: sent.append(clock.t))
    pending.future = future  # type: ignore[attr-defined]
    return pending, clock, correlation, sent


def run(pending: PendingRequests, clock: Clock, until: float, step: float = 0.05) -> None:
    while clock.t < until - 1e-9:
        clock.t = round(clock.t + step, 6)
        pending.tick()


def progress(expected_ms: int) -> EngineProgress:
    return EngineProgress(id="r-1", state="queued", ahead=0, expected_ms=expected_ms, worker="engine-1")


def answer(final: bool = True):
    data = {**examples("engine_answer")[0], "id": "r-1", "is_during_search": not final}
    return decode("engine_answer", data)


def test_silence_sends_again_after_silence_s() -> None:
    pending, clock, correlation, sent = table()
    run(pending, clock, 1.45)
    assert sent == []
    run(pending, clock, 1.5)
    assert sent == [1.5]
    run(pending, clock, 3.0)
    assert sent == [1.5, 3.0] and pending.sends(correlation) == 3


def test_progress_holds_the_resend_until_the_expected_time_has_passed() -> None:
    pending, clock, correlation, sent = table()
    run(pending, clock, 0.1)
    assert pending.answer(correlation, progress(3000))
    run(pending, clock, 4.55)
    assert sent == []  # expected at 3.1 s, plus 1.5 s of grace
    run(pending, clock, 4.65)
    assert len(sent) == 1


def test_a_partial_answer_counts_as_word() -> None:
    pending, clock, correlation, sent = table()
    run(pending, clock, 1.0)
    assert pending.answer(correlation, answer(final=False))
    run(pending, clock, 3.9)
    assert sent == []


def test_the_final_answer_ends_it_and_later_copies_are_dropped() -> None:
    pending, clock, correlation, sent = table()
    assert pending.answer(correlation, answer())
    assert pending.future.result(0).id == "r-1"  # type: ignore[attr-defined]
    assert not pending.answer(correlation, answer())  # a second worker's answer to the re-sent copy
    run(pending, clock, 5.0)
    assert sent == [] and pending.outstanding() == 0


def test_no_resend_when_too_little_time_is_left_and_a_timeout_at_the_end() -> None:
    pending, clock, correlation, sent = table(timeout_s=1.7)
    run(pending, clock, 1.69)
    assert sent == []  # at 1.5 s only 0.2 s were left
    run(pending, clock, 1.75)
    with pytest.raises(TimeoutError, match="r-1"):
        pending.future.result(0)  # type: ignore[attr-defined]


def test_a_busy_refusal_fails_the_future_and_says_busy() -> None:
    pending, clock, correlation, sent = table()
    refusal = EngineError(id="r-1", error="worker engine-1 is busy", field=None, code="busy", retry_after_ms=2000,
                          worker="engine-1")
    assert pending.answer(correlation, refusal)
    with pytest.raises(EngineRequestFailed) as failure:
        pending.future.result(0)  # type: ignore[attr-defined]
    assert failure.value.busy and failure.value.error.retry_after_ms == 2000


def test_a_reply_for_another_id_is_dropped() -> None:
    pending, clock, correlation, sent = table()
    other = EngineProgress(id="r-2", state="queued", ahead=0, expected_ms=9000, worker="engine-1")
    assert not pending.answer(correlation, other)
    run(pending, clock, 1.5)
    assert sent == [1.5]
