"""The edge agent under test, wired to real parts: a simulated board on a pseudo-terminal
(``edge.simulation.pty_board``, or the real firmware in simavr), a real Mosquitto, and an observer
that records what reaches the broker.

``AgentRig`` runs ``EdgeAgent`` in this process on a ``PtyBoard`` rendered ``speed``
times faster than real time (board time, and so every stability rule, is unchanged).
``Observer`` is a persistent-session client of the recorder account collecting one
board's messages; ``moves(...)`` and ``events(...)`` read them back.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable

from edge.agent import AgentConfig, EdgeAgent
from edge.calibration.levels import CalibrationStore
from edge.game import GameSettings
from edge.simulation.pty_board import PtyBoard
from edge.simulation.sensor_model import SensorModel
from edge.link.serial_link import SerialLink
from edge.simulation.simulator import BoardSimulator, calibrate
from gobuddy.bus import BusClient, topics
from gobuddy.go.coords import BLACK, WHITE, from_gtp
from gobuddy.go.position import Position
from tests.mqtt_broker import Inbox, MosquittoBroker


def wait_until(check: Callable[[], Any], timeout_s: float = 10.0, what: str = "condition") -> Any:
    """Poll ``check`` until it returns something true; ``AssertionError`` naming ``what``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out after {timeout_s}s waiting for {what}")


class Observer:
    """Everything one board publishes (events, state, buttons, frames, presence). An
    observer account: it stores nothing, so it must not look like a recorder (the agent
    would wait for its game_stored marks and send everything again)."""

    def __init__(self, broker: MosquittoBroker, board_id: str) -> None:
        self.board_id = board_id
        self.inbox = Inbox()
        self.client = BusClient(broker.config("observer", client_id=f"observer-{board_id}", persistent_session=True))
        self.client.subscribe(topics.board_filter(board_id), self.inbox)
        self.client.subscribe(topics.status("board", board_id), self.inbox)
        self.client.start()

    def stop(self) -> None:
        self.client.stop()

    def events(self, *types: str) -> list[dict[str, Any]]:
        return [r.payload for r in self.inbox.items
                if r.kind == "game_event" and (not types or r.payload["type"] in types)]

    def moves(self) -> list[str]:
        """Move and pass events as ``"B E5"`` / ``"W pass"``, in arrival order."""
        return [f"{e['color']} {e.get('vertex', 'pass')}" for e in self.events("move", "pass")]

    def wait_moves(self, count: int, timeout_s: float = 15.0) -> list[str]:
        wait_until(lambda: len(self.moves()) >= count, timeout_s, f"{count} moves (have {self.moves()})")
        return self.moves()

    def state(self) -> dict[str, Any] | None:
        states = [r.payload for r in self.inbox.items if r.kind == "board_state"]
        return states[-1] if states else None

    def status(self) -> dict[str, Any] | None:
        statuses = [r.payload for r in self.inbox.items if r.kind == "status"]
        return statuses[-1] if statuses else None


class AgentRig:
    """A ``PtyBoard`` and an in-process ``EdgeAgent`` for ``board_id`` on ``broker``.

    The board starts empty; its colour calibration is stored first (as if done earlier)
    unless ``calibrated=False`` (the agent then calibrates the empty board itself).
    ``board_seed``: the sensors of another board than the one calibrated (default: the same)."""

    def __init__(self, broker: MosquittoBroker, data_dir: Path, board_id: str = "board-t1", *, seed: int = 1,
                 speed: float = 4.0, settings: GameSettings = GameSettings(), calibrated: bool = True,
                 board_seed: int | None = None, **config: Any) -> None:
        self.broker, self.data_dir, self.board_id = broker, data_dir, board_id
        self.settings, self.extra = settings, config
        self.model = SensorModel(seed=seed)
        board_model = self.model if board_seed is None else SensorModel(seed=board_seed)
        self.board = PtyBoard(BoardSimulator(board_model, seed=seed), link=data_dir / "board.pty", speed=speed)
        if calibrated:
            CalibrationStore(data_dir).save(board_id, calibrate(self.model))
        self.agent: EdgeAgent | None = None
        self.pos = Position(9)

    def start(self) -> "AgentRig":
        self.board.start()
        self.start_agent()
        return self

    def start_agent(self, data_dir: Path | None = None, wait: bool = True) -> EdgeAgent:
        config = AgentConfig(self.board_id, data_dir or self.data_dir, settings=self.settings, **self.extra)
        bus = BusClient(self.broker.config(self.board_id, persistent_session=True))
        link = SerialLink(self.board.path, backoff_max_s=0.5)
        self.agent = EdgeAgent(config, bus, link).start()
        if wait:
            wait_until(lambda: self.agent.classifier is not None and self.agent.link.connected.is_set(), 15,
                       "the agent to connect and calibrate")
        return self.agent

    def stop_agent(self) -> None:
        if self.agent is not None:
            self.agent.stop()
            self.agent = None

    def stop(self) -> None:
        self.stop_agent()
        self.board.stop()

    def __enter__(self) -> "AgentRig":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- playing -----------------------------------------------------------------------

    def press(self, button: str) -> None:
        self.board.press(button).result(10)
        self.board.idle(0.5).result(10)

    def play(self, moves: str) -> None:
        """Play GTP vertices (``"E5 C3 pass"``) for the side to move, by hand."""
        for vertex in moves.split():
            color = self.pos.to_play
            if vertex == "pass":
                self.pos.play(self.pos.pass_point)
                self.press("PASS")
                continue
            point = from_gtp(vertex, 9)
            captured = self.pos.play(point)
            self.board.play(point, color, captured).result(20)
            self.board.idle(0.6).result(10)


__all__ = ["AgentRig", "Observer", "wait_until", "BLACK", "WHITE"]
