"""The on-disk outbox/journal: order, numbering across restarts, delivery marks, torn
lines, compaction, and the sender that waits for each acknowledgement."""

from __future__ import annotations

import threading

from edge.journal.offline_queue import OfflineQueue, QueueSender
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


# ---- end to end: kept until the recorder stored them ----------------------------------------

EVENT = "gobuddy/v1/board/board-1/event"


def game(q: OfflineQueue, game_id: str, seqs: range) -> None:
    for seq in seqs:
        q.append(EVENT, {"game_id": game_id, "seq": seq})


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_stored_marks_survive_a_restart_and_only_move_forward(tmp_path):
    q = OfflineQueue(tmp_path)
    game(q, "g1", range(4))
    q.mark_delivered(4)
    assert q.first_unstored().n == 1
    assert q.mark_stored("g1", 1) and not q.mark_stored("g1", 0) and not q.mark_stored("other", 9)
    q.close()
    q = OfflineQueue(tmp_path)
    assert q.first_unstored().n == 3  # seqs 2 and 3 (entries 3 and 4) are not stored yet
    assert q.mark_stored("g1", 3) and q.first_unstored() is None


def test_compaction_never_drops_an_unstored_event(tmp_path):
    q = OfflineQueue(tmp_path)
    game(q, "g1", range(3))
    game(q, "g2", range(2))
    q.mark_delivered(5)
    q.mark_stored("g1", 0)
    assert q.compact(keep_from=4) == 1  # only g1's seq 0 is stored: g1's seqs 1, 2 stay
    assert [e.n for e in q.entries()] == [2, 3, 4, 5]
    q.mark_stored("g1", 2)
    assert q.compact(keep_from=4) == 2 and [e.n for e in q.entries()] == [4, 5]


def test_the_sender_sends_unstored_events_again_with_growing_patience(tmp_path):
    q = OfflineQueue(tmp_path)
    game(q, "g1", range(5))
    q.mark_delivered(5)
    clock, online = Clock(), [True]
    sender = QueueSender(q, lambda t, p: None, lambda: True, resend_after_s=10, resend_max_s=40,
                         recorder_online=lambda: online[0], clock=clock)
    q.mark_stored("g1", 1)
    times = []
    for step in range(1, 1200):  # 0.1 s steps over two minutes
        clock.t = step / 10
        if sender.check_stored():
            times.append(clock.t)
            assert q.delivered == 2  # the sender goes again from the first unstored entry (seq 2)
            q.mark_delivered(5)  # ... and the broker took them again
    waits = [round(b - a) for a, b in zip([0.0, *times], times)]
    assert waits == [10, 20, 40, 40]  # waits 10, 20, 40, then at most 40 s
    online[0] = False  # nobody to store them: no re-send, whatever the wait
    clock.t = 1000.0
    assert not sender.check_stored() and not sender.check_stored()


def test_progress_of_the_recorder_restores_patience(tmp_path):
    q = OfflineQueue(tmp_path)
    game(q, "g1", range(6))
    q.mark_delivered(6)
    clock = Clock()
    sender = QueueSender(q, lambda t, p: None, lambda: True, resend_after_s=10, clock=clock)
    sender.check_stored()
    for t, seq in ((8.0, 0), (16.0, 1), (24.0, 2)):  # the recorder stores one every 8 s: never re-sent
        clock.t = t
        q.mark_stored("g1", seq)
        assert not sender.check_stored()
    clock.t = 34.1  # then it stops
    assert sender.check_stored() and q.delivered == 3
