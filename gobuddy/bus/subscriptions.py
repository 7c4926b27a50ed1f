"""The subscriptions of one client, and routing of received messages to their handlers.

Every filter gets its own MQTT 5 Subscription Identifier; Mosquitto sends one copy of a
message per matching subscription, each copy carrying that subscription's identifier, so
``route`` hands a copy to the handlers of the filters named in it. When the identifiers
are missing or unknown (a persistent session queued the message under an earlier
process's subscriptions) routing falls back to matching the topic against every filter.
Thread-safe.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from gobuddy.bus import topics


@dataclass
class Subscription:
    """One filter: its identifier, options and handlers; ``internal`` marks the client's
    own engine response topic (answers are matched to requests, not handed to handlers)."""

    sub_id: int
    topic_filter: str
    no_local: bool = False
    handlers: list[Callable[[Any], None]] = field(default_factory=list)
    internal: bool = False


class Subscriptions:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_filter: dict[str, Subscription] = {}
        self._next_id = 1

    def add(self, topic_filter: str, handler: Callable[[Any], None] | None,
            no_local: bool = False) -> tuple[Subscription, bool]:
        """Add a handler (None: mark the filter ``internal``); returns the subscription and
        whether it must be sent to the broker."""
        with self._lock:
            subscription = self._by_filter.get(topic_filter)
            is_new = subscription is None
            if subscription is None:
                if no_local and topic_filter.startswith("$share/"):
                    raise ValueError("no_local is not allowed on a shared subscription")
                subscription = self._by_filter[topic_filter] = Subscription(self._next_id, topic_filter, no_local)
                self._next_id += 1
            elif subscription.no_local != no_local:
                raise ValueError(f"{topic_filter!r} is already subscribed with no_local={subscription.no_local}")
            if handler is None:
                subscription.internal = True
            else:
                subscription.handlers.append(handler)
            return subscription, is_new

    def remove(self, topic_filter: str) -> bool:
        with self._lock:
            return self._by_filter.pop(topic_filter, None) is not None

    def all(self) -> list[Subscription]:
        with self._lock:
            return list(self._by_filter.values())

    def route(self, topic: str | None, sub_ids: Iterable[int] | None) -> tuple[bool, list[Callable[[Any], None]]]:
        """(is this an answer for the client's requests?, handlers to call) for one copy."""
        with self._lock:
            by_id = {s.sub_id: s for s in self._by_filter.values()}
            chosen = [by_id[i] for i in (sub_ids or ()) if i in by_id]
            if topic is not None:
                chosen = [s for s in chosen if topics.matches(s.topic_filter, topic)]
                if not chosen:
                    chosen = [s for s in self._by_filter.values() if topics.matches(s.topic_filter, topic)]
            elif not chosen:
                chosen = list(self._by_filter.values())[:1]  # let one handler path reject it
            internal = any(s.internal for s in chosen)
            handlers = [h for s in chosen for h in s.handlers]
            return internal, handlers
