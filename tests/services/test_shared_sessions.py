"""What Mosquitto 2.0.11 does with a shared subscriber that dies: the facts behind the
engine workers' clean sessions (see ``engine_worker.worker``).

Two bare subscribers share ``$share/probe/<request filter>`` with manual acknowledgement;
one receives messages, never acknowledges them, and its connection is cut (as SIGKILL
does). With clean sessions the other subscriber gets every later message, but never the
dead one's unacknowledged ones. With persistent sessions it is worse: the broker keeps
queueing every other new message in the dead subscriber's session until it returns.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from gobuddy.bus import topics
from tests.mqtt_broker import MosquittoBroker

GROUP_FILTER = topics.engine_requests_filter()  # the only group engine accounts may join
TOPIC = topics.engine_request("dashboard", "dashboard")


class Subscriber:
    """A bare MQTT 5 subscriber of the probe group that acknowledges only if told to."""

    def __init__(self, broker: MosquittoBroker, client_id: str, persistent: bool, acknowledge: bool) -> None:
        self.got: list[str] = []
        self.ready = threading.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5,
                                  manual_ack=True)
        self.client.username_pw_set(client_id, broker.ensure_account(client_id))
        self.client.on_connect = lambda c, u, f, r, p: c.subscribe(GROUP_FILTER, qos=1)
        self.client.on_subscribe = lambda *args: self.ready.set()
        self.client.on_message = self._on_message
        self.acknowledge = acknowledge
        properties = Properties(PacketTypes.CONNECT)
        if persistent:
            properties.SessionExpiryInterval = 300
        self.client.connect(broker.host, broker.port, 10, clean_start=not persistent, properties=properties)
        self.client.loop_start()
        assert self.ready.wait(5)

    def _on_message(self, client: Any, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        self.got.append(msg.payload.decode())
        if self.acknowledge:
            client.ack(msg.mid, msg.qos)

    def cut(self) -> None:
        """Drop the connection without DISCONNECT, as a killed process does."""
        self.client.socket().shutdown(socket.SHUT_RDWR)
        time.sleep(0.2)
        self.client.loop_stop()

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def publish(broker: MosquittoBroker, names: list[str]) -> None:
    sender = broker.raw_client("dashboard")
    for name in names:
        sender.publish(TOPIC, name.encode(), qos=1).wait_for_publish(5)
    sender.disconnect()
    sender.loop_stop()
    time.sleep(0.3)


def run_probe(broker: MosquittoBroker, persistent: bool, tag: str) -> tuple[list[str], list[str], list[str]]:
    """(what the dying one got, what the survivor got, what the dying one gets when back)."""
    dying = Subscriber(broker, f"engine-dies-{tag}", persistent, acknowledge=False)
    survivor = Subscriber(broker, f"engine-lives-{tag}", persistent, acknowledge=True)
    try:
        publish(broker, ["m0", "m1", "m2", "m3"])
        dying.cut()
        publish(broker, ["m4", "m5", "m6", "m7"])
        back = Subscriber(broker, f"engine-dies-{tag}", persistent, acknowledge=True)
        time.sleep(0.3)
        back.close()
        return dying.got, survivor.got, back.got
    finally:
        survivor.close()


def test_a_dead_shared_subscribers_messages_are_not_handed_to_the_others() -> None:
    with MosquittoBroker() as broker:
        died_with, survivor_clean, back_clean = run_probe(broker, persistent=False, tag="clean")
        assert len(died_with) == 2 and not set(died_with) & set(survivor_clean)
        assert sorted(survivor_clean) == sorted({"m0", "m1", "m2", "m3"} - set(died_with) | {"m4", "m5", "m6", "m7"})
        assert back_clean == []  # a clean session kept nothing: the unacknowledged two are lost

        died_with, survivor_kept, back_kept = run_probe(broker, persistent=True, tag="kept")
        assert len(died_with) == 2 and len(survivor_kept) == 4  # half the later messages went to the dead session
        assert sorted(back_kept) == sorted(set(died_with) | ({"m4", "m5", "m6", "m7"} - set(survivor_kept)))
