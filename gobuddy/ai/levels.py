"""Named opponent levels, weakest first, and the GTP player that plays at one.

| level  | how it plays |
|--------|--------------|
| policy levels | the network's raw policy, one evaluation a move, through ``gobuddy.ai.weak_move``: a rank-dependent breadth (how many moves it "sees"), temperature, pull towards the last moves, and a rate of careless moves |
| search levels | the MCTS search with a fixed number of visits a move (``visits``) |
| ``full``  | today's default player (the GTP front end's default budget); built by the caller |

Every level below ``full`` answers a plain atari of its own chain when saving works
(read with the rules engine: ``gobuddy.ai.atari``) and never fills its own eye-like
point; policy levels also keep off the first line early and pass only when the game is
done (``gobuddy.ai.weak_move``). The ranks in the names are targets; the measured
ladder and the ranks it supports are in ``models/LEVELS.md`` (``python -m
training.levels``).

``LevelPlayer`` is deterministic given its seed: a move's random draw is seeded by the
seed, the position's key and the move number, so the same game replayed gives the same
moves, and a stateless worker answers the same request the same way.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from gobuddy.ai.evaluator import Query
from gobuddy.ai.mcts import SearchConfig
from gobuddy.ai.player import PlayerConfig, SearchPlayer, cleanup_candidates, game_position
from gobuddy.ai.weak_move import Style, choose
from gobuddy.ai.atari import answers_atari
from gobuddy.go.coords import BLACK, WHITE
from gobuddy.go.game import RESIGN
from gobuddy.go.position import Position

FULL = "full"


@dataclass(frozen=True)
class Level:
    """One named level: ``style`` (policy level) or ``visits`` (search level); the
    ``full`` level has neither (the caller builds today's default player)."""

    name: str
    style: Style | None = None
    visits: int | None = None

    @property
    def is_full(self) -> bool:
        return self.style is None and self.visits is None


LEVELS: tuple[Level, ...] = (
    # Just learned the rules: any sensible-looking move, mostly next to the last ones.
    Level("30 kyu", Style(breadth=81, temperature=100.0, local=5.0, self_atari=True)),
    # Sees shape a little: the policy flattened hard, still local, still self-ataris.
    Level("25 kyu", Style(breadth=81, temperature=6.0, local=3.0, self_atari=True)),
    Level("20 kyu", Style(breadth=40, temperature=2.5, local=2.5, mistake=0.1)),
    Level("15 kyu", Style(breadth=20, temperature=1.5, local=2.0, mistake=0.05)),
    Level("10 kyu", Style(breadth=8, temperature=0.8, local=1.5, mistake=0.03)),
    # The network's instinct: one of its two favourite moves, no reading.
    Level("7 kyu", Style(breadth=2, temperature=0.3)),
    # A little reading: the search with 16 visits a move.
    Level("5 kyu", visits=16),
    # Reads a little further: 128 visits, still far below the full search's thousand or so.
    Level("2 kyu", visits=128),
    Level(FULL),
)


def level_rng(seed: int, position: Position) -> random.Random:
    """The generator of a level's move in ``position``: seeded by ``seed``, the
    position's key and its move number (a stateless worker draws the same as the GTP
    player)."""
    return random.Random(f"{seed}:{position.key()}:{position.move_count}")


def level_names() -> list[str]:
    """The level names, weakest first."""
    return [level.name for level in LEVELS]


def level_named(name: str) -> Level:
    """The level called ``name`` (case and spaces as listed, or with ``-``/``_`` for the
    space: ``25-kyu``); ``KeyError`` naming the choices otherwise."""
    wanted = " ".join(name.strip().lower().replace("-", " ").replace("_", " ").split())
    for level in LEVELS:
        if level.name.lower() == wanted:
            return level
    raise KeyError(f"no level {name!r}; the levels are: {', '.join(level_names())}")


class LevelPlayer:
    """The GTP ``Player`` of a policy or search level over an ``Evaluator``.

    ``resign_after``: a policy level resigns once the network's value stayed below
    ``resign_value`` for that many of its moves in a row, past half the board's points
    played; ``None`` (the default): never. The network's value assumes strong play
    from both sides, so against a weak opponent it calls games lost that are not: a
    weak level plays on, as beginners do. A search level resigns as the search player
    does (``PlayerConfig``)."""

    def __init__(self, evaluator: Any, level: Level, seed: int | None = None, komi: float = 7.0,
                 resign_value: float = -0.95, resign_after: int | None = None) -> None:
        if level.is_full:
            raise ValueError("the full level is the default search player; build it as the front end does")
        self.evaluator = evaluator
        self.level = level
        self.seed = random.SystemRandom().getrandbits(32) if seed is None else seed
        self.resign_value = resign_value
        self.resign_after = resign_after
        self._low = {BLACK: 0, WHITE: 0}
        self.name = f"gobuddy-{level.name.replace(' ', '-')}({evaluator.name})"
        self.search = None
        if level.visits is not None:
            # with the pipeline, as calibrated (models/LEVELS.md); either engine makes the same trees
            self.search = SearchPlayer(evaluator, PlayerConfig(visits=level.visits, seconds=None),
                                       SearchConfig(komi=komi, seed=self.seed), engine="auto")

    def genmove(self, game: Any, color: int, max_seconds: float | None = None) -> int:
        """``Player`` protocol: a flat point, pass, or ``RESIGN``; ``max_seconds`` caps a
        search level's time (a policy level's one evaluation needs no cap)."""
        pos, history = game_position(game)
        if pos.to_play != color:
            pos.set_to_play(color)
        if self.search is not None:
            saves = answers_atari(pos, color, pos.last_move)
            if saves:
                return saves[0].move
            return self.search.genmove(game, color, max_seconds=max_seconds)
        if game.size not in self.evaluator.board_sizes:
            raise ValueError(f"the model plays {self.evaluator.board_sizes}, not {game.size}x{game.size}")
        evaluation = self.evaluator.evaluate([Query.of(pos, history)])[0]
        if self._should_resign(pos, evaluation.value, color):
            return RESIGN
        recent = [point for _, point in game.moves[-2:]]
        return choose(pos, evaluation.policy, evaluation.value, self.level.style, level_rng(self.seed, pos), recent)

    def cleanup_genmove(self, game: Any, color: int, max_seconds: float | None = None) -> int:
        """``kgs-genmove_cleanup``: the policy's favourite among the moves that fill no
        own eye and put no own chain of two or more stones in atari; pass when none
        (``max_seconds`` as in ``genmove``)."""
        if self.search is not None:
            return self.search.cleanup_genmove(game, color, max_seconds=max_seconds)
        pos, history = game_position(game)
        if pos.to_play != color:
            pos.set_to_play(color)
        allowed = cleanup_candidates(pos)
        if not allowed:
            return pos.pass_point
        policy = self.evaluator.evaluate([Query.of(pos, history)])[0].policy
        return max(sorted(allowed), key=lambda p: policy[p])

    def _should_resign(self, pos: Position, value: float, color: int) -> bool:
        if self.resign_after is None or pos.move_count <= pos.n // 2:
            self._low[color] = 0
            return False
        self._low[color] = self._low[color] + 1 if value < self.resign_value else 0
        return self._low[color] >= self.resign_after


__all__ = ["FULL", "LEVELS", "Level", "LevelPlayer", "level_named", "level_names", "level_rng"]
