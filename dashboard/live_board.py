"""The live game on one board, as the dashboard follows it from the bus.

``BoardTracker`` folds a board's retained ``board_state`` and its ``game_event``s into a
``LiveBoard``: the state is the base, events with the next ``seq`` are applied on top,
an early event waits for the ones before it (or for a state that covers it), and a
message about another game replaces the current game only if it is not older. Every
change replays setup and moves with ``gobuddy.go.game`` into stones, captures and the
position's key (the engine answers' ``position_key.hash``).

Not thread-safe (``dashboard.live_feed.LiveFeed`` locks around it). Not checked here:
whose turn it is; an illegal move stops the replay and is reported in ``replay_error``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from gobuddy.bus.messages import BoardState, GameEvent, GameStarted, Problem
from gobuddy.go.coords import BLACK, WHITE, color_from_str
from gobuddy.go.game import Game, GameError, Ruleset


def other(color: str) -> str:
    return "W" if color == "B" else "B"


@dataclass(frozen=True)
class LiveBoard:
    """A board's current game as last heard. ``stones``/``captures``/``position_hash``
    come from replaying ``setup`` and ``moves`` (``replay_error`` says where that failed;
    the stones then show the moves up to it). ``ts`` is the newest message time (ms),
    ``received_ms`` when it arrived here, ``version`` grows with every change. A game that
ended by a ``game_ended`` event carries its ``end_reason`` and the stones its count
took as ``dead`` (None: the event named none; a retained state carries neither)."""

    board_id: str
    status: str
    game_id: str | None
    seq: int | None
    size: int
    komi: float
    rules: str
    mode: str | None
    handicap: int
    setup: tuple[tuple[str, str], ...]
    moves: tuple[tuple[str, str], ...]
    to_play: str
    problem: Problem | None
    result: str | None
    ts: int
    received_ms: int
    version: int = 0
    stones: tuple[int, ...] = ()
    captures: tuple[tuple[str, int], ...] = (("B", 0), ("W", 0))
    position_hash: str | None = None
    replay_error: str | None = None
    end_reason: str | None = None
    dead: tuple[str, ...] | None = None

    @property
    def move_number(self) -> int:
        return len(self.moves)

    @property
    def last_move(self) -> tuple[str, str] | None:
        return self.moves[-1] if self.moves else None

    @property
    def capture_counts(self) -> dict[str, int]:
        return dict(self.captures)


def replayed(board: LiveBoard) -> LiveBoard:
    """``board`` with its derived fields recomputed from setup and moves
    (``gobuddy.go.game``); an illegal move stops there, named in ``replay_error``."""
    rules, error = Ruleset(board.rules, board.komi), None
    try:
        game = Game.from_position(board.size, rules, board.setup, board.moves, board.to_play)
    except GameError as exc:  # the stones show the moves before the one at fault
        error = str(exc)
        game = (Game.from_position(board.size, rules, board.setup, board.moves[:exc.move_number - 1])
                if exc.move_number else Game(board.size, rules))
    pos = game.position
    captures = (("B", pos.captures[BLACK]), ("W", pos.captures[WHITE]))
    return replace(board, stones=tuple(pos.board), captures=captures,
                   position_hash=None if error else game.hash(), replay_error=error)


class BoardTracker:
    """The current game (``current``) of one board; see the module docstring."""

    def __init__(self, board_id: str) -> None:
        self.board_id = board_id
        self.current: LiveBoard | None = None
        self._waiting: dict[tuple[str, int], GameEvent] = {}
        self._version = 0

    def apply_state(self, state: BoardState, received_ms: int) -> bool:
        cur = self.current
        if cur is not None:
            if state.game_id == cur.game_id and state.game_id is not None:
                if state.seq is not None and cur.seq is not None and state.seq <= cur.seq:
                    return False
            elif state.ts < cur.ts:
                return False
        board = LiveBoard(self.board_id, state.status, state.game_id, state.seq, state.size, state.komi, state.rules,
                          state.mode, state.handicap, tuple(tuple(s) for s in state.setup),
                          tuple(tuple(m) for m in state.moves), state.to_play, state.problem, state.result,
                          state.ts, received_ms)
        self._set(board)
        self._drain(received_ms)
        return True

    def apply_event(self, event: GameEvent, received_ms: int) -> bool:
        cur = self.current
        if isinstance(event, GameStarted):
            if cur is not None and (cur.game_id == event.game_id or event.ts < cur.ts):
                return False
            board = LiveBoard(self.board_id, "playing", event.game_id, event.seq, event.size, event.komi, event.rules,
                              event.mode, event.handicap, tuple(tuple(s) for s in event.setup), (), event.to_play,
                              None, None, event.ts, received_ms)
            self._set(board)
            self._drain(received_ms)
            return True
        if cur is None or cur.game_id != event.game_id or cur.seq is None or event.seq > cur.seq + 1:
            self._wait(event)
            return False
        if event.seq <= cur.seq:
            return False
        self._set(_folded(cur, event, received_ms))
        self._drain(received_ms)
        return True

    def _wait(self, event: GameEvent) -> None:
        self._waiting[(event.game_id, event.seq)] = event
        if len(self._waiting) > 2000:
            self._waiting.pop(next(iter(self._waiting)))

    def _drain(self, received_ms: int) -> None:
        while (cur := self.current) is not None and cur.seq is not None:
            stale = [k for k in self._waiting if k[0] == cur.game_id and k[1] <= cur.seq]
            for k in stale:
                del self._waiting[k]
            event = self._waiting.pop((cur.game_id or "", cur.seq + 1), None)
            if event is None:
                return
            self._set(_folded(cur, event, received_ms))

    def _set(self, board: LiveBoard) -> None:
        self._version += 1
        self.current = replayed(replace(board, version=self._version))


def _folded(board: LiveBoard, event: Any, received_ms: int) -> LiveBoard:
    """``board`` after one event of its game (the next seq)."""
    kind = event.TYPE
    changes: dict[str, Any] = dict(seq=event.seq, ts=max(board.ts, event.ts), received_ms=received_ms)
    if kind == "move":
        changes.update(moves=board.moves + ((event.color, event.vertex),), to_play=other(event.color))
    elif kind == "pass":
        changes.update(moves=board.moves + ((event.color, "pass"),), to_play=other(event.color))
    elif kind == "undo":
        if board.moves and board.moves[-1] == (event.color, event.vertex):
            changes.update(moves=board.moves[:-1], to_play=event.color)
    elif kind == "problem":
        changes.update(problem=Problem(event.kind, tuple(event.points), event.message))
    elif kind == "problem_cleared":
        changes.update(problem=None)
    elif kind == "game_ended":
        changes.update(status="ended", result=event.result, end_reason=event.reason,
                       dead=tuple(event.dead) if event.dead is not None else None)
    return replace(board, **changes)


def color_name(color: str) -> str:
    """``"B"`` -> ``"black"``, ``"W"`` -> ``"white"``."""
    return "black" if color_from_str(color) == BLACK else "white"
