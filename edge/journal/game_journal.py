"""The live game as messages: wire events out, and the game rebuilt from them after a restart.

``GameLog`` is one game on one board as the rest of the system sees it: a
``gobuddy.go.game.Game`` with the board's ``GameSettings`` (``edge.game``), its
``game_id`` and the ``seq`` of its last event. ``wire`` turns the game's own events
(``Played``, ``Undone``, ``Ended`` of ``gobuddy.go.game``, through
``gobuddy.bus.game_events.from_game``) and the board's problems
(``edge.reading.problems``) into ``gobuddy.bus`` game events with the next ``seq``, and the learner's decision after the
teacher's warning (``edge.teacher.Decided``) into a ``teaching`` event; ``state`` is the
retained ``board_state``.

Rebuilding: ``from_events`` replays a game's published events (``game_started`` first;
moves, passes, undos, problems, the end: the game's own fold, ``Game.apply``; a
``teaching`` event taken_back keeps its move in the game's variations),
``from_state`` a retained ``board_state`` (its moves, undos already folded in), and
``restore`` finds the latest game in the agent's journal (``edge.journal.offline_queue``).
Replay stops, with a logged error, at the first event that does not fit the game so far
(a broken journal is never guessed past).

Problem kinds go on the wire as the reconciler names them (``edge.reading.problems``; every one
is in the schema's ``problem_kind``).
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from edge.reading import problems as pr
from edge.game import RULES, GameSettings, Mode
from edge.teacher import Decided
from gobuddy.bus import messages as wire
from gobuddy.bus.game_events import GUEST, from_game
from gobuddy.go.coords import BLACK, WHITE, color_from_str, color_to_str, from_gtp, to_gtp
from gobuddy.go.game import Ended, Game, Played, TakenBack, Undone

ADOPTED = "adopted_state"

log = logging.getLogger("edge.journal")


def new_game_id(board_id: str) -> str:
    """``<board_id>-<UTC yyyymmdd-HHMMSS>-<4 hex>``: unique per start, sortable by time."""
    return f"{board_id}-{datetime.now(timezone.utc):%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"


@dataclass
class GameLog:
    """One game and its place in the event stream; ``problem`` as last published."""

    board_id: str
    game_id: str
    settings: GameSettings
    game: Game
    seq: int = -1
    problem: wire.Problem | None = None

    @classmethod
    def new(cls, board_id: str, settings: GameSettings) -> "GameLog":
        """A new game with a new id (``new_game_id``), before its ``started`` event."""
        return cls(board_id, new_game_id(board_id), settings, settings.new_game())

    # ---- events out ----------------------------------------------------------------------

    def started(self, names: dict[str, str] | None = None) -> wire.GameStarted:
        """The ``game_started`` event (seq 0); call once, first. ``names``: the people at
        black and white (``edge.board_players``); a side nobody named is a guest, and the
        engine plays its side in a game against the engine."""
        s, game = self.settings, self.game
        players = {side: wire.Player((names or {}).get(side) or GUEST) for side in ("B", "W")}
        if s.mode is Mode.VS_ENGINE:
            players[color_to_str(s.engine_color)] = wire.Player("gobuddy", "engine")  # type: ignore[arg-type]
        return wire.GameStarted(board_id=self.board_id, game_id=self.game_id, seq=self._next(), size=s.size,
                                komi=s.komi, rules=RULES, handicap=s.handicap, setup=self.setup(),
                                to_play=color_to_str(game.to_play), mode=s.mode.wire, players=players)

    def wire(self, event: Any) -> wire.GameEvent:
        """The wire event for one of the game's own events, with the next seq."""
        size = self.game.size
        if isinstance(event, Decided):
            m = event.mistake
            return wire.Teaching(board_id=self.board_id, game_id=self.game_id, seq=self._next(), move_number=m.number,
                                 color=color_to_str(m.color), vertex=to_gtp(m.point, size), verdict=event.verdict,
                                 points_lost=m.points_lost, winrate_lost=m.winrate_lost,
                                 better=to_gtp(m.better, size) if m.better is not None else None, level=m.level)
        if isinstance(event, (Played, Undone, Ended)):
            return from_game(event, size, board_id=self.board_id, game_id=self.game_id, seq=self._next())
        ids = dict(board_id=self.board_id, game_id=self.game_id, seq=self._next(), move_number=event.move_number)
        if isinstance(event, pr.ProblemRaised):
            self.problem = wire.Problem(event.kind, tuple(dict.fromkeys(event.points)), event.message[:500])
            return wire.ProblemRaised(**ids, kind=self.problem.kind, points=self.problem.points,
                                      message=self.problem.message)
        if isinstance(event, pr.ProblemCleared):
            self.problem = None
            return wire.ProblemCleared(**ids, kind=event.kind)
        self.seq -= 1
        raise TypeError(f"not a game event: {event!r}")

    def abandoned(self) -> wire.GameEnded:
        """The end of a game left unfinished (a new game was started)."""
        return self.wire(self.game.finish("Void", "abandoned"))

    def _next(self) -> int:
        self.seq += 1
        return self.seq

    # ---- state ---------------------------------------------------------------------------

    def setup(self) -> tuple[tuple[str, str], ...]:
        return tuple(self.game.gtp_setup())

    def moves(self) -> tuple[tuple[str, str], ...]:
        return tuple(self.game.gtp_moves())

    def state(self) -> wire.BoardState:
        game, s = self.game, self.settings
        pos = game.position
        return wire.BoardState(
            board_id=self.board_id, status="ended" if game.ended else "playing", game_id=self.game_id,
            seq=self.seq, size=s.size, komi=s.komi, rules=RULES, mode=s.mode.wire, handicap=s.handicap,
            setup=self.setup(), moves=self.moves(), move_number=game.move_number, to_play=color_to_str(pos.to_play),
            captures={"B": pos.captures[BLACK], "W": pos.captures[WHITE]}, problem=self.problem,
            result=None if game.result == "Void" else game.result)

    # ---- rebuilding ----------------------------------------------------------------------

    @classmethod
    def from_events(cls, events: list[dict[str, Any]], defaults: GameSettings) -> "GameLog":
        """Replay published events (``events[0]`` a ``game_started``); later games' events
        and events of other games are skipped."""
        first = events[0]
        settings = _settings(first, defaults)
        log_ = cls(first["board_id"], first["game_id"], settings, settings.new_game(), seq=first["seq"])
        log_.replay(events[1:])
        return log_

    def replay(self, events: list[dict[str, Any]]) -> None:
        """Apply this game's events newer than ``seq``, in order; stop at one that does not fit."""
        for event in events:
            if event.get("game_id") != self.game_id or event["seq"] <= self.seq:
                continue
            try:
                self._replay(event)
            except (ValueError, KeyError, TypeError) as exc:
                log.error("journal of game %s: event %s does not fit (%s); replay stops there",
                          self.game_id, event.get("seq"), exc)
                return
            self.seq = event["seq"]

    @classmethod
    def from_state(cls, state: wire.BoardState, defaults: GameSettings) -> "GameLog":
        """The game a retained ``board_state`` describes (``ValueError`` if it is not one)."""
        if state.game_id is None or state.seq is None or state.status == "idle":
            raise ValueError("the state holds no game")
        started = {"size": state.size, "komi": state.komi, "handicap": state.handicap, "mode": state.mode,
                   "players": None}
        settings = _settings(started, defaults)
        log_ = cls(state.board_id, state.game_id, settings, settings.new_game(), seq=state.seq,
                   problem=state.problem)
        for color, vertex in state.moves:
            log_.game.play_gtp(color, vertex, strict_turns=True)
        log_.game.result = state.result
        return log_

    def _replay(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        if kind == "problem":
            self.problem = wire.Problem(event["kind"], tuple(event["points"]), event["message"])
        elif kind == "problem_cleared":
            self.problem = None
        elif kind == "teaching":
            if event["verdict"] == "taken_back":  # its undo came first: keep the move as a variation
                size = self.game.size
                better = event["better"]
                self.game.variations.append(TakenBack(
                    event["move_number"], color_from_str(event["color"]), from_gtp(event["vertex"], size),
                    event["points_lost"], from_gtp(better, size) if better not in (None, "pass") else None))
        elif kind in ("move", "pass"):
            if color_from_str(event["color"]) != self.game.to_play:  # a board's moves alternate
                raise ValueError(f"{event['color']} played {event.get('vertex', 'pass')} but "
                                 f"{color_to_str(self.game.to_play)} was to play")
            self.game.apply(kind, event["color"], event.get("vertex"), event.get("move_number"))
        else:
            self.game.apply(kind, event.get("color"), event.get("vertex"), event.get("move_number"),
                            event.get("result"))

    def edge_problem(self) -> pr.Problem | None:
        """The published problem as the reconciler holds one (flat points)."""
        if self.problem is None:
            return None
        size = self.game.size
        return pr.Problem(self.problem.kind, tuple(from_gtp(v, size) for v in self.problem.points),
                          self.problem.message)


def _settings(started: dict[str, Any], defaults: GameSettings) -> GameSettings:
    """Settings of a replayed game: its own size, komi, handicap and mode; the hint mode
    and engine colour, which the wire does not carry, from ``defaults``."""
    if started.get("mode") == "vs_engine":
        engine = defaults.engine_color if defaults.engine_color is not None else WHITE
        for side, player in (started.get("players") or {}).items():
            if player.get("kind") == "engine":
                engine = color_from_str(side)
        mode: Mode = Mode.VS_ENGINE
    else:
        engine, mode = None, defaults.mode if defaults.mode is not Mode.VS_ENGINE else Mode.HINTS_ON_REQUEST
    return GameSettings(size=int(started["size"]), komi=float(started["komi"]), handicap=int(started["handicap"]),
                        mode=mode, engine_color=engine, superko=defaults.superko)


def restore(entries: list[Any], event_topic: str, defaults: GameSettings) -> GameLog | None:
    """The latest game in a journal (``OfflineQueue.entries()``): from its ``game_started``,
    or from a retained state adopted earlier (a note ``{"kind": "adopted_state"}``), with
    every later event of that game replayed. ``None`` when the journal holds no game."""
    for i in range(len(entries) - 1, -1, -1):
        entry = entries[i]
        if entry.topic == "" and entry.payload.get("kind") == ADOPTED:
            record = GameLog.from_state(wire.BoardState.from_dict(entry.payload["state"]), defaults)
            record.replay([e.payload for e in entries[i + 1:] if e.topic == event_topic])
            return record
        if entry.topic == event_topic and entry.payload.get("type") == "game_started":
            return GameLog.from_events([e.payload for e in entries[i:] if e.topic == event_topic], defaults)
    return None


def adopted_note(state: wire.BoardState) -> dict[str, Any]:
    """The journal note recording that the game of ``state`` was taken over."""
    return {"kind": ADOPTED, "state": state.to_dict()}
