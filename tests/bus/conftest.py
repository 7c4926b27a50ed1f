"""Fixtures for the bus tests: a real Mosquitto per test module, and started clients.

Other test folders can copy these few lines, or import ``tests.mqtt_broker`` directly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from gobuddy.bus.client import BusClient
from tests.mqtt_broker import MosquittoBroker, find_mosquitto


@pytest.fixture(scope="module")
def mqtt_broker() -> Iterator[MosquittoBroker]:
    """A Mosquitto with the project's ACL, boards board-1 and board-2, for one test module."""
    if find_mosquitto() is None:
        pytest.skip("mosquitto is not installed")
    with MosquittoBroker() as broker:
        yield broker


@pytest.fixture
def bus_client(mqtt_broker: MosquittoBroker) -> Iterator[Callable[..., BusClient]]:
    """``bus_client(username, subscribe={filter: handler}, start=True, **config)`` -> a
    ``BusClient`` on the module's broker, stopped at the end of the test."""
    clients: list[BusClient] = []

    def make(username: str, *, subscribe: dict[str, Any] | None = None, start: bool = True,
             **overrides: Any) -> BusClient:
        client = BusClient(mqtt_broker.config(username, **overrides))
        for topic_filter, handler in (subscribe or {}).items():
            client.subscribe(topic_filter, handler)
        clients.append(client)
        if start:
            client.start()
        return client

    yield make
    for client in reversed(clients):
        client.stop()
