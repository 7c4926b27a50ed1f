"""The edge agent: the board's frames and buttons in, game events, state and LED commands out.

One ``EdgeAgent`` serves one board. Its loop takes what the ``SerialLink`` delivers:

- frames are classified (``edge.sensing.classify``) with the board's calibration, published
  (QoS 0, at most ``frames_per_s``, sooner when the reading changes) and fed to the
  ``Reconciler`` (``edge.reading.reconcile``), which turns stable boards into moves, undos and
  named problems;
- buttons: START opens a game with the configured settings (ending an unfinished one
  as abandoned), END counts (the dead stones first, see below) and ends it (once the board has settled,
  like PASS and UNDO: a stone placed just before counts), ADVICE asks for a hint (against the engine,
  on the engine's turn, for its move again), PASS and UNDO go to the reconciler, DONE
  held ``long_press_s`` recalibrates (board empty). Every press but DONE is published
  as a ``button_event``. While the board calibrates only DONE counts (short: this step
  is done; held: go on without colour sensing);
- game events get their ``seq`` (``edge.journal.game_journal``) and go to the ``OfflineQueue``,
  which is also the journal: they reach the broker in order, once, whenever it is
  reachable, and are kept until the recorder says it stored them (``game_stored``),
  sent again if it does not (end to end: a broker that crashed after acknowledging
  loses nothing); the retained ``board_state`` follows when the queue is empty.

Hints and the engine's moves are engine requests (``hints_every_move``: after every
move; ``hints_on_request``: on ADVICE; ``vs_engine``: a ``genmove`` whenever the engine
is to move, retried while unanswered). Answers come as the request's response or on the
board's ``led`` topic; one lights the LEDs only if its ``position_key`` (move count and
``position_hash``) is the position on the board now. LEDs: a hint or the engine's point
steady, captured stones still to remove blink, any other problem blinks all LEDs.

Calibration (``edge.calibration.board``): loaded per board from ``data_dir``; when there
is none, with ``calibrate_on_start``, or on request, the board is calibrated step by
step (``edge.calibration.procedure``: the empty board, then with ``colour_sensing``
black and white reference stones where the LEDs ask, each confirmed with DONE) and the
result stored. Meanwhile no frame reaches the game, and the steps are in the status
(``calibration``, ``calibration_message``) and the log. A restart rebuilds the game
(``edge.journal.adoption``: from the journal, or, if the journal has none, from the board's
retained state on the broker), then reads the board in front of it like any other
frame.

The board in a real room (``edge.sensing.health``): the retained status carries the
link's problem (``link_problem``: ``board_silent``, ``port_busy``, a HELLO mismatch,
...; ``link_message`` says it in words), faulty sensors, the light against its limits
and each sensor's health. A board that reads unlike its calibration says so there and
blinks all LEDs; holding TURN DONE then recalibrates even if the board does not read
empty. The status and sensor health are ``edge.board_status``, the engine's answers
``edge.engine_answers``, the teacher's judgements ``edge.judgements``, the count at the
end ``edge.end_count``, the buttons ``edge.board_buttons`` (all mixed into ``EdgeAgent``).

The teacher (``edge.teacher``, whose table says each step; ``teach``: a learner's level,
or the dashboard's ``set_teaching`` command) judges each learner's stone; against the
engine its reply waits for the judgement (at most ``request_timeout_s`` and two seconds:
then the move stands) and for the learner's decision. The end (``edge.end_count``, the
same; ``count_dead``): two passes or END start a count of the dead stones.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict, deque
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from edge.advice import Advisor
from edge.board_players import PlayerChoice
from edge.link.board_view import FrameView, led_command
from edge.calibration.board import BoardCalibration
from edge.calibration.levels import Calibration
from edge.sensing.classify import Classifier, Frame, Sighting
from edge.game import GameSettings, Mode
from edge.journal.adoption import GameAdoption
from edge.journal.game_journal import GameLog
from edge.journal.offline_queue import OfflineQueue, QueueSender, StoredFollower
from edge.reading.problems import UNCLEAR_READING, ProblemRaised
from edge.reading.reconcile import LedPattern, ReconcileConfig, Reconciler
from edge.board_buttons import BoardButtons
from edge.board_status import BoardStatus
from edge.end_count import CountChanged, CountStarted, EndCount
from edge.judgements import Judgements
from edge.teacher import Decided, Teacher
from edge.engine_answers import EngineAnswers
from edge.sensing.health import SensorHealth
from edge.link.serial_link import ButtonChange, CalData, LinkEvent, SerialLink
from gobuddy.bus import BusClient, topics
from gobuddy.bus.inbox import Received
from gobuddy.bus.message import Message
from gobuddy.bus.messages import BoardState, GameEvent
from gobuddy.go.coords import from_gtp

@dataclass(frozen=True)
class AgentConfig:
    """Everything the agent is told; built by ``edge.__main__`` from the command line."""

    board_id: str
    data_dir: Path
    settings: GameSettings = field(default_factory=GameSettings)
    reconcile: ReconcileConfig = field(default_factory=ReconcileConfig)
    visits: int = 200
    think_ms: int = 2000
    request_timeout_s: float = 8.0
    retry_s: float = 2.0
    frames_per_s: float = 5.0
    calibrate_on_start: bool = False
    colour_sensing: bool = False
    calibration_scans: int = 32
    calibration_settle_s: float = 0.5
    long_press_s: float = 2.0
    status_every_s: float = 5.0
    retained_wait_s: float = 2.0
    fsync: bool = False
    teach: str | None = None
    count_dead: bool = True
    count_wait_s: float = 4.0
    count_accept_s: float = 60.0


class EdgeAgent(BoardStatus, EngineAnswers, Judgements, EndCount, BoardButtons):
    """The service for one board; ``start``, then ``stop`` (see the module docstring)."""

    def __init__(self, config: AgentConfig, bus: BusClient, link: SerialLink,
                 logger: logging.Logger | None = None) -> None:
        self.config = config
        self.bus, self.link = bus, link
        self.log = logger or logging.getLogger("edge.agent")
        self.queue = OfflineQueue(config.data_dir / "outbox", fsync=config.fsync)
        self.stored = StoredFollower(bus, config.board_id, self.queue)  # end to end: kept until stored
        self.sender = QueueSender(self.queue, self._publish_entry, bus.is_connected, self._publish_state,
                                  recorder_online=self.stored.recorder_online)
        self.record: GameLog | None = None
        self.reconciler: Reconciler | None = None
        self._lock = threading.RLock()
        self.cal = BoardCalibration(
            config.board_id, config.data_dir, link.command, self._calibration_changed, self._lock, self.log,
            colour=config.colour_sensing, forced=config.calibrate_on_start, scans=config.calibration_scans,
            settle_s=config.calibration_settle_s, retry_s=config.retry_s)
        self.triggers: deque[tuple[str, int, int | None]] = deque(maxlen=4096)  # (game, move, frame seq)
        self.counts = dict.fromkeys(("stale_answers", "answers_used"), 0)
        self._answer_ids: OrderedDict[str, None] = OrderedDict()  # answers taken (edge.engine_answers)
        self.advisor = Advisor(bus, config.board_id, visits=config.visits, think_ms=config.think_ms,
                               timeout_s=config.request_timeout_s, on_answer=self.consider,
                               on_failure=self._request_failed, retry_s=config.retry_s)
        self.teacher = Teacher(config.teach, config.request_timeout_s + 2.0)
        self.players = PlayerChoice(config.data_dir / "players.json")  # who plays the next games
        self.count = None  # a count of dead stones under way (edge.end_count)
        self._hint_reason = None  # (position key, points) of the lit hint's reason
        self._count_note: str | None = None
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._led_text = "LED OFF"
        self._state_dirty = True
        self._done_down: float | None = None
        self._button_seq = 0
        self._status: dict[str, Any] = {}
        self._retry_at = 0.0
        self._engine_state = "not asked"  # ok | busy | no answer: the last engine request's fate
        self.view = FrameView(config.board_id, config.frames_per_s, config.reconcile.stability.settle_s)
        self._last_sighting: Sighting | None = None
        self.health: SensorHealth | None = None
        self._status_at = 0.0
        self.adoption = GameAdoption(bus, config.board_id, config.settings, self.queue, current=lambda: self.record,
                                     install=self._install, lock=self._lock, stop=self._stop, log=self.log,
                                     wait_s=config.retained_wait_s)
        if self.adoption.from_journal() is not None:
            self._resume_count()  # a count shown when the agent stopped is shown again
        bus.subscribe(topics.board_led(config.board_id), self._on_led_topic)
        bus.subscribe(topics.board_command(config.board_id), self._on_command)

    # ---- lifecycle --------------------------------------------------------------------------

    def start(self) -> "EdgeAgent":
        self.bus.start(wait=False)
        self.sender.start()
        self.link.start()
        for target, name in ((self._loop, "edge-agent"), (self.adoption.fetch, "edge-state")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(3.0)
        self.link.stop()
        self.sender.stop()
        self.advisor.close()
        self.bus.stop()
        self.queue.close()

    def _loop(self) -> None:
        while not self._stop.is_set():
            item = self.link.get(0.1)
            with self._lock:
                try:
                    if item is not None:
                        self._handle(item)
                    self._tick()
                except Exception:  # one bad input must not stop the board
                    self.log.exception("failed to handle %r", item)

    def _handle(self, item: Any) -> None:
        if isinstance(item, Frame):
            self._on_frame(item)
        elif isinstance(item, ButtonChange):
            self._on_button(item)
        elif isinstance(item, CalData):
            self.cal.on_caldata(item.readings, time.monotonic())
        elif isinstance(item, LinkEvent):
            self.log.info("board link: %s %s", item.kind, item.detail)
            if item.kind in ("connected", "rebooted"):
                self._send_led(self._led_text, force=True)
                self.cal.on_link_reset(time.monotonic())
            self._status_at = 0.0

    def _tick(self) -> None:
        now = time.monotonic()
        self.cal.tick(now, self.link.connected.is_set(), self.link.hello.size if self.link.hello else 9)
        self._count_tick(now)
        if self.record is not None and not self.record.game.ended and self.bus.is_connected():
            self._ask_judgement()
        if (self.record is not None and not self.record.game.ended and self.bus.is_connected()
                and now >= self._retry_at and self.count is None):  # no move while the count is shown
            if self.record.game.is_engine_turn():
                if not self._teacher_waits():
                    self.advisor.ask(self.record, "genmove")
            elif self.record.settings.mode is Mode.HINTS_EVERY_MOVE:
                self.advisor.ask(self.record, "hint")
        if now - self._status_at >= self.config.status_every_s:
            self._status_at = now
            status = self.status()
            if status != self._status:
                self._status = status
                self.bus.set_status(**status)

    # ---- frames -------------------------------------------------------------------------------

    @property
    def classifier(self) -> Classifier | None:
        return self.cal.classifier

    @property
    def calibration(self) -> Calibration | None:
        return self.cal.calibration

    def _on_frame(self, frame: Frame) -> None:
        if self.cal.active:
            self.cal.on_frame(frame)
            return
        if self.classifier is None:
            return
        sighting = self.classifier.classify(frame)
        self._last_sighting = sighting
        self._follow_health(frame, sighting)
        view = self.view.update(frame, sighting, self.record.game.position.board if self.record else None)
        if view is not None and self.bus.is_connected():
            try:
                self.bus.publish(topics.board_frame(self.config.board_id), view)
            except Exception as exc:  # a live-view frame is never worth stopping for
                self.log.debug("frame not published: %s", exc)
        if self.reconciler is not None:
            self._apply(self.reconciler.observe(sighting), frame)

    def _new_game(self) -> None:
        if self.record is not None and not self.record.game.ended:
            self._enqueue_event(self.record.abandoned())
        record = GameLog.new(self.config.board_id, self.config.settings)
        self.teacher.new_game()
        entry = self._enqueue_event(record.started(self.players.names))
        self.queue.compact(entry.n if entry else 0)
        self._install(record)
        self.log.info("game %s started (%s)", record.game_id, record.settings.mode.value)

    def _install(self, record: GameLog) -> None:
        self.record = record
        self.reconciler = Reconciler(record.game, None, self.config.reconcile)
        self.reconciler.problem = record.edge_problem()
        self.reconciler.count_first = self.config.count_dead
        self.count = None
        self.advisor.forget()
        self._state_dirty = True
        self._show_leds()

    # ---- events -------------------------------------------------------------------------------

    def _apply(self, events: list[Any], frame: Frame | None = None) -> None:
        rec, record = self.reconciler, self.record
        assert rec is not None and record is not None
        todo = list(events)
        while todo:
            event = todo.pop(0)
            if isinstance(event, (LedPattern, CountStarted, CountChanged)):  # for the agent, not the wire
                if isinstance(event, CountStarted):
                    self._start_count()
                elif isinstance(event, CountChanged):
                    self._count_changed(event.dead)
                elif not self.cal.active:  # the calibration owns the LEDs meanwhile
                    self._show_leds()
                continue
            if isinstance(event, ProblemRaised) and event.kind == UNCLEAR_READING and self.health is not None:
                self.health.note_unclear([from_gtp(v, rec.game.size) for v in event.points])
            if isinstance(event, Decided):
                self.log.info("move %d %s after the teacher's warning", event.mistake.number,
                              event.verdict.replace("_", " "))
            wire = record.wire(event)
            if wire.TYPE == "move":
                self.triggers.append((record.game_id, wire.move_number, frame.seq if frame else None))
            self._enqueue_event(wire)
            if wire.TYPE == "pass" and record.game.both_passed() and not record.game.ended:
                todo.extend(rec.start_count() if rec.count_first else rec.end())

    def _enqueue_event(self, event: GameEvent) -> Any:
        self._state_dirty = True
        return self._enqueue(topics.board_event(self.config.board_id), event)

    def _enqueue(self, topic: str, message: Message) -> Any:
        try:
            message.validate()
        except ValueError as exc:
            self.log.error("not publishing an invalid %s: %s", message.KIND, exc)
            return None
        return self.queue.append(topic, message.to_dict())

    def _publish_entry(self, topic: str, payload: dict[str, Any]):
        return self.bus.publish(topic, payload)

    def _publish_state(self) -> None:
        """Publish the retained state if it changed (the queue sender calls this when idle)."""
        with self._lock:
            if not self._state_dirty or not self.adoption.ready.is_set():
                return
            self._state_dirty = False
            state = self.record.state() if self.record else BoardState(board_id=self.config.board_id)
        try:
            self.bus.publish(topics.board_state(self.config.board_id), state, wait=True, timeout_s=5.0)
        except Exception as exc:
            self.log.warning("state not published yet: %s", exc)
            self._state_dirty = True

    # ---- LEDs -----------------------------------------------------------------------------------

    def _send_led(self, text: str, force: bool = False) -> None:
        if text == self._led_text and not force:
            return
        self._led_text = text
        if self.link.connected.is_set():
            self.link.command(text).add_done_callback(self._command_done)

    def _show_leds(self) -> None:
        """The calibration's LEDs while it runs, else the game's."""
        rec = self.reconciler
        if self.cal.active:
            self._send_led(self.cal.led())
        elif self.health is not None and self.health.mismatch:
            self._send_led("LED PROBLEM")  # recalibrate: see the status
        elif rec is None:
            self._send_led(self.cal.led())
        else:
            problem = rec.problem.kind if rec.problem and rec.counting is None else None  # a count shows first
            self._send_led(led_command(rec.led_pattern(), problem, rec.game.size))

    def _command_done(self, future: Future) -> None:
        if future.exception() is not None:
            self.log.warning("board command failed: %s", future.exception())

    # ---- calibration ------------------------------------------------------------------------------

    def _on_command(self, received: Received) -> None:
        """A person asked from the dashboard: ``recalibrate`` acts as TURN DONE held (the
        board must read empty, unless it does not match its calibration); ``set_teaching``
        sets the teacher's level (``None``: off) from now on; ``set_players`` names who
        plays the next games (``edge.board_players``)."""
        command = received.message
        if received.retain:
            return
        if command.command == "set_teaching":  # type: ignore[attr-defined]
            self._set_teaching(command)  # type: ignore[arg-type]
            return
        if command.command == "set_players":  # type: ignore[attr-defined]
            with self._lock:
                self.players.choose(command.players)  # type: ignore[attr-defined]
                self._status_at = 0.0
            self.log.info("%s chose the players %s", command.by, self.players.names or "guests")  # type: ignore[attr-defined]
            return
        if command.command != "recalibrate":  # type: ignore[attr-defined]
            return
        self.log.info("%s asked to recalibrate from the dashboard", command.by)  # type: ignore[attr-defined]
        with self._lock:
            mismatch = self.health is not None and self.health.mismatch
            self.cal.on_done(True, time.monotonic(), self._last_sighting, anyway=mismatch)
            self._status_at = 0.0

    def _calibration_changed(self) -> None:
        """A new calibration step, classifier or end of a run: publish, restart the count, relight."""
        self._status_at = 0.0
        if self.reconciler is not None:
            self.reconciler.stabiliser.reset()
        self._show_leds()
