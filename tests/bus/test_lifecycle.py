"""A service's life on the bus with a real Mosquitto: connecting while the broker is down
(retried until it listens), giving up when told to stop, a refused account, and
``serve`` stopping the service whatever happens."""

from __future__ import annotations

import logging
import threading
import time

import pytest

from gobuddy.bus.client import BusClient
from gobuddy.bus.lifecycle import connect, serve
from tests.mqtt_broker import MosquittoBroker, find_mosquitto

pytestmark = pytest.mark.skipif(find_mosquitto() is None, reason="mosquitto is not installed")
log = logging.getLogger("test-lifecycle")


def test_connect_retries_until_the_broker_listens():
    with MosquittoBroker(boards=("board-1",)) as broker:
        broker.stop()  # the port is kept: nothing listens there now
        made: list[BusClient] = []

        def make_client() -> BusClient:
            made.append(BusClient(broker.config("engine-1", connect_timeout_s=0.3)))
            return made[-1]

        result: list[BusClient | None] = []
        thread = threading.Thread(target=lambda: result.append(connect(make_client, (), log)))
        thread.start()
        time.sleep(1.0)
        assert not result and len(made) >= 2  # still trying, a fresh client per attempt
        broker.start()
        thread.join(10)
        client = result[0]
        try:
            assert client is made[-1] and client.is_connected()
        finally:
            client.stop()


def test_connect_gives_up_when_stopped():
    with MosquittoBroker(boards=("board-1",)) as broker:
        broker.stop()
        stop = threading.Event()
        threading.Timer(0.5, stop.set).start()
        started = time.monotonic()
        assert connect(lambda: BusClient(broker.config("engine-1", connect_timeout_s=0.2)), (None, stop), log) is None
        assert time.monotonic() - started < 3


def test_a_refused_account_is_not_retried():
    with MosquittoBroker(boards=("board-1",)) as broker:
        made = []

        def make_client() -> BusClient:
            made.append(BusClient(broker.config("engine-1", password="wrong")))
            return made[-1]

        with pytest.raises(ConnectionRefusedError):
            connect(make_client, (), log)
        assert len(made) == 1


class Recording:
    def __init__(self, fail: bool = False):
        self.calls: list[str] = []
        self.fail = fail

    def start(self, stop: threading.Event | None = None) -> None:
        self.calls.append("start")
        if self.fail:
            raise ConnectionRefusedError("refused")

    def stop(self) -> None:
        self.calls.append("stop")


def test_serve_waits_for_the_event_and_always_stops():
    service, stop = Recording(), threading.Event()
    threading.Timer(0.2, stop.set).start()
    serve(service, stop)
    assert service.calls == ["start", "stop"] and stop.is_set()
    failing = Recording(fail=True)
    with pytest.raises(ConnectionRefusedError):
        serve(failing, threading.Event())
    assert failing.calls == ["start", "stop"]
