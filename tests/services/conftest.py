"""Fixtures of the service tests: a real Mosquitto per module, a tiny ONNX model, an
observer of presence, and service processes that are always stopped at the end."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gobuddy.bus.client import BusClient
from tests.mqtt_broker import MosquittoBroker, find_mosquitto
from tests.services.processes import Presence, Service


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random-weight 9x9 model following the model contract (2 blocks x 16 channels)."""
    pytest.importorskip("onnx")
    from tests.tiny_model import build_tiny_model

    return build_tiny_model(size=9, blocks=2, channels=16, name="tiny-services").save(
        tmp_path_factory.mktemp("model") / "tiny.onnx")


@pytest.fixture(scope="module")
def broker() -> Iterator[MosquittoBroker]:
    """A Mosquitto with the project's ACL and boards board-1, board-2, for one module."""
    if find_mosquitto() is None:
        pytest.skip("mosquitto is not installed")
    with MosquittoBroker() as running:
        yield running


@pytest.fixture(scope="module")
def presence(broker: MosquittoBroker) -> Iterator[Presence]:
    observer = Presence(broker)
    yield observer
    observer.close()


@pytest.fixture
def client(broker: MosquittoBroker) -> Iterator[Callable[..., BusClient]]:
    """``client(username, **config)`` -> a started ``BusClient``, stopped after the test.
    The broker binds a client id to its account, so one account is one client: asking
    twice for the same account (without overrides) gives the same client."""
    made: list[BusClient] = []
    by_account: dict[str, BusClient] = {}

    def make(username: str, **overrides: object) -> BusClient:
        if not overrides and username in by_account:
            return by_account[username]
        bus = BusClient(broker.config(username, **overrides))
        made.append(bus)
        bus.start()
        if not overrides:
            by_account[username] = bus
        return bus

    yield make
    for bus in reversed(made):
        bus.stop()


def stop_all(services: list[Service]) -> None:
    for service in services:
        service.close()
