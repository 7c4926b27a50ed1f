"""The Play page's game events, kept until the recorder says they are stored.

The Play page publishes its games' events on ``web-<n>`` boards and the broker
acknowledges them before they are on its disk; a broker that dies then, or a recorder
that missed a game's ``game_started``, would lose moves. ``PlayOutbox`` keeps every
event it was given (``sent``) until a ``game_stored`` mark covers it (``stored``), and
``tick`` sends again, in seq order, a game's events from its first unstored one when
``Redelivery`` says so (no mark moved for a while, a recorder online). In memory: the
game itself lives in the browser session, in this same process. Thread-safe.
"""

from __future__ import annotations

import logging
import threading
from typing import Callable

from gobuddy.bus import topics
from gobuddy.bus.message import Message
from gobuddy.bus.redelivery import Redelivery

log = logging.getLogger("dashboard.play_outbox")
Publish = Callable[[str, Message], object]


class PlayOutbox:
    """Unstored Play events per game; see the module docstring."""

    def __init__(self, publish: Publish, recorder_online: Callable[[], bool], redelivery: Redelivery | None = None):
        self._publish, self._recorder_online = publish, recorder_online
        self._redelivery = redelivery or Redelivery()
        self._lock = threading.Lock()
        self._events: dict[str, dict[int, Message]] = {}  # game id -> seq -> event
        self._progress = 0
        self.resent = 0

    def sent(self, event: Message) -> None:
        """Keep a game event the broker took (``board_id``, ``game_id``, ``seq``)."""
        with self._lock:
            self._events.setdefault(event.game_id, {})[event.seq] = event  # type: ignore[attr-defined]

    def stored(self, game_id: str, seq: int) -> None:
        """The recorder has every event 0..``seq`` of ``game_id``."""
        with self._lock:
            events = self._events.get(game_id)
            if not events:
                return
            done = [s for s in events if s <= seq]
            for s in done:
                del events[s]
            if not events:
                del self._events[game_id]
            if done:
                self._progress += 1

    def unstored(self) -> int:
        with self._lock:
            return sum(len(events) for events in self._events.values())

    def tick(self) -> int:
        """Send again what is due; returns how many events went out again."""
        with self._lock:
            first = min(((game, min(events)) for game, events in self._events.items()), default=None)
            if not self._redelivery.due(first, self._progress, self._recorder_online()):
                return 0
            again = [events[s] for events in self._events.values() for s in sorted(events)]
        log.warning("the recorder has not stored %d Play events: sending them again", len(again))
        for event in again:
            try:
                self._publish(topics.board_event(event.board_id), event)  # type: ignore[attr-defined]
            except Exception as exc:  # the broker is away: the next tick tries again
                log.warning("could not send a Play event again: %s", exc)
                break
        self.resent += len(again)
        return len(again)
