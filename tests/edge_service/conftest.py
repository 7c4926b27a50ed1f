"""Fixtures of the edge service tests: a real Mosquitto per module, an observer per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.edge_service.rig import Observer
from tests.mqtt_broker import MosquittoBroker, find_mosquitto


@pytest.fixture(scope="module")
def broker() -> Iterator[MosquittoBroker]:
    if find_mosquitto() is None:
        pytest.skip("mosquitto is not installed")
    with MosquittoBroker(boards=("board-t1", "board-t2")) as running:
        yield running


@pytest.fixture
def observer(broker: MosquittoBroker) -> Iterator[Observer]:
    """Records everything board-t1 publishes (persistent session: survives broker restarts)."""
    watcher = Observer(broker, "board-t1")
    yield watcher
    watcher.stop()
