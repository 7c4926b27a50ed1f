"""``LiveFeed``: the dashboard's one MQTT listener, held process-wide (``st.cache_resource``).

It keeps, in thread-safe memory, what the Live, Play and System pages show without
touching the database:

- per board the current game (``LiveBoard``): the retained ``board_state`` with the
  ``game_event``s that came after it folded on (whichever of the two arrives first, a
  new move shows at once), replayed into stones, captures and the position's key;
- presence (``status``) of every board and service, error reports, the delay from each
  board message's ``ts`` to its arrival here, and the round trips of engine requests;
- for boards a page is watching, the engine's answer for the position now on the board
  (``dashboard.live_analysis``, a part of this class).

The Play page publishes its games' events through ``publish``; they are kept in a
``PlayOutbox`` until the recorder says they are stored (``game_stored``) and sent again
if it does not (end-to-end delivery, as on a physical board).

Pages read snapshots (frozen dataclasses) and never block on the bus. Engine requests
go through ``gobuddy.bus``'s request/response helper (``request``/``request_async``).
Not done here: storing anything (the recorder does), retrying failed requests.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Callable

from dashboard.live_analysis import LiveAnalysis
from dashboard.live_board import BoardTracker, LiveBoard
from dashboard.play_outbox import PlayOutbox
from gobuddy.bus import topics
from gobuddy.bus.client import BusClient
from gobuddy.bus.config import BusConfig
from gobuddy.bus.delivery import Delivery
from gobuddy.bus.inbox import Received
from gobuddy.bus.message import Message, now_ms
from gobuddy.bus.messages import BoardState, EngineAnswer, EngineRequest, ErrorReport, GameEvent, Status
from gobuddy.bus.redelivery import Redelivery

HISTORY = 500  # latency samples and error reports kept


@dataclass(frozen=True)
class Presence:
    """The last status of one client, when it arrived (ms, this host's clock), and since
    when the client has been in its ``state`` (``since_ms``: the arrival of the first
    status that said so)."""

    client_id: str
    role: str
    state: str
    reason: str
    ts: int
    details: dict[str, Any]
    received_ms: int
    since_ms: int = 0

    @property
    def online(self) -> bool:
        return self.state == "online"


@dataclass(frozen=True)
class EngineTiming:
    """One answered engine request: its purpose, the round trip seen here and the
    worker's own search time (ms), and which worker answered."""

    purpose: str
    round_trip_ms: float
    search_ms: float
    worker: str
    at_ms: int


class LiveFeed(LiveAnalysis):
    """See the module docstring. ``bus`` None: a feed without a broker (pages say so)."""

    def __init__(self, bus: BusConfig | None, *, analysis_visits: int = 200, analysis_timeout_s: float = 30.0,
                 clock: Callable[[], int] = now_ms, redelivery: Redelivery | None = None,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._boards: dict[str, BoardTracker] = {}
        self._presence: dict[tuple[str, str], Presence] = {}
        self._errors: deque[ErrorReport] = deque(maxlen=HISTORY)
        self._delays: deque[tuple[str, int]] = deque(maxlen=HISTORY)
        self._timings: deque[EngineTiming] = deque(maxlen=HISTORY)
        self._answers: dict[str, tuple[tuple[Any, ...], EngineAnswer]] = {}
        self._hints: dict[str, EngineAnswer] = {}
        self._watched: dict[str, float] = {}
        self._pending: dict[str, tuple[tuple[Any, ...], float, str]] = {}
        self._trouble: dict[str, tuple[tuple[Any, ...], str, float]] = {}  # board -> (key, why, ask again at)
        self._monotonic = monotonic
        self._partial_at: dict[str, float] = {}  # board -> when its shown partial answer came
        self._slots: dict[str, tuple[str, float]] = {}
        self._generation = 0
        self.analysis_visits = analysis_visits
        self.analysis_timeout_s = analysis_timeout_s
        self._clock = clock
        self.client = BusClient(bus) if bus is not None else None
        self.outbox = PlayOutbox(lambda topic, message: self.publish(topic, message, keep=False),
                                 lambda: any(p.online for p in self.presence("recorder")), redelivery)
        self._closed = threading.Event()
        self._caught_up = threading.Event()  # this feed's own birth came back (see wait_caught_up)
        if self.client is not None:
            self.client.subscribe(topics.boards_filter("stored"), self._on_stored)
            self.client.subscribe(topics.boards_filter("state"), self._on_board)
            self.client.subscribe(topics.boards_filter("event"), self._on_board)
            self.client.subscribe(topics.boards_filter("led"), self._on_led)
            self.client.subscribe(topics.status_filter(), self._on_status)
            self.client.subscribe(topics.error_filter(), self._on_error)
            self.client.start(wait=False)
            threading.Thread(target=self._outbox_loop, name="live-feed-outbox", daemon=True).start()

    def close(self) -> None:
        self._closed.set()
        if self.client is not None:
            self.client.stop()

    def _outbox_loop(self) -> None:
        while not self._closed.wait(0.5):
            try:
                self.outbox.tick()
            except Exception:  # never let the re-sender die
                logging.getLogger("dashboard.live_feed").exception("re-sending Play events failed")

    def _on_stored(self, received: Received) -> None:
        if received.info.board_id is not None and received.info.board_id.startswith("web-"):
            self.outbox.stored(received.message.game_id, received.message.seq)

    # ---- reading (any thread) ----------------------------------------------------------
    @property
    def has_bus(self) -> bool:
        return self.client is not None

    def connected(self) -> bool:
        return self.client is not None and self.client.is_connected()

    def wait_caught_up(self, timeout_s: float) -> bool:
        """Block until the retained messages the broker held when this feed subscribed
        (every board's state, every client's presence) have arrived, or ``timeout_s``
        passed (False). Their end is this feed's own birth coming back live: the client
        publishes it after subscribing, and the broker sends a subscription's retained
        copies before it takes the client's next packet. False at once without a bus."""
        return self.client is not None and self._caught_up.wait(timeout_s)

    def board(self, board_id: str) -> LiveBoard | None:
        with self._lock:
            tracker = self._boards.get(board_id)
            return tracker.current if tracker else None

    def boards(self) -> list[LiveBoard]:
        """Every board heard of, by id."""
        with self._lock:
            return [t.current for _, t in sorted(self._boards.items()) if t.current is not None]

    def presence(self, role: str | None = None) -> list[Presence]:
        with self._lock:
            return sorted((p for p in self._presence.values() if role is None or p.role == role),
                          key=lambda p: (p.role, p.client_id))

    def errors(self) -> list[ErrorReport]:
        with self._lock:
            return list(self._errors)

    def delays(self) -> list[tuple[str, int]]:
        """(message kind, ms from its ``ts`` to its arrival here), oldest first."""
        with self._lock:
            return list(self._delays)

    def timings(self) -> list[EngineTiming]:
        with self._lock:
            return list(self._timings)

    @property
    def generation(self) -> int:
        """A counter that grows with every change the feed takes in (any board, presence,
        answer, error): a page compares it with the one it last drew."""
        return self._generation

    def _bump(self) -> None:
        """Called with the lock held after a change: count it and wake the waiters."""
        self._generation += 1
        self._changed.notify_all()

    def wait_for(self, predicate: Callable[["LiveFeed"], bool], timeout_s: float) -> bool:
        """Block until ``predicate(self)`` holds after some change (tests, benches)."""
        deadline = time.monotonic() + timeout_s
        with self._changed:
            while not predicate(self):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(min(left, 0.1))
            return True

    # ---- engine requests (any thread) ------------------------------------------------------
    def request_async(self, request: EngineRequest, *,
                      on_partial: Callable[[EngineAnswer], None] | None = None) -> Future:
        """Send ``request``; the future gives the final ``EngineAnswer`` (or raises
        ``EngineRequestFailed``); ``on_partial`` gets the partial ones (on the network
        thread). It fails with ``TimeoutError`` a little after the request's deadline."""
        if self.client is None:
            raise ConnectionError("the dashboard runs without a broker (--no-bus)")
        started = time.perf_counter()
        future = self.client.request_async(request, on_partial=on_partial)
        future.add_done_callback(lambda f: self._timed(request.purpose, started, f))
        return future

    def request(self, request: EngineRequest, timeout_s: float | None = None) -> EngineAnswer:
        """Send ``request`` and wait for its answer: ``TimeoutError`` after ``timeout_s``
        (default: until its deadline plus a second)."""
        future = self.request_async(request)
        if timeout_s is None:
            timeout_s = max(0.1, (request.deadline_ms - now_ms()) / 1000) + 1.0
        try:
            return future.result(timeout_s)
        except TimeoutError:
            raise TimeoutError(f"no engine answered within {timeout_s:.0f} s (are engine workers online?)") from None

    def _timed(self, purpose: str, started: float, future: Future) -> None:
        if future.exception() is not None:
            return
        answer = future.result()
        timing = EngineTiming(purpose, (time.perf_counter() - started) * 1000, float(answer.elapsed_ms),
                              answer.worker, self._clock())
        with self._lock:
            self._timings.append(timing)

    # ---- publishing (Play page) -------------------------------------------------------------
    def publish(self, topic: str, message: Message, *, wait: bool = True, keep: bool = True) -> Delivery:
        """Publish through the bus client (validated); waits for the broker's PUBACK. A
        game event is kept (``keep``) until the recorder stored it, and sent again if not."""
        if self.client is None:
            raise ConnectionError("the dashboard runs without a broker (--no-bus)")
        delivery = self.client.publish(topic, message, wait=wait)
        if keep and message.KIND == "game_event":
            self.outbox.sent(message)
        return delivery

    def claim_web_slot(self, owner: str) -> str:
        """A ``web-<n>`` board for ``owner`` (a browser session): its own if it has one,
        else the one idle longest in this process. Raises ``RuntimeError`` when all
        slots are held by sessions active in the last hour."""
        with self._lock:
            now = time.monotonic()
            for board_id, (holder, _) in self._slots.items():
                if holder == owner:
                    self._slots[board_id] = (owner, now)
                    return board_id
            candidates = []
            for slot, board_id in enumerate(topics.web_board_ids(), start=1):
                holder = self._slots.get(board_id)
                if holder is None or now - holder[1] > 3600:
                    busy = (b := self.board(board_id)) is not None and b.status == "playing"
                    candidates.append((busy, holder[1] if holder else 0.0, slot, board_id))
            if not candidates:
                raise RuntimeError("every web board (web-1..web-8) is in use; try again later")
            board_id = min(candidates)[3]
            self._slots[board_id] = (owner, now)
            return board_id

    def hand_over_web_slot(self, board_id: str, owner: str) -> None:
        """``board_id`` is ``owner``'s from now on (a game resumed in a new browser
        session keeps its board): the session that held it loses it, and ``owner``
        gives up any other slot it held. A ``board_id`` that is not a web board is
        ignored."""
        if board_id not in topics.web_board_ids():
            return
        with self._lock:
            for held, (holder, _) in list(self._slots.items()):
                if holder == owner:
                    del self._slots[held]
            self._slots[board_id] = (owner, time.monotonic())

    # ---- handlers (the bus client's dispatcher thread) --------------------------------------
    def _tracker(self, board_id: str) -> BoardTracker:
        tracker = self._boards.get(board_id)
        if tracker is None:
            tracker = self._boards[board_id] = BoardTracker(board_id)
        return tracker

    def _on_board(self, received: Received) -> None:
        """A board's retained state or one of its game events, folded into its live board."""
        message: BoardState | GameEvent = received.message  # type: ignore[assignment]
        arrived = self._clock()
        with self._changed:
            if not received.retain:  # a retained state may be old: its age is no delay
                self._delays.append((message.KIND, arrived - message.ts))
            tracker = self._tracker(message.board_id)
            fold = tracker.apply_state if isinstance(message, BoardState) else tracker.apply_event
            changed = fold(message, arrived)  # type: ignore[arg-type]
            self._bump()
        if changed:
            self._maybe_analyse(message.board_id)

    def _on_led(self, received: Received) -> None:
        answer: EngineAnswer = received.message  # type: ignore[assignment]
        if answer.board_id is not None and not answer.is_during_search:
            with self._changed:
                self._hints[answer.board_id] = answer
                self._bump()

    def _on_status(self, received: Received) -> None:
        """The status that arrived last is the client's presence. Its ``ts`` (the
        sender's clock) is shown, never used to order: one client's statuses arrive in
        the order the broker took them (one topic, one subscription), a retained copy
        on subscribing is the latest, and a sender's clock may run fast (a status from
        the future must not outrank the ones after it) or the last will carry the time
        of the connect that registered it (older than the birth it follows)."""
        status: Status = received.message  # type: ignore[assignment]
        now = self._clock()
        with self._changed:
            old = self._presence.get((status.role, status.client_id))
            since = old.since_ms if old is not None and old.state == status.state else now
            self._presence[(status.role, status.client_id)] = Presence(
                status.client_id, status.role, status.state, status.reason, status.ts, dict(status.details), now,
                since)
            self._bump()
        if not received.retain and self.client is not None and status.client_id == self.client.config.client_id:
            self._caught_up.set()

    def _on_error(self, received: Received) -> None:
        with self._changed:
            self._errors.append(received.message)  # type: ignore[arg-type]
            self._bump()


__all__ = ["EngineTiming", "LiveFeed", "Presence"]
