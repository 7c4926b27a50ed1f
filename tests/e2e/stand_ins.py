"""Stand-ins for the services the dashboard talks to, built from the real parts, for
tests and benches until (or where) the real services are not used:

- ``StandInWorker``: answers engine requests over the bus like an engine worker
  (shared subscription, request/response), with ``gobuddy.ai``'s MCTS over a
  Tromp-Taylor evaluator (no model file needed; its play is naive, its messages real).
- ``StandInRecorder``: stores game events and board presence with ``dashboard.ingest``,
  as the recorder does.
- ``ScriptedBoard``: publishes a game's events and retained state as a board's edge
  agent does (moves given as GTP strings; captures computed by the rules).

Each is a context manager over one ``BusClient``. Where the real services exist the
tests use them instead (``InProcessWorker`` wraps the real worker for AppTests; the
browser tests start ``python -m engine_worker`` and ``python -m dashboard.recorder``,
see ``harness.real_services_available``); the stand-ins keep the tests meaningful in a
checkout without them.
"""

from __future__ import annotations

import math
import threading
from typing import Any, Sequence

import numpy as np

from dashboard.ingest import ingest
from dashboard.store import Store
from engine_worker.answer import wire_answer
from gobuddy.ai.analysis import analyse
from gobuddy.ai.evaluator import Evaluation, Query, TrompTaylorEvaluator
from gobuddy.ai.features import game_history
from gobuddy.ai.mcts import Search, SearchConfig
from gobuddy.bus import topics
from gobuddy.bus.client import BusClient
from gobuddy.bus.config import BusConfig
from gobuddy.bus.inbox import Received
from gobuddy.bus.message import now_ms
from gobuddy.bus.messages import (BoardState, EngineAnswer, EngineError, EngineRequest, GameEnded, GameEvent,
                                  GameStarted, MovePlayed, Passed, Player, Problem, ProblemCleared, ProblemRaised)
from gobuddy.go.coords import BLACK, WHITE, color_to_str, from_gtp, to_gtp
from gobuddy.go.game import Game, Ruleset
from gobuddy.go.position import Position


class ShapeEvaluator(TrompTaylorEvaluator):
    """The Tromp-Taylor value with a policy that likes the third and fourth lines and
    shuns own eyes: naive, but its top moves look like Go on a screenshot."""

    def evaluate(self, queries: Sequence[Query]) -> list[Evaluation]:
        out = []
        for q, judged in zip(queries, super().evaluate(queries)):
            pos, size = q.position, q.position.size
            weights = np.zeros(size * size + 1)
            for p in range(size * size):
                if q.legal[p] and not pos.is_eye_like(p, pos.to_play):
                    r, c = divmod(p, size)
                    line = min(r, c, size - 1 - r, size - 1 - c)
                    weights[p] = math.exp(-abs(line - min(2.5, (size - 1) / 2)))
            weights[-1] = 0.01
            out.append(Evaluation(weights / weights.sum(), judged.value, judged.score_lead, judged.ownership))
        return out


class StandInWorker:
    """An engine worker: MCTS (at most ``max_visits`` visits) over ``ShapeEvaluator``;
    answers errors for deadlines already past, as the real one must."""

    def __init__(self, config: BusConfig, max_visits: int = 24) -> None:
        self.client = BusClient(config)
        self.max_visits = max_visits
        self.answered = 0
        self._lock = threading.Lock()
        self.client.subscribe(topics.engine_requests_filter(), self._on_request)
        self.client.set_status(model="stand-in tromp-taylor", queue_depth=0, evals_per_s=0.0)

    def __enter__(self) -> "StandInWorker":
        self.client.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.client.stop()

    def answer(self, request: EngineRequest) -> EngineAnswer:
        p = request.position
        game = Game.from_position(p.size, Ruleset(p.rules, p.komi), p.setup, p.moves, p.to_play)
        pos, history = game.position, game_history(game)
        search = Search(ShapeEvaluator(p.komi), SearchConfig(komi=p.komi, pipeline=False, seed=1))
        result = analyse(search, pos, history, visits=min(request.max_visits, self.max_visits), top_k=request.top_k,
                         ownership=request.include_ownership, to_play=p.side_to_play())
        return wire_answer(result, id=request.id, board_id=request.board_id, worker=self.client.client_id)

    def _on_request(self, received: Received) -> None:
        request: EngineRequest = received.message  # type: ignore[assignment]
        if request.deadline_ms < now_ms():
            reply: Any = EngineError(id=request.id, error="the deadline passed before the request was taken",
                                     field="deadline_ms", worker=self.client.client_id)
        else:
            try:
                reply = self.answer(request)
            except Exception as exc:  # an illegal position: answer, never crash
                reply = EngineError(id=request.id, error=str(exc), field="position", worker=self.client.client_id)
        self.client.respond(received, reply)
        with self._lock:
            self.answered += 1


class InProcessWorker:
    """The real ``engine_worker.worker.EngineWorker`` run in this process with
    ``ShapeEvaluator`` (no model file), when the package exists; a context manager."""

    def __init__(self, config: BusConfig, max_visits: int = 24) -> None:
        from engine_worker.config import WorkerConfig
        from engine_worker.worker import EngineWorker

        self.worker = EngineWorker(WorkerConfig(bus=config, visit_cap=max_visits, status_interval_s=1.0),
                                   evaluator=ShapeEvaluator(7.0))

    def __enter__(self) -> "InProcessWorker":
        self.worker.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.worker.stop()


def engine_for_tests(config: BusConfig, max_visits: int = 24) -> Any:
    """The real worker in process (``InProcessWorker``) if ``engine_worker`` exists,
    else ``StandInWorker``."""
    try:
        return InProcessWorker(config, max_visits)
    except ImportError:
        return StandInWorker(config, max_visits)


class StandInRecorder:
    """Stores what crosses the broker (game events, presence) with ``dashboard.ingest``."""

    def __init__(self, config: BusConfig, store: Store) -> None:
        self.client = BusClient(config)
        self.store = store
        self.outcomes: list[Any] = []
        self.client.subscribe(topics.boards_filter("event"), self._on)
        self.client.subscribe(topics.status_filter("board"), self._on)

    def __enter__(self) -> "StandInRecorder":
        self.client.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.client.stop()

    def _on(self, received: Received) -> None:
        self.outcomes.append(ingest(self.store.sessions, received.kind, received.payload))


class ScriptedBoard:
    """A board's edge agent, scripted: ``start`` a game, ``play("E5 D6 pass")``, raise and
    clear problems, ``end``. Each call publishes the events, then the retained state."""

    def __init__(self, config: BusConfig, board_id: str | None = None) -> None:
        self.client = BusClient(config)
        self.board_id = board_id or config.client_id
        self.game_id = ""
        self.seq = 0
        self.size, self.komi, self.rules = 9, 7.0, "chinese"
        self.pos = Position(9)
        self.moves: list[tuple[str, str]] = []
        self.problem: Problem | None = None
        self.result: str | None = None

    def __enter__(self) -> "ScriptedBoard":
        self.client.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.client.stop()

    def _send(self, event: GameEvent) -> None:
        self.client.publish(topics.board_event(self.board_id), event, wait=True)

    def state(self) -> BoardState:
        return BoardState(board_id=self.board_id, status="ended" if self.result else "playing", game_id=self.game_id,
                          seq=self.seq, size=self.size, komi=self.komi, rules=self.rules, mode="two_players",
                          moves=tuple(self.moves), move_number=len(self.moves), to_play=color_to_str(self.pos.to_play),
                          captures={"B": self.pos.captures[BLACK], "W": self.pos.captures[WHITE]},
                          problem=self.problem, result=self.result)

    def publish_state(self) -> None:
        self.client.publish(topics.board_state(self.board_id), self.state(), wait=True)

    def start(self, game_id: str, size: int = 9, komi: float = 7.0, players: tuple[str, str] = ("Ana", "Ben")) -> None:
        self.game_id, self.seq, self.size, self.komi = game_id, 0, size, komi
        self.pos, self.moves, self.problem, self.result = Position(size), [], None, None
        self._send(GameStarted(board_id=self.board_id, game_id=game_id, seq=0, size=size, komi=komi,
                               rules=self.rules, players={"B": Player(players[0]), "W": Player(players[1])}))
        self.publish_state()

    def play(self, moves: str, *, state: bool = True, ts: int | None = None) -> None:
        for vertex in moves.split():
            color = color_to_str(self.pos.to_play)
            captured = self.pos.play(from_gtp(vertex, self.size))
            self.moves.append((color, vertex))
            self.seq += 1
            stamp = {"ts": ts} if ts is not None else {}
            if vertex == "pass":
                self._send(Passed(board_id=self.board_id, game_id=self.game_id, seq=self.seq,
                                  move_number=len(self.moves), color=color, **stamp))
            else:
                self._send(MovePlayed(board_id=self.board_id, game_id=self.game_id, seq=self.seq,
                                      move_number=len(self.moves), color=color, vertex=vertex,
                                      captures=tuple(sorted(to_gtp(p, self.size) for p in captured)), **stamp))
            if state:
                self.publish_state()

    def raise_problem(self, kind: str, points: list[str], message: str) -> None:
        self.seq += 1
        self.problem = Problem(kind, tuple(points), message)
        self._send(ProblemRaised(board_id=self.board_id, game_id=self.game_id, seq=self.seq,
                                 move_number=len(self.moves), kind=kind, points=tuple(points), message=message))
        self.publish_state()

    def clear_problem(self) -> None:
        self.seq += 1
        kind, self.problem = (self.problem.kind if self.problem else None), None
        self._send(ProblemCleared(board_id=self.board_id, game_id=self.game_id, seq=self.seq,
                                  move_number=len(self.moves), kind=kind))
        self.publish_state()

    def end(self, result: str, reason: str = "score") -> None:
        self.seq += 1
        self.result = result
        self._send(GameEnded(board_id=self.board_id, game_id=self.game_id, seq=self.seq,
                             move_number=len(self.moves), result=result, reason=reason))
        self.publish_state()
