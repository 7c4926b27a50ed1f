"""The TLS listener, with certificates made by broker/make_certs.sh."""

from __future__ import annotations

import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from gobuddy.bus import topics
from gobuddy.bus.client import BusClient
from gobuddy.bus.game_events import Passed
from tests.mqtt_broker import BROKER_DIR, Inbox, MosquittoBroker, find_mosquitto, send_until_heard


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
        assert recorder.wait_connected(10)
        assert send_until_heard(board, topics.board_event("board-1"), sent, inbox)[0].message == sent


def test_a_server_from_another_ca_is_not_trusted(tls_broker: MosquittoBroker, tmp_path: Path) -> None:
    subprocess.run([str(BROKER_DIR / "make_certs.sh"), "-o", str(tmp_path)], check=True, capture_output=True)
    client = BusClient(tls_broker.tls_config("board-1", tls_ca_file=str(tmp_path / "ca.crt"), connect_timeout_s=1.0))
    with pytest.raises(TimeoutError):
        client.start()


def test_tls_still_needs_a_password(tls_broker: MosquittoBroker) -> None:
    client = BusClient(tls_broker.tls_config("board-1", password="wrong"))
    with pytest.raises(ConnectionRefusedError):
        client.start()


@pytest.fixture(scope="module")
def cert_broker() -> Iterator[MosquittoBroker]:
    """TLS with client certificates: the certificate's common name is the account."""
    if find_mosquitto() is None:
        pytest.skip("mosquitto is not installed")
    with MosquittoBroker(tls=True, require_client_cert=True, client_certs=("board-1", "recorder")) as broker:
        yield broker


class RawTlsClient:
    """A bare paho client on the certificate listener, for what BusClient would refuse."""

    def __init__(self, broker: MosquittoBroker, cert: str, *, client_id: str, username: str, password: str):
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
        self.client.username_pw_set(username, password)
        certs = broker.certs_dir
        self.client.tls_set(ca_certs=str(certs / "ca.crt"), certfile=str(certs / f"{cert}.crt"),
                            keyfile=str(certs / f"{cert}.key"), cert_reqs=ssl.CERT_REQUIRED)
        self._subacks: dict[int, list[int]] = {}
        self._event = threading.Event()
        self.client.on_subscribe = self._on_subscribe
        self.client.connect(broker.host, broker.tls_port)
        self.client.loop_start()

    def _on_subscribe(self, c: object, u: object, mid: int, codes: list, props: object) -> None:
        self._subacks[mid] = [code.value for code in codes]
        self._event.set()

    def subscribe_codes(self, topic_filter: str) -> list[int]:
        deadline = time.monotonic() + 5
        while not self.client.is_connected() and time.monotonic() < deadline:
            time.sleep(0.02)
        _, mid = self.client.subscribe(topic_filter, qos=1)
        while mid not in self._subacks and time.monotonic() < deadline:
            self._event.wait(0.05)
        return self._subacks.get(mid, [])

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def mqtt_tls_client(broker: MosquittoBroker, cert: str, **kwargs: str) -> RawTlsClient:
    return RawTlsClient(broker, cert, **kwargs)


def cert_config(broker: MosquittoBroker, name: str, **overrides: object):
    """A certificate login as ``name`` (no username: the certificate says who)."""
    certs = broker.certs_dir
    return replace(broker.tls_config(name, **overrides), username=None, password=None,
                   tls_cert_file=str(certs / f"{name}.crt"), tls_key_file=str(certs / f"{name}.key"))


def test_a_certificate_logs_in_as_its_own_account(cert_broker: MosquittoBroker) -> None:
    inbox = Inbox()
    recorder = BusClient(cert_config(cert_broker, "recorder"))
    recorder.subscribe(topics.boards_filter("event"), inbox)
    board = BusClient(cert_config(cert_broker, "board-1"))
    with recorder, board:
        sent = Passed(board_id="board-1", game_id="g-cert", seq=1, move_number=1, color="B")
        assert recorder.wait_connected(10)
        assert send_until_heard(board, topics.board_event("board-1"), sent, inbox)[0].message == sent


def test_a_certificate_is_bound_to_its_account_whatever_password_and_id_come_with_it(
        cert_broker: MosquittoBroker) -> None:
    """board-1's certificate with the engine's password and the recorder's client id is
    still board-1: it can neither join the engine group nor knock the recorder off."""
    recorder = BusClient(cert_cfg := cert_config(cert_broker, "recorder"))
    assert cert_cfg.client_id == "recorder"
    with recorder:
        intruder = mqtt_tls_client(cert_broker, "board-1", client_id="recorder", username="engine-1",
                                   password=cert_broker.credentials["engine-1"])
        try:
            codes = intruder.subscribe_codes(f"$share/{topics.ENGINE_GROUP}/gobuddy/v1/engine/request/+/+")
            assert codes == [0x87]
            assert recorder.wait_connected(0.5) and recorder.is_connected()
            time.sleep(0.5)
            assert recorder.is_connected()
        finally:
            intruder.close()
    assert "as board-1 (" in cert_broker.log_text() and "u'engine-1'" not in cert_broker.log_text()


def test_no_certificate_no_login_on_the_certificate_listener(cert_broker: MosquittoBroker) -> None:
    client = BusClient(cert_broker.tls_config("engine-1", connect_timeout_s=1.5))
    with pytest.raises((ConnectionRefusedError, TimeoutError)):
        client.start()
