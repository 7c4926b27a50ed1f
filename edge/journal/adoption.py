"""Taking up the board's game after a restart: from the journal, else from the retained state.

An agent that starts again (a crash, a power cut, a Pi with a new disk) goes on with
the game on its board instead of starting one. ``GameAdoption.from_journal`` rebuilds
the latest game of the agent's own journal (``edge.journal.game_journal.restore``). ``fetch``
(a thread of its own) then waits for the broker, reads the board's retained
``board_state`` once and ``adopt``s its game when the agent has none (an empty data
directory) or only an older point of the same game; an adoption is noted in the journal
(``adopted_note``) so that the next restart rebuilds from it. ``ready`` is set once the
retained state was read, or ``wait_s`` passed without one: until then the agent
publishes no state of its own, so it never overwrites a game it has not seen.

The board in front of the agent is not read here: the agent reads it like any other
frame, and the reconciler turns what changed while it was down into moves or problems.
Not done here: merging two different games (the journal's game wins over a retained
state of another game), or taking up an ended or idle state (nothing to go on with).
"""

from __future__ import annotations

import logging
import threading
from typing import Callable

from edge.game import GameSettings
from edge.journal.game_journal import GameLog, adopted_note, restore
from edge.journal.offline_queue import OfflineQueue
from gobuddy.bus import BusClient, topics
from gobuddy.bus.inbox import Received
from gobuddy.bus.messages import BoardState


class GameAdoption:
    """One agent's restart (see the module docstring). ``current`` reads the agent's game
    now and ``install`` makes a rebuilt game the agent's; both are called under ``lock``
    (the agent's), ``fetch`` returns early once ``stop`` is set."""

    def __init__(self, bus: BusClient, board_id: str, settings: GameSettings, queue: OfflineQueue, *,
                 current: Callable[[], GameLog | None], install: Callable[[GameLog], None],
                 lock: threading.RLock, stop: threading.Event, log: logging.Logger, wait_s: float = 2.0) -> None:
        self.bus, self.board_id, self.settings, self.queue = bus, board_id, settings, queue
        self.current, self.install, self.lock, self.stop = current, install, lock, stop
        self.log, self.wait_s = log, wait_s
        self.ready = threading.Event()  # the retained state was read: the agent's may overwrite it

    def from_journal(self) -> GameLog | None:
        """The latest game of the journal, installed; ``None`` when it holds none."""
        record = restore(self.queue.entries(), topics.board_event(self.board_id), self.settings)
        if record is not None:
            self.install(record)
            self.log.info("rebuilt game %s from the journal: %d moves, seq %d", record.game_id,
                          record.game.move_number, record.seq)
        return record

    def fetch(self) -> None:
        """Once connected, read the board's retained state (``adopt`` decides about it),
        then set ``ready``."""
        while not self.bus.wait_connected(0.2):
            if self.stop.is_set():
                return
        topic, got = topics.board_state(self.board_id), threading.Event()

        def on_state(received: Received) -> None:
            if received.retain and not got.is_set():
                got.set()
                self.adopt(received.message)  # type: ignore[arg-type]

        # A persistent session keeps the subscription, and the broker sends retained
        # messages only to new ones: subscribe, drop it, subscribe anew.
        self.bus.subscribe(topic, on_state)
        self.bus.unsubscribe(topic)
        self.bus.subscribe(topic, on_state)
        got.wait(self.wait_s)
        self.bus.unsubscribe(topic)
        self.ready.set()

    def adopt(self, state: BoardState) -> None:
        """Take over the game of a retained state if the agent has none or only an older
        point of the same game (by ``seq``); anything else is left alone."""
        with self.lock:
            if state.game_id is None or state.status != "playing":
                return
            record = self.current()
            if record is not None and (record.game_id != state.game_id or (state.seq or 0) <= record.seq):
                return
            try:
                record = GameLog.from_state(state, self.settings)
            except ValueError as exc:
                self.log.error("retained state of this board unusable: %s", exc)
                return
            self.queue.append("", adopted_note(state))
            self.install(record)
            self.log.info("adopted game %s from the retained state: %d moves, seq %d", record.game_id,
                          record.game.move_number, record.seq)
