"""The edge agent's outbox and journal: QoS 1 messages kept on disk until the broker has
them, and game events until the recorder has stored them.

``OfflineQueue`` appends each outgoing message (topic + JSON payload) to
``<directory>/journal.jsonl``, one line per entry numbered ``n`` = 1, 2, ..., and keeps
the number of the last entry the broker acknowledged in ``<directory>/delivered``
(written atomically). Entries stay in the file after delivery: the file is also the
journal from which the agent rebuilds its game after a restart. ``compact`` drops
delivered entries that are no longer needed. Entries with an empty topic are
journal-only notes (never sent).

End to end: the broker acknowledges a message before it is on its disk, so a broker that
dies can lose what it acknowledged. The recorder therefore says, per game, up to which
``seq`` every event is stored (``game_stored``), and the queue
keeps that mark per game (``<directory>/stored.json``). A game event the broker took but
the recorder has not stored is *unstored*: ``compact`` never drops one, and the sender
sends it again (``rewind``) when the recorder's mark has not moved for
``resend_after_s`` while a recorder is online (doubling, up to ``resend_max_s``, while
nothing changes; ``StoredFollower`` follows the marks and the recorder's presence): after a
broker crash, or a recorder that missed the game's ``game_started`` (the re-send starts
from the first unstored event, ``game_started`` included). Consumers are idempotent by
``seq``, so a re-send that was not needed changes nothing.

``QueueSender`` is the thread that empties the queue: it takes the oldest undelivered
entry, publishes it, waits for the broker's acknowledgement (across reconnects: the
MQTT client re-sends an unacknowledged message itself, so the entry is never published
twice by us), marks it delivered, and only then takes the next. So entries reach the
broker in order, and once unless the agent dies between the acknowledgement and the
``delivered`` write (then the next start sends that entry again; consumers are
idempotent by ``seq``). When nothing is left it calls ``on_idle``.

A torn last line (the process died while writing it) is dropped on load. Not done here:
fsync on every append unless ``fsync=True`` (a power cut can lose the newest entries;
the board itself still shows those moves), and any bound on the file's size.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from gobuddy.bus import topics
from gobuddy.bus.delivery import Delivery, PublishRejected
from gobuddy.bus.redelivery import Redelivery
from gobuddy.bus.topics import TopicError
from gobuddy.bus.validation import MessageError

JOURNAL = "journal.jsonl"
DELIVERED = "delivered"
STORED = "stored.json"
EVENT_SUFFIX = "/event"  # the topic family of game events (gobuddy.bus.topics.board_event)


@dataclass(frozen=True)
class Entry:
    """One message: its number ``n``, ``topic`` (empty for a journal-only note) and payload."""

    n: int
    topic: str
    payload: dict[str, Any]

    @property
    def game_event(self) -> tuple[str, int] | None:
        """(game id, seq) when this entry is a game event, else None."""
        if not self.topic.endswith(EVENT_SUFFIX):
            return None
        game_id, seq = self.payload.get("game_id"), self.payload.get("seq")
        return (game_id, seq) if isinstance(game_id, str) and isinstance(seq, int) else None


class OfflineQueue:
    """Append-only, numbered, on-disk queue; thread-safe."""

    def __init__(self, directory: str | os.PathLike[str], *, fsync: bool = False) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.fsync = fsync
        self._path = self.directory / JOURNAL
        self._delivered_path = self.directory / DELIVERED
        self._stored_path = self.directory / STORED
        self._cond = threading.Condition()
        self._entries: list[Entry] = self._load()
        self._delivered = self._load_delivered()
        self._stored: dict[str, int] = self._load_stored()
        self.stored_changes = 0  # grows whenever a stored mark moves (the sender's clock of progress)
        self._file = open(self._path, "a", encoding="utf-8")

    def _load(self) -> list[Entry]:
        if not self._path.exists():
            return []
        entries: list[Entry] = []
        good = 0
        with open(self._path, "rb") as f:
            for line in f:
                try:
                    data = json.loads(line)
                    entries.append(Entry(int(data["n"]), str(data["topic"]), dict(data["payload"])))
                except (ValueError, KeyError, TypeError):
                    logging.getLogger("edge.queue").warning("dropped a torn or bad line at the end of %s", self._path)
                    break
                good += len(line)
        if good != self._path.stat().st_size:
            with open(self._path, "r+b") as f:
                f.truncate(good)
        return entries

    def _load_stored(self) -> dict[str, int]:
        try:
            data = json.loads(self._stored_path.read_text())
            return {str(k): int(v) for k, v in data.items()} if isinstance(data, dict) else {}
        except (FileNotFoundError, ValueError, TypeError):
            return {}  # unknown: every event counts as unstored, and comes again if need be

    def _load_delivered(self) -> int:
        try:
            return int(self._delivered_path.read_text().strip() or 0)
        except (FileNotFoundError, ValueError):
            return 0  # none or unreadable: deliver everything again (consumers are idempotent)

    # ---- writing -------------------------------------------------------------------------

    def append(self, topic: str, payload: dict[str, Any]) -> Entry:
        """Add a message (or, with ``topic=""``, a journal-only note); durable when it returns
        (to the OS; to the disk with ``fsync``)."""
        with self._cond:
            n = (self._entries[-1].n if self._entries else self._delivered) + 1
            entry = Entry(n, topic, payload)
            self._file.write(_line(entry))
            self._file.flush()
            if self.fsync:
                os.fsync(self._file.fileno())
            self._entries.append(entry)
            self._cond.notify_all()
            return entry

    def mark_delivered(self, n: int) -> None:
        """Record that entries up to ``n`` reached the broker (``n`` must not go back)."""
        with self._cond:
            if n < self._delivered:
                raise ValueError(f"entry {n} is before the delivered mark {self._delivered}")
            self._write_delivered(n)
            self._cond.notify_all()

    def _write_delivered(self, n: int) -> None:
        self._delivered = n
        _write_atomically(self._delivered_path, f"{n}\n")

    def mark_stored(self, game_id: str, seq: int) -> bool:
        """The recorder has every event 0..``seq`` of ``game_id``; True if that is news.
        Marks only move forward, and only for games this journal holds."""
        with self._cond:
            if seq <= self._stored.get(game_id, -1) or not any(
                    e.game_event is not None and e.game_event[0] == game_id for e in self._entries):
                return False
            self._stored[game_id] = seq
            live = {e.game_event[0] for e in self._entries if e.game_event is not None}
            self._stored = {g: s for g, s in self._stored.items() if g in live}
            _write_atomically(self._stored_path, json.dumps(self._stored))
            self.stored_changes += 1
            self._cond.notify_all()
            return True

    def _unstored(self, entry: Entry) -> bool:
        event = entry.game_event
        return event is not None and event[1] > self._stored.get(event[0], -1)

    def first_unstored(self) -> Entry | None:
        """The oldest game event the broker took that the recorder has not stored."""
        with self._cond:
            return next((e for e in self._entries if e.n <= self._delivered and self._unstored(e)), None)

    def unstored_count(self) -> int:
        """Game events the broker took that the recorder has not stored yet."""
        with self._cond:
            return sum(1 for e in self._entries if e.n <= self._delivered and self._unstored(e))

    def rewind(self, n: int) -> None:
        """Deliver again from entry ``n`` on (entries the broker took and then lost)."""
        with self._cond:
            if n <= self._delivered:
                self._write_delivered(n - 1)
                self._cond.notify_all()

    def compact(self, keep_from: int) -> int:
        """Drop entries before ``keep_from`` that were delivered and, for game events,
        stored; returns how many went."""
        with self._cond:
            unstored = next((e.n for e in self._entries if self._unstored(e)), keep_from)
            cut = min(keep_from, self._delivered + 1, unstored)
            kept = [e for e in self._entries if e.n >= cut]
            dropped = len(self._entries) - len(kept)
            if dropped == 0:
                return 0
            self._file.close()
            _write_atomically(self._path, "".join(_line(e) for e in kept))
            self._file = open(self._path, "a", encoding="utf-8")
            self._entries = kept
            return dropped

    def close(self) -> None:
        with self._cond:
            self._file.close()

    # ---- reading -------------------------------------------------------------------------

    @property
    def delivered(self) -> int:
        """Number of the last entry the broker acknowledged (0: none)."""
        return self._delivered

    def entries(self) -> list[Entry]:
        """Every entry still in the journal, delivered or not, oldest first."""
        with self._cond:
            return list(self._entries)

    def pending(self) -> list[Entry]:
        """Entries the broker has not acknowledged yet, oldest first."""
        with self._cond:
            return [e for e in self._entries if e.n > self._delivered]

    def next_pending(self, timeout_s: float) -> Entry | None:
        """The oldest undelivered entry, waiting up to ``timeout_s`` for one."""
        with self._cond:
            def first() -> Entry | None:
                for e in reversed(self._entries):
                    if e.n == self._delivered + 1:
                        return e
                    if e.n <= self._delivered:
                        break
                return None
            self._cond.wait_for(lambda: first() is not None, timeout_s)
            return first()


def _line(entry: Entry) -> str:
    return json.dumps({"n": entry.n, "topic": entry.topic, "payload": entry.payload}, separators=(",", ":")) + "\n"


def _write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` by a file holding ``text`` (written beside it, then renamed)."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


class QueueSender:
    """Publishes a queue's entries in order, one acknowledged entry at a time.

    ``publish(topic, payload)`` returns a ``Delivery`` (``BusClient.publish``);
    ``connected()`` says whether to try now; ``on_idle()`` runs whenever the queue is
    empty and the broker reachable (the agent publishes its retained state there).
    Unstored game events are sent again after ``resend_after_s`` without a move of the
    recorder's marks while ``recorder_online()``, then after twice that, ... up to
    ``resend_max_s``."""

    def __init__(self, queue: OfflineQueue, publish: Callable[[str, dict[str, Any]], Delivery],
                 connected: Callable[[], bool], on_idle: Callable[[], None] = lambda: None,
                 logger: logging.Logger | None = None, *, resend_after_s: float = 10.0,
                 resend_max_s: float = 300.0, recorder_online: Callable[[], bool] = lambda: True,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.queue = queue
        self._publish, self._connected, self._on_idle = publish, connected, on_idle
        self.log = logger or logging.getLogger("edge.queue")
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="edge-queue-sender", daemon=True)
        self.resent = 0  # rewinds for entries the recorder had not stored (read by the delivery tests)
        self._recorder_online = recorder_online
        self._redelivery = Redelivery(resend_after_s, resend_max_s, clock)

    def start(self) -> "QueueSender":
        self._thread.start()
        return self

    def stop(self, timeout_s: float = 3.0) -> None:
        self._stop.set()
        self._thread.join(timeout_s)

    def check_stored(self) -> bool:
        """Send unstored events again if the recorder's marks stood still too long; True
        if it rewound (called by the sender's loop; public for tests)."""
        first = self.queue.first_unstored()
        waited = self._redelivery.waited_s()
        if not self._redelivery.due(None if first is None else first.n, self.queue.stored_changes,
                                    self._recorder_online()):
            return False
        assert first is not None
        self.log.warning("the recorder has not stored entries from %d on (game %s, seq %s) after %.0f s: "
                         "sending them again", first.n, *(first.game_event or ("?", "?")), waited)
        self.queue.rewind(first.n)
        self.resent += 1
        return True

    def _run(self) -> None:
        while not self._stop.is_set():
            entry = self.queue.next_pending(0.2)
            if not self._connected():
                self._stop.wait(0.05)
                continue
            if self.check_stored():
                continue
            if entry is None:
                try:
                    self._on_idle()
                except Exception:  # the idle work must never stop deliveries
                    self.log.exception("idle work of the queue sender failed")
                continue
            if not entry.topic:
                self.queue.mark_delivered(entry.n)
                continue
            self._deliver(entry)

    def _deliver(self, entry: Entry) -> None:
        try:
            delivery = self._publish(entry.topic, entry.payload)
        except (MessageError, TopicError, ValueError) as exc:  # can never succeed: do not block the rest
            self.log.error("dropped queued entry %d on %s: %s", entry.n, entry.topic, exc)
            self.queue.mark_delivered(entry.n)
            return
        while not self._stop.is_set():
            try:
                delivery.wait(0.5)
                break
            except TimeoutError:
                continue  # not acknowledged yet: the client re-sends it after a reconnect
            except PublishRejected as exc:
                self.log.error("the broker refused queued entry %d: %s", entry.n, exc)
                break
        else:
            return  # stopping: the entry stays pending and is sent again next time
        self.queue.mark_delivered(entry.n)


class StoredFollower:
    """Keeps ``queue``'s stored marks from the recorder's ``game_stored`` messages about
    ``board_id``, and whether a recorder is online (its presence, refreshed every few
    seconds; until one has been seen, none is), so the sender re-sends only while someone
    is there to store."""

    def __init__(self, bus: Any, board_id: str, queue: OfflineQueue) -> None:
        self.queue = queue
        self._online: dict[str, bool] = {}
        bus.subscribe(topics.board_stored(board_id), self._on_stored)
        bus.subscribe(topics.status_filter("recorder"), self._on_recorder)

    def _on_stored(self, received: Any) -> None:
        self.queue.mark_stored(received.message.game_id, received.message.seq)

    def _on_recorder(self, received: Any) -> None:
        self._online[received.message.client_id] = received.message.state == "online"

    def recorder_online(self) -> bool:
        return any(self._online.values())
