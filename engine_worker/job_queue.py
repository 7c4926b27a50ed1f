"""The worker's queue of accepted requests: fair between requesters, and which of them a
newer one superseded.

Fairness: each requester (the account a request came from: ``(role, client_id)``) has
its own first-in-first-out line, and ``take`` serves the lines in turn (round robin), so
one requester that floods the worker delays only its own requests: with N requesters
waiting, each gets every N-th turn. A requester may have at most ``per_requester`` jobs
waiting; the whole queue at most ``capacity``. ``ahead(requester)`` is how many jobs
would run before a new one of that requester (what the worker's admission estimates a
wait from).

A request about a board (``board_id`` set) is superseded by a newer request from the
same requester about the same board for the same purpose: a board that asks for a hint
again after a move wants the new position, not the old one. Newer means accepted later
by this worker (one requester's requests arrive in order on its topic). Supersession is
per worker: two requests that the shared subscription gave to different workers are
both answered (the edge drops the stale one by ``position_key``).

``put`` marks the running job's ``stop`` event when it is superseded, so its search ends
after the current batch. Thread-safe. Not done here: weights per requester (every
requester's turn is the same), priorities by purpose.
"""

from __future__ import annotations

import threading
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
    requester: Hashable | None = None  # whose line it waits in (None: one shared line)
    deadline_ms: int = 0  # by this worker's clock: arrival plus the request's timeout_ms
    seq: int = 0
    stop: threading.Event = field(default_factory=threading.Event)

    @property
    def request(self) -> EngineRequest:
        return self.received.message  # type: ignore[return-value]


def requester_of(received: Received) -> Hashable:
    """The account a request came from: (role, client id) of its request topic."""
    return (received.info.role, received.info.client_id)


class JobQueue:
    """Round robin over requesters' FIFO lines of ``Job``s; at most ``capacity`` waiting
    in all and ``per_requester`` (default ``capacity``) in one line."""

    def __init__(self, capacity: int, per_requester: int | None = None) -> None:
        self.capacity = capacity
        self.per_requester = per_requester or capacity
        self._lines: dict[Hashable, deque[Job]] = {}
        self._turns: deque[Hashable] = deque()  # requesters with waiting jobs, next first
        self._waiting = 0
        self._cond = threading.Condition()
        self._latest: dict[Hashable, int] = {}
        self._current: Job | None = None
        self._next_seq = 0
        self._closed = False

    def refusal(self, job: Job) -> str | None:
        """Why ``put`` would refuse ``job`` now ("closed", "full", "requester_full"), or None."""
        with self._cond:
            return self._refusal(job)

    def _refusal(self, job: Job) -> str | None:
        if self._closed:
            return "closed"
        if self._waiting >= self.capacity:
            return "full"
        if len(self._lines.get(job.requester, ())) >= self.per_requester:
            return "requester_full"
        return None

    def put(self, job: Job) -> bool:
        """Accept ``job`` (False when refused, see ``refusal``); supersede older jobs of its key."""
        with self._cond:
            if self._refusal(job) is not None:
                return False
            self._next_seq += 1
            job.seq = self._next_seq
            if job.key is not None:
                self._latest[job.key] = job.seq
                if self._current is not None and self._current.key == job.key:
                    self._current.stop.set()
            line = self._lines.setdefault(job.requester, deque())
            if not line:
                self._turns.append(job.requester)
            line.append(job)
            self._waiting += 1
            self._cond.notify()
            return True

    def take(self, timeout_s: float) -> Job | None:
        """The next job (now the running one), or None after ``timeout_s`` or when closed."""
        with self._cond:
            if not self._cond.wait_for(lambda: self._waiting or self._closed, timeout_s) or self._closed:
                return None
            requester = self._turns.popleft()
            line = self._lines[requester]
            self._current = line.popleft()
            self._waiting -= 1
            if line:
                self._turns.append(requester)
            else:
                del self._lines[requester]
            return self._current

    def ahead(self, requester: Hashable | None) -> int:
        """How many waiting jobs would run before a new job of ``requester`` (round robin)."""
        with self._cond:
            mine = len(self._lines.get(requester, ()))
            return mine + sum(min(len(line), mine + 1) for who, line in self._lines.items() if who != requester)

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
        still waiting, oldest first (they will not run)."""
        with self._cond:
            self._closed = True
            if self._current is not None:
                self._current.stop.set()
            waiting = sorted((job for line in self._lines.values() for job in line), key=lambda job: job.seq)
            self._lines, self._turns, self._waiting = {}, deque(), 0
            self._cond.notify_all()
            return waiting

    @property
    def waiting(self) -> int:
        """Jobs accepted and not yet started."""
        with self._cond:
            return self._waiting
