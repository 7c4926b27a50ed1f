"""An LRU cache of engine answers, keyed by ``request_position.search_key``.

Only complete searches belong here (the caller's rule: an answer cut short by a deadline
or a time limit is not stored, so a later request with more time gets a real search).
Values are answer dicts; ``get`` returns a copy, so callers may rewrite the per-request
fields (id, board_id, ts, worker, elapsed_ms, position_key.move_count). Thread-safe.
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from typing import Any


class AnswerCache:
    """At most ``capacity`` answers; the least recently used goes first. Capacity 0
    stores nothing."""

    def __init__(self, capacity: int) -> None:
        if capacity < 0:
            raise ValueError(f"capacity must be >= 0, got {capacity}")
        self.capacity = capacity
        self._items: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> dict[str, Any] | None:
        """A copy of the answer stored under ``key`` (now the most recent), or None."""
        with self._lock:
            answer = self._items.get(key)
            if answer is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return copy.deepcopy(answer)

    def put(self, key: str, answer: dict[str, Any]) -> None:
        """Store a copy of ``answer`` under ``key``, evicting the least recently used."""
        if self.capacity == 0:
            return
        with self._lock:
            self._items[key] = copy.deepcopy(answer)
            self._items.move_to_end(key)
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
