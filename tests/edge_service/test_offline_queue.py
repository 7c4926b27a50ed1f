"""The on-disk outbox/journal: order, numbering across restarts, delivery marks, torn
lines, compaction, and the sender that waits for each acknowledgement."""

from __future__ import annotations

import threading

from edge.offline_queue import OfflineQueue, QueueSender
from gobuddy.bus.delivery import Delivery


def test_entries_keep_order_and_numbers_across_reopen(tmp_path):
    q = OfflineQueue(tmp_path)
    for i in range(3):
        q.append("t/event", {"i": i})
    q.mark_delivered(1)
    q.close()
    q = OfflineQueue(tmp_path)
    assert [(e.n, e.payload["i"]) for e in q.entries()] == [(1, 0), (2, 1), (3, 2)]
    assert [e.n for e in q.pending()] == [2, 3] and q.delivered == 1
    assert q.append("t/event", {"i": 3}).n == 4
    assert q.next_pending(0).n == 2


def test_a_torn_last_line_is_dropped(tmp_path):
    q = OfflineQueue(tmp_path)
    q.append("t", {"a": 1})
    q.close()
    with open(tmp_path / "journal.jsonl", "a") as f:
        f.write('{"n": 2, "topic": "t", "payl')
    q = OfflineQueue(tmp_path)
    assert [e.n for e in q.entries()] == [1]
    assert q.append("t", {"a": 2}).n == 2
    q.close()
    assert [e.payload for e in OfflineQueue(tmp_path).entries()] == [{"a": 1}, {"a": 2}]


def test_compaction_keeps_undelivered_entries(tmp_path):
    q = OfflineQueue(tmp_path)
    for i in range(6):
        q.append("t", {"i": i})
    q.mark_delivered(2)
    assert q.compact(5) == 2  # 3 and 4 are not delivered yet: kept
    assert [e.n for e in q.entries()] == [3, 4, 5, 6]
    q.mark_delivered(6)
    assert q.compact(6) == 3
    q.close()
    q = OfflineQueue(tmp_path)
    assert [e.n for e in q.entries()] == [6] and q.append("t", {}).n == 7


class FakeBroker:
    """Acknowledges publishes when told to; records what was published."""

    def __init__(self) -> None:
        self.published: list[tuple[str, dict, Delivery]] = []
        self.connected = True
        self.cond = threading.Condition()

    def publish(self, topic, payload):
        with self.cond:
            delivery = Delivery(topic, 1, len(self.published) + 1)
            self.published.append((topic, payload, delivery))
            self.cond.notify_all()
            return delivery

    def ack_all(self) -> None:
        for _, _, d in self.published:
            if not d.done():
                d._complete(0, "Success")

    def wait(self, count: int) -> None:
        with self.cond:
            assert self.cond.wait_for(lambda: len(self.published) >= count, 5)


def test_sender_publishes_one_at_a_time_in_order_and_skips_notes(tmp_path):
    q = OfflineQueue(tmp_path)
    broker = FakeBroker()
    idle = threading.Event()
    sender = QueueSender(q, broker.publish, lambda: broker.connected, idle.set).start()
    try:
        q.append("t", {"i": 0})
        q.append("", {"note": True})
        q.append("t", {"i": 1})
        broker.wait(1)
        with broker.cond:
            assert not broker.cond.wait_for(lambda: len(broker.published) > 1, 0.3)  # waits for the ack
        broker.ack_all()
        broker.wait(2)
        broker.ack_all()
        assert idle.wait(2)
        assert [p for _, p, _ in broker.published] == [{"i": 0}, {"i": 1}]
        assert q.delivered == 3 and q.pending() == []
    finally:
        sender.stop()
