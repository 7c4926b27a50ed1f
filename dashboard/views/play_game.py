"""A game against the engine on a web board, and the bus messages that record it.

``PlayGame`` holds one game of the Play page (kept in the browser session): settings,
setup stones, the moves (the truth: the position is replayed from them) and the next
event ``seq``. Each change returns the ``game_event``s to publish on the web board's
event topic; ``state()`` is the retained ``board_state`` to publish after them. The
recorder stores the events like a physical board's, so a web game is stored and
replayable through the one path into the database.

Not done here: talking to the bus or the engine (``views/play.py`` does), time limits.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Sequence

from gobuddy.bus.messages import (BoardState, GameEnded, GameEvent, GameStarted, MovePlayed, Passed, Player,
                                  Undone)
from gobuddy.go.coords import BLACK, WHITE, color_from_str, from_gtp, to_gtp
from gobuddy.go.handicap import fixed_handicap_points
from gobuddy.go.position import IllegalMove, Position
from gobuddy.go.scoring import area_score

SIMPLE_KO_RULES = frozenset({"japanese", "korean"})
ILLEGAL_WORDS = {"occupied": "that point is occupied", "ko": "it would retake the ko at once",
                 "suicide": "it would be suicide", "superko": "it would repeat an earlier position (superko)"}


def other(color: str) -> str:
    return "W" if color == "B" else "B"


@dataclass
class PlayGame:
    """One game against the engine. ``human`` is the human's colour; ``first`` who moves
    first (white after a handicap of 2 or more)."""

    board_id: str
    game_id: str
    size: int = 9
    komi: float = 7.0
    rules: str = "chinese"
    handicap: int = 0
    human: str = "B"
    visits: int = 200
    player_name: str = "guest"
    setup: list[tuple[str, str]] = field(default_factory=list)
    first: str = "B"
    moves: list[tuple[str, str]] = field(default_factory=list)
    seq: int = 0
    result: str | None = None
    reason: str | None = None

    @classmethod
    def new(cls, board_id: str, *, size: int = 9, komi: float = 7.0, rules: str = "chinese", handicap: int = 0,
            human: str = "B", visits: int = 200, player_name: str = "guest") -> "PlayGame":
        """A fresh game with handicap stones placed (fixed points); raises
        ``HandicapError`` for a handicap the board size does not take."""
        setup = [("B", to_gtp(p, size)) for p in fixed_handicap_points(size, handicap)] if handicap >= 2 else []
        stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
        return cls(board_id, f"{board_id}-{stamp}-{uuid.uuid4().hex[:4]}", size, komi, rules, handicap, human, visits,
                   player_name.strip() or "guest", setup, "W" if handicap >= 2 else "B")

    # ---- the position -------------------------------------------------------------------
    def position(self, upto: int | None = None) -> Position:
        """The position after the first ``upto`` moves (all by default), replayed."""
        pos = Position(self.size, superko=self.rules not in SIMPLE_KO_RULES, to_play=color_from_str(self.first))
        for color, vertex in self.setup:
            pos.place(from_gtp(vertex, self.size), color_from_str(color))
        for color, vertex in self.moves[:upto]:
            pos.play(from_gtp(vertex, self.size), color_from_str(color))
        return pos

    @property
    def to_play(self) -> str:
        return other(self.moves[-1][0]) if self.moves else self.first

    @property
    def over(self) -> bool:
        return self.result is not None

    @property
    def counting(self) -> bool:
        """Two passes ended play; the count is not accepted yet (``end_by_score``)."""
        return not self.over and self.two_passes()

    @property
    def engine_to_play(self) -> bool:
        return not self.over and not self.counting and self.to_play != self.human

    def two_passes(self) -> bool:
        return len(self.moves) >= 2 and self.moves[-1][1] == "pass" and self.moves[-2][1] == "pass"

    # ---- events ------------------------------------------------------------------------------
    def _next_seq(self) -> int:
        self.seq += 1
        return self.seq

    def start(self) -> list[GameEvent]:
        """The ``game_started`` event (seq 0)."""
        engine, human = Player("gobuddy", "engine"), Player(self.player_name, "human")
        players = {"B": human, "W": engine} if self.human == "B" else {"B": engine, "W": human}
        self.seq = 0
        return [GameStarted(board_id=self.board_id, game_id=self.game_id, seq=0, size=self.size, komi=self.komi,
                            rules=self.rules, handicap=self.handicap, setup=tuple(self.setup), to_play=self.first,
                            mode="vs_engine", players=players)]

    def play(self, vertex: str) -> list[GameEvent]:
        """The side to move plays ``vertex`` (or ``pass``). Raises ``IllegalMove`` with
        the reason in plain words, or ``ValueError`` when the game is over or being
        counted (undo the passes to play on)."""
        if self.over:
            raise ValueError("the game is over")
        if self.counting:
            raise ValueError("the game is being counted")
        color = self.to_play
        pos = self.position()
        point = from_gtp(vertex, self.size)
        why = pos.illegal_reason(point, color_from_str(color))
        if why is not None:
            raise IllegalMove(f"{vertex} is not possible: {ILLEGAL_WORDS.get(why, why)}")
        captured = sorted(to_gtp(p, self.size) for p in pos.play(point, color_from_str(color), check=False))
        number = len(self.moves) + 1
        if point == pos.pass_point:
            self.moves.append((color, "pass"))
            return [Passed(board_id=self.board_id, game_id=self.game_id, seq=self._next_seq(), move_number=number,
                           color=color)]
        self.moves.append((color, to_gtp(point, self.size)))
        return [MovePlayed(board_id=self.board_id, game_id=self.game_id, seq=self._next_seq(), move_number=number,
                           color=color, vertex=to_gtp(point, self.size), captures=tuple(captured))]

    def undo(self) -> list[GameEvent]:
        """Take back the human's last move (and the engine's answer to it, if it came),
        so the human is to play again. Nothing of the human's to undo: no events."""
        if self.over:
            raise ValueError("the game is over")
        if not self.moves or (self.moves[-1][0] != self.human and len(self.moves) < 2):
            return []  # nothing of the human's to take back
        events: list[GameEvent] = []
        for _ in range(2 if self.moves[-1][0] != self.human else 1):
            color, vertex = self.moves.pop()
            events.append(Undone(board_id=self.board_id, game_id=self.game_id, seq=self._next_seq(),
                                 move_number=len(self.moves) + 1, color=color, vertex=vertex))
        return events

    def resign(self, color: str) -> list[GameEvent]:
        """``color`` resigns: the other side wins by resignation."""
        return self._end(f"{other(color)}+R", "resignation")

    def abandon(self) -> list[GameEvent]:
        """Leave an unfinished game (a new one starts): result ``?``, reason abandoned."""
        return self._end("?", "abandoned")

    def end_by_score(self, dead: Sequence[str] = ()) -> list[GameEvent]:
        """End with an area count (``dead``: GTP vertices of stones counted as dead,
        as the players accepted them; ``views/play_count`` proposes them)."""
        pos = self.position()
        score = area_score(pos, self.komi, [from_gtp(v, self.size) for v in dead])
        return self._end(score.result, "score")

    def _end(self, result: str, reason: str) -> list[GameEvent]:
        if self.over:
            raise ValueError("the game is over")
        self.result, self.reason = result, reason
        return [GameEnded(board_id=self.board_id, game_id=self.game_id, seq=self._next_seq(),
                          move_number=len(self.moves), result=result, reason=reason)]

    def state(self) -> BoardState:
        """The retained ``board_state`` of the web board now."""
        pos = self.position()
        return BoardState(board_id=self.board_id, status="ended" if self.over else "playing", game_id=self.game_id,
                          seq=self.seq, size=self.size, komi=self.komi, rules=self.rules, mode="vs_engine",
                          handicap=self.handicap, setup=tuple(self.setup), moves=tuple(self.moves),
                          move_number=len(self.moves), to_play=self.to_play,
                          captures={"B": pos.captures[BLACK], "W": pos.captures[WHITE]}, problem=None,
                          result=self.result)


__all__ = ["IllegalMove", "PlayGame", "other"]
