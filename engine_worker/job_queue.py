"""The worker's queue of accepted requests, and which of them a newer one superseded.

A request about a board (``board_id`` set) is superseded by a newer request from the
same requester about the same board for the same purpose: a board that asks for a hint
again after a move wants the new position, not the old one. Newer means accepted later
by this worker (one requester's requests arrive in order on its topic). Supersession is
per worker: two requests that the shared subscription gave to different workers are
both answered (the edge drops the stale one by ``position_key``).

``put`` marks the running job's ``stop`` event when it is superseded, so its search ends
after the current batch. First in, first out otherwise. Thread-safe.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Hashable

from gobuddy.bus.engine_messages import EngineRequest
from gobuddy.bus.inbox import Received


def supersede_key(received: Received) -> Hashable | None:
    """(requester role, requester id, board, purpose) for a request about a board, else None."""
    request: EngineRequest = received.message  # type: ignore[assignment]
    if request.board_id is None:
        return None
    return (received.info.role, received.info.client_id, request.board_id, request.purpose)


@dataclass(eq=False)
class Job:
    """One accepted request with what the worker prepared for it."""

    received: Received
    prepared: Any  # request_position.Prepared
    visits: int
    key: Hashable | None = None
    seq: int = 0
    accepted: float = field(default_factory=time.monotonic)
    stop: threading.Event = field(default_factory=threading.Event)

    @property
    def request(self) -> EngineRequest:
        return self.received.message  # type: ignore[return-value]


class JobQueue:
    """FIFO of ``Job``s with at most ``capacity`` waiting."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._jobs: deque[Job] = deque()
        self._cond = threading.Condition()
        self._latest: dict[Hashable, int] = {}
        self._current: Job | None = None
        self._next_seq = 0
        self._closed = False

    def put(self, job: Job) -> bool:
        """Accept ``job`` (False when full or closed); supersede older jobs of its key."""
        with self._cond:
            if self._closed or len(self._jobs) >= self.capacity:
                return False
            self._next_seq += 1
            job.seq = self._next_seq
            if job.key is not None:
                self._latest[job.key] = job.seq
                if self._current is not None and self._current.key == job.key:
                    self._current.stop.set()
            self._jobs.append(job)
            self._cond.notify()
            return True

    def take(self, timeout_s: float) -> Job | None:
        """The next job (now the running one), or None after ``timeout_s`` or when closed."""
        with self._cond:
            if not self._cond.wait_for(lambda: self._jobs or self._closed, timeout_s) or self._closed:
                return None
            self._current = self._jobs.popleft()
            return self._current

    def superseded(self, job: Job) -> bool:
        """True if a newer job of the same key was accepted after ``job``."""
        with self._cond:
            return job.key is not None and self._latest.get(job.key, job.seq) != job.seq

    def finish(self, job: Job) -> None:
        """``job`` is done (answered or dropped)."""
        with self._cond:
            if self._current is job:
                self._current = None
            if job.key is not None and self._latest.get(job.key) == job.seq:
                del self._latest[job.key]

    def close(self) -> list[Job]:
        """Refuse new jobs, stop the running one, wake ``take``; return the jobs that were
        still waiting (they will not run)."""
        with self._cond:
            self._closed = True
            if self._current is not None:
                self._current.stop.set()
            waiting, self._jobs = list(self._jobs), deque()
            self._cond.notify_all()
            return waiting

    @property
    def waiting(self) -> int:
        """Jobs accepted and not yet started."""
        with self._cond:
            return len(self._jobs)
