"""A game against the engine on a web board, and the bus messages that record it.

``PlayGame`` holds one game of the Play page (kept in the browser session): the
settings, the opponent's level and the seed of its draws, whether the teacher judges
the learner's moves (``teach``: ``views/play_teach``), the game itself (a
``gobuddy.go.game.Game``: setup, moves, the position derived from them, its hash) and
the next event ``seq``. Each change returns the ``game_event``s to publish on the web
board's event topic; ``state()`` is the retained ``board_state`` to publish after them.
The recorder stores the events like a physical board's, so a web game is stored and
replayable through the one path into the database; the engine player is named with
its level (``ladder.engine_player_name``) so that the person's ladder steps at the end.

Not done here: talking to the bus or the engine (``views/play.py`` does), time limits.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Sequence

from dashboard.ladder import engine_player_name
from gobuddy.ai.levels import FULL
from gobuddy.bus.game_events import from_game
from gobuddy.bus.messages import BoardState, GameEvent, GameStarted, Player, Teaching
from gobuddy.go.coords import BLACK, WHITE, color_from_str, color_to_str, from_gtp
from gobuddy.go.game import Ended, Game, GameError, Played, Ruleset, Undone
from gobuddy.go.position import IllegalMove, Position

ILLEGAL_WORDS = {"occupied": "that point is occupied", "ko": "it would retake the ko at once",
                 "suicide": "it would be suicide", "superko": "it would repeat an earlier position (superko)"}
MAX_SEED = 2**31 - 1  # the engine request's seed is a non-negative 32-bit signed integer


@dataclass
class PlayGame:
    """One game against the engine. ``human`` is the human's colour (the game's
    ``engine_color`` the other); ``level`` the engine's (a name of ``gobuddy.ai.levels``),
    ``seed`` its draws' seed for this game; ``game`` the rules' game (who moves first
    follows from it: white after a handicap of 2 or more)."""

    board_id: str
    game_id: str
    game: Game
    human: str = "B"
    level: str = FULL
    seed: int = 0
    player_name: str = "guest"
    seq: int = 0
    reason: str | None = None
    teach: bool = False

    def __post_init__(self) -> None:
        self.game.engine_color = -color_from_str(self.human)

    @classmethod
    def new(cls, board_id: str, *, size: int = 9, komi: float = 7.0, rules: str = "chinese", handicap: int = 0,
            human: str = "B", level: str = FULL, seed: int | None = None, player_name: str = "guest",
            teach: bool = False) -> "PlayGame":
        """A fresh game with handicap stones placed (fixed points); raises
        ``HandicapError`` for a handicap the board size does not take. ``seed``: a
        random one when not given."""
        game = Game.with_handicap(size, Ruleset(rules, komi), handicap if handicap >= 2 else 0)
        stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
        seed = random.SystemRandom().randint(0, MAX_SEED) if seed is None else seed
        return cls(board_id, f"{board_id}-{stamp}-{uuid.uuid4().hex[:4]}", game, human, level, seed,
                   player_name.strip() or "guest", teach=teach)

    # ---- reading: all from the game -------------------------------------------------------
    @property
    def size(self) -> int:
        return self.game.size

    @property
    def komi(self) -> float:
        return self.game.komi

    @property
    def rules(self) -> str:
        return self.game.ruleset.name

    @property
    def handicap(self) -> int:
        return self.game.handicap

    @property
    def setup(self) -> list[tuple[str, str]]:
        """The setup stones in wire terms (``("B", "C3")``...)."""
        return self.game.gtp_setup()

    @property
    def first(self) -> str:
        """Who moves first: ``"B"``, or ``"W"`` after a handicap."""
        return color_to_str(self.game.first_to_play)

    @property
    def moves(self) -> list[tuple[str, str]]:
        """The moves in wire terms (``("B", "E5")``, ``("W", "pass")``), a new list."""
        return self.game.gtp_moves()

    @property
    def position(self) -> Position:
        """The position now (the game's: read it, never change it)."""
        return self.game.position

    @property
    def result(self) -> str | None:
        return self.game.result

    @property
    def engine_name(self) -> str:
        """The engine player's name in ``game_started``: it carries the level."""
        return engine_player_name(self.level)

    @property
    def to_play(self) -> str:
        return color_to_str(self.game.to_play)

    @property
    def over(self) -> bool:
        return self.game.ended

    @property
    def counting(self) -> bool:
        """Two passes ended play; the count is not accepted yet (``end_by_score``)."""
        return not self.over and self.game.both_passed()

    @property
    def engine_to_play(self) -> bool:
        return self.game.is_engine_turn() and not self.counting

    @property
    def human_to_play(self) -> bool:
        """The human's turn: play goes on (not over, not counting) and the engine is not to move."""
        return not (self.over or self.counting or self.game.is_engine_turn())

    # ---- events ------------------------------------------------------------------------------
    def _wire(self, event: Played | Undone | Ended) -> GameEvent:
        """The wire event of one of the game's own events, with the next ``seq``."""
        self.seq += 1
        return from_game(event, self.size, board_id=self.board_id, game_id=self.game_id, seq=self.seq)

    def start(self) -> list[GameEvent]:
        """The ``game_started`` event (seq 0); the engine player's name carries its level."""
        engine, human = Player(self.engine_name, "engine"), Player(self.player_name, "human")
        players = {"B": human, "W": engine} if self.human == "B" else {"B": engine, "W": human}
        self.seq = 0
        return [GameStarted(board_id=self.board_id, game_id=self.game_id, seq=0, size=self.size, komi=self.komi,
                            rules=self.rules, handicap=self.handicap, setup=tuple(self.setup), to_play=self.first,
                            mode="vs_engine", players=players)]

    def play(self, vertex: str) -> list[GameEvent]:
        """The side to move plays ``vertex`` (or ``pass``). Raises ``IllegalMove`` with
        the reason in plain words (``CoordinateError`` for a vertex off the board), or
        ``ValueError`` when the game is over or being counted (undo the passes to play on)."""
        self._check_open()
        if self.counting:
            raise ValueError("the game is being counted")
        point = from_gtp(vertex, self.size)
        try:
            self.game.play(point)
        except GameError:
            why = self.position.illegal_reason(point, self.game.to_play)
            raise IllegalMove(f"{vertex} is not possible: {ILLEGAL_WORDS.get(why or '', why)}") from None
        return [self._wire(self.game.played[-1])]

    def undo(self) -> list[GameEvent]:
        """Take back the human's last move (and the engine's answer to it, if it came),
        so the human is to play again. Nothing of the human's to undo: no events."""
        self._check_open()
        played = self.game.played
        count = 1 if played and played[-1].color != self.game.engine_color else 2
        if len(played) < count:
            return []  # nothing of the human's to take back
        return [self._wire(Undone(self.game.undo())) for _ in range(count)]

    def take_back(self, points_lost: float | None = None, better: str | None = None) -> list[GameEvent]:
        """Take back the human's last move after the teacher called it a mistake: undone
        (one ``undo`` event) and kept in the game's variations with ``points_lost`` and
        the ``better`` vertex (``Game.take_back``). ``ValueError`` when the last move is
        not the human's or the game is over."""
        self._check_open()
        played = self.game.played
        if not played or played[-1].color == self.game.engine_color:
            raise ValueError("the last move is not yours to take back")
        self.game.take_back(points_lost, from_gtp(better, self.size) if better else None)
        return [self._wire(Undone(played[-1]))]

    def teaching(self, number: int, color: str, vertex: str, verdict: str, *, points_lost: float | None,
                 winrate_lost: float, better: str | None, level: str) -> list[GameEvent]:
        """The ``teaching`` event of the learner's decision on move ``number``: ``verdict``
        taken_back (after ``take_back``'s undo) or kept; the recorder keeps it as the
        game's teaching note."""
        self.seq += 1
        return [Teaching(board_id=self.board_id, game_id=self.game_id, seq=self.seq, move_number=number,
                         color=color, vertex=vertex, verdict=verdict, points_lost=points_lost,
                         winrate_lost=winrate_lost, better=better, level=level)]

    def resign(self, color: str) -> list[GameEvent]:
        """``color`` resigns: the other side wins by resignation."""
        return self._end(f"{color_to_str(-color_from_str(color))}+R", "resignation")

    def abandon(self) -> list[GameEvent]:
        """Leave an unfinished game (a new one starts): result ``?``, reason abandoned."""
        return self._end("?", "abandoned")

    def end_by_score(self, dead: Sequence[str] = ()) -> list[GameEvent]:
        """End with an area count (``dead``: GTP vertices of stones counted as dead,
        as the players accepted them; ``views/play_count`` proposes them), named in the
        event's ``dead`` (each once)."""
        self._check_open()
        ended = self.game.count(from_gtp(v, self.size) for v in dead)
        self.reason = ended.reason
        return [self._wire(ended)]

    def _end(self, result: str, reason: str) -> list[GameEvent]:
        self._check_open()
        self.reason = reason
        return [self._wire(self.game.finish(result, reason))]

    def _check_open(self) -> None:
        if self.over:
            raise ValueError("the game is over")

    def state(self) -> BoardState:
        """The retained ``board_state`` of the web board now."""
        pos = self.position
        return BoardState(board_id=self.board_id, status="ended" if self.over else "playing", game_id=self.game_id,
                          seq=self.seq, size=self.size, komi=self.komi, rules=self.rules, mode="vs_engine",
                          handicap=self.handicap, setup=tuple(self.setup), moves=tuple(self.moves),
                          move_number=self.game.move_number, to_play=self.to_play,
                          captures={"B": pos.captures[BLACK], "W": pos.captures[WHITE]}, problem=None,
                          result=self.result)


__all__ = ["ILLEGAL_WORDS", "IllegalMove", "PlayGame"]
