"""Fixtures of the edge service tests: a real Mosquitto per module, an observer per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gobuddy.bus import topics
from tests.edge.agent.rig import Observer
from tests.mqtt_broker import MosquittoBroker, find_mosquitto


@pytest.fixture(scope="module")
def broker() -> Iterator[MosquittoBroker]:
    if find_mosquitto() is None:
        pytest.skip("mosquitto is not installed")
    with MosquittoBroker(boards=("board-t1", "board-t2")) as running:
        yield running


def forget_board(broker: MosquittoBroker, board_id: str) -> None:
    """Delete the board's retained state, so that no test inherits another's game."""
    raw = broker.raw_client(board_id)
    raw.publish(topics.board_state(board_id), b"", qos=1, retain=True).wait_for_publish(5)
    raw.disconnect()
    raw.loop_stop()


@pytest.fixture
def observer(broker: MosquittoBroker) -> Iterator[Observer]:
    """Records everything board-t1 publishes (persistent session: survives broker restarts);
    board-t1 starts with no retained state."""
    forget_board(broker, "board-t1")
    watcher = Observer(broker, "board-t1")
    yield watcher
    watcher.stop()
