"""The teacher on the board: which learner's moves are judged, and what the learner decided.

| step | what happens |
|------|--------------|
| level | ``Teacher.level``: the board's default (``python -m edge --teach LEVEL``) or the dashboard's ``set_teaching``; ``None``: no teacher |
| whose moves | the learners': both sides with two players, the person against the engine; stones only (a pass has no stone to lift: it is never stopped) |
| the question | ``Advisor.judge`` (``edge.advice``): an ``analysis`` of the position before the move with ``judge`` {move, level}; the worker judges (``gobuddy.ai.teaching``) |
| waiting | against the engine, its reply is not asked while the judgement of the learner's last move is out (``Teacher.holds``) or a mistake waits for the learner (``Reconciler.mistake``) |
| a good move | nothing shows: play goes on |
| a mistake | ``Mistake.of`` the judgement, for the board's last move only: ``Reconciler.show_mistake`` blinks the stone and the better point (``LED BLINK <stone> <better>``, firmware/PROTOCOL.md) |
| taken back | the learner lifts the stone (or presses UNDO): the move is undone and kept as a variation with its point loss (``Game.take_back``); ``Decided`` taken_back |
| kept | TURN DONE pressed, or play went on (the next stone, a pass, the end): ``Decided`` kept |
| no judgement | an error, or no answer within the request's time: the move stands (``Teacher.failed``) |

Both decisions go on the wire as a ``teaching`` game event (``edge.journal.game_journal``)
for the recorder to store as the game's teaching notes. Not done here: the request
itself (``edge.advice``), the LEDs and the lifted stone (``edge.reading.reconcile``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from gobuddy.bus.messages import MoveJudgement
from gobuddy.bus.validation import schema
from gobuddy.go.coords import color_from_str, from_gtp
from gobuddy.go.game import Game

VERDICTS = ("taken_back", "kept")
# The learners' levels, weakest first, as the wire names them (the edge imports no engine
# code: these are the schema's, the same as ``gobuddy.ai.levels.level_names``).
LEVELS: tuple[str, ...] = tuple(schema("game_event")["$defs"]["teaching"]["properties"]["level"]["enum"])


@dataclass(frozen=True)
class Mistake:
    """The teacher's call on move ``number`` (``color`` at flat ``point``): ``better`` the
    engine's point before it (``None``: a pass or not known), the ``points_lost``
    (``None``: not known) and ``winrate_lost`` at ``level``."""

    number: int
    color: int
    point: int
    better: int | None
    points_lost: float | None
    winrate_lost: float
    level: str

    @classmethod
    def of(cls, judgement: MoveJudgement, game: Game) -> "Mistake | None":
        """The mistake ``judgement`` calls the game's last move, or ``None`` when it is no
        mistake or judges another move (the board moved on)."""
        last = game.played[-1] if game.played else None
        if not judgement.mistake or last is None or game.ended or judgement.move == "pass":
            return None
        if (color_from_str(judgement.color), from_gtp(judgement.move, game.size)) != (last.color, last.point):
            return None
        better = None if judgement.best == "pass" else from_gtp(judgement.best, game.size)
        return cls(last.number, last.color, last.point, better, judgement.points_lost, judgement.winrate_lost,
                   judgement.level)

    def is_last(self, game: Game) -> bool:
        """Still the game's last move (and the game open)."""
        last = game.played[-1] if game.played else None
        return (not game.ended and last is not None
                and (last.number, last.color, last.point) == (self.number, self.color, self.point))


@dataclass(frozen=True)
class Decided:
    """What the learner did with a ``mistake``: ``verdict`` taken_back or kept."""

    mistake: Mistake
    verdict: str


Key = tuple[str, int, int, int]  # (game id, move number, point, variations so far)


def move_key(game_id: str, game: Game) -> Key | None:
    """Which move a judgement is about: the last one (``None`` when there is none); a
    move played again after a take-back is another key."""
    if not game.played:
        return None
    last = game.played[-1]
    return game_id, last.number, last.point, len(game.variations)


class Teacher:
    """Which of a board's moves are judged and which judgements are still out. Not
    thread-safe: the agent calls it under its lock. ``timeout_s``: the longest the
    engine's reply waits for a judgement (the request's own time, and a little more)."""

    def __init__(self, level: str | None, timeout_s: float) -> None:
        self.level = level
        self.timeout_s = timeout_s
        self._asked: dict[Key, float] = {}  # judgements out: since when
        self._ids: dict[str, Key] = {}  # request id -> the move it judges
        self._settled: set[Key] = set()
        self.failures = 0

    def wants(self, game_id: str, game: Game) -> Key | None:
        """The key of the last move if it is a learner's stone not yet judged, else ``None``."""
        key = move_key(game_id, game)
        if self.level is None or key is None or game.ended or key in self._asked or key in self._settled:
            return None
        last = game.played[-1]
        if last.point == game.pass_point or last.color == game.engine_color:
            return None
        return key

    def asked(self, key: Key, request_id: str, now: float | None = None) -> None:
        """The judgement of ``key`` was asked by request ``request_id``."""
        self._asked[key] = time.monotonic() if now is None else now
        self._ids[request_id] = key

    def answered(self, request_id: str) -> Key | None:
        """The judgement asked by ``request_id`` came (a mistake or not); its key (``None``
        for an id not asked here)."""
        key = self._ids.pop(request_id, None)
        if key is not None:
            self._asked.pop(key, None)
            self._settled.add(key)
        return key

    def failed(self, request_id: str) -> None:
        """No judgement by ``request_id``: the move stands."""
        key = self._ids.pop(request_id, None)
        if key is not None and self._asked.pop(key, None) is not None:
            self.failures += 1
            self._settled.add(key)

    def holds(self, game_id: str, game: Game, now: float | None = None) -> bool:
        """True while the judgement of the last move is out and not older than ``timeout_s``."""
        key = move_key(game_id, game)
        since = self._asked.get(key) if key is not None else None
        if since is None:
            return False
        if (time.monotonic() if now is None else now) - since > self.timeout_s:
            del self._asked[key]  # too late: the move stands
            self._settled.add(key)
            self.failures += 1
            return False
        return True

    def new_game(self) -> None:
        """Forget the judgements of the game before."""
        self._asked.clear()
        self._ids.clear()
        self._settled.clear()


__all__ = ["Decided", "Key", "LEVELS", "Mistake", "Teacher", "VERDICTS", "move_key"]
