"""The recorder's handler and the engine replies it hears on ``engine/response/+/+``
that it does not store: an ``engine_progress`` (a worker's "queued, N ahead" for every
request it takes) and an ``engine_error`` are skipped quietly, not failed on (a failure
is a traceback in the recorder's log and a "handler" line among the System page's
rejected messages, for every engine request anyone makes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gobuddy.bus import topics
from gobuddy.bus.inbox import Received
from gobuddy.bus.messages import decode
from gobuddy.bus.validation import examples
from tests.services.test_hostile_consumers import in_process_recorder


@pytest.mark.parametrize("kind", ["engine_progress", "engine_error"])
def test_an_engine_reply_the_recorder_does_not_store_is_skipped(tmp_path: Path, kind: str) -> None:
    recorder, stub = in_process_recorder(f"sqlite:///{tmp_path / 'h.db'}")
    topic = topics.engine_response("dashboard", "dashboard")
    for payload in examples(kind):
        recorder._on_message(Received(topic=topic, info=topics.parse(topic), kind=kind, message=decode(kind, payload),
                                      payload=payload, qos=1))
    assert stub.refusals == []
    assert recorder.counts["rejected"] == 0 and recorder.counts["applied"] == 0
    recorder.store.close()
