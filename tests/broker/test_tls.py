"""The TLS listener, with certificates made by broker/make_certs.sh."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from gobuddy.bus import topics
from gobuddy.bus.client import BusClient
from gobuddy.bus.game_events import Passed
from tests.mqtt_broker import BROKER_DIR, Inbox, MosquittoBroker, find_mosquitto


@pytest.fixture(scope="module")
def tls_broker() -> Iterator[MosquittoBroker]:
    if find_mosquitto() is None:
        pytest.skip("mosquitto is not installed")
    with MosquittoBroker(tls=True) as broker:
        yield broker


def test_clients_talk_over_tls(tls_broker: MosquittoBroker) -> None:
    inbox = Inbox()
    recorder = BusClient(tls_broker.tls_config("recorder"))
    recorder.subscribe(topics.boards_filter("event"), inbox)
    board = BusClient(tls_broker.tls_config("board-1"))
    with recorder, board:
        sent = Passed(board_id="board-1", game_id="g-tls", seq=1, move_number=1, color="B")
        board.publish(topics.board_event("board-1"), sent, wait=True)
        assert inbox.wait_for(1)[0].message == sent


def test_a_server_from_another_ca_is_not_trusted(tls_broker: MosquittoBroker, tmp_path: Path) -> None:
    subprocess.run([str(BROKER_DIR / "make_certs.sh"), "-o", str(tmp_path)], check=True, capture_output=True)
    client = BusClient(tls_broker.tls_config("board-1", tls_ca_file=str(tmp_path / "ca.crt"), connect_timeout_s=1.0))
    with pytest.raises(TimeoutError):
        client.start()


def test_tls_still_needs_a_password(tls_broker: MosquittoBroker) -> None:
    client = BusClient(tls_broker.tls_config("board-1", password="wrong"))
    with pytest.raises(ConnectionRefusedError):
        client.start()
