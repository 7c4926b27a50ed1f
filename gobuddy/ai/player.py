"""The search player: ``genmove`` through the ``Player`` protocol of
``engine_worker.gtp_engine`` (and ``cleanup_genmove`` for ``kgs-genmove_cleanup``); its GTP
commands, ``lz-analyze`` included, are registered by ``engine_worker.gtp_manners``.

Move choice after the search (tree reused from move to move):

- The move: with ``PlayerConfig.lcb`` set, the allowed child whose value has the best
  lower confidence bound (``gobuddy.ai.lcb``; the GTP front end's default); with
  ``lcb=None`` the most visited (the calibrated search levels of ``gobuddy.ai.levels``
  build their player so). A temperature above 0 draws by visits either way.
- The budget: every search uses the move's whole budget (``visits``/``seconds``)
  unless the rest of it can no longer change the move (``Search.run``'s
  ``early_stop``, with the choice's own rule; the moves the rules below forbid
  cannot settle it); temperature moves use it all.
- Resign when the root value stays below ``resign_threshold`` for ``resign_after``
  consecutive genmoves of that colour, once a quarter of the board's points have been
  played (``resign_threshold=None``: never).
- Own eye-like points (``Position.is_eye_like``) are never played: the best other move
  (by the choice above) is, pass included.
- Pass rules, Tromp-Taylor count with the game's komi: after the opponent's pass, pass
  at once if that wins (the game is over and won); the search's pass is only accepted
  if passing does not lose (after an opponent's pass: the final count; otherwise: the
  count as it stands), else the best other move is played, if there is one.
  Caveat: Tromp-Taylor counts every stone as alive, so against an opponent who scores
  with dead stones removed, a Tromp-Taylor win after a pass can still be a loss.
- ``cleanup_genmove`` never passes while a legal move remains that neither fills an
  own eye-like point nor puts an own chain of two or more stones in atari without
  capturing (so dead stones get captured, sekis are left alone), and never resigns.

Time controls: ``genmove``'s ``max_seconds`` (the GTP clock's allowance,
``engine_worker.gtp_clock``) caps a move's seconds below the configured budget; a
search always makes at least its first visit, whatever the cap."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from gobuddy.ai import lcb as lcb_choice
from gobuddy.ai.features import History, game_history
from gobuddy.ai.lcb import LcbConfig
from gobuddy.ai.mcts import SearchConfig, SearchStats, SettledRule
from gobuddy.ai.search_engines import make_search
from gobuddy.go.coords import BLACK, WHITE
from gobuddy.go.game import RESIGN
from gobuddy.go.position import Position
from gobuddy.go.scoring import tromp_taylor_margin


@dataclass(frozen=True)
class PlayerConfig:
    """Budget and manners of the search player. ``visits``/``seconds``: per move (either
    may be ``None``, not both). ``temperature`` applies to the first
    ``temperature_moves`` moves of a game (self-play); 0 = the move of ``lcb``: the best
    lower confidence bound (``gobuddy.ai.lcb``), or with ``None`` the most visited.
    ``analyze_max_visits`` caps the tree of an ``lz-analyze`` (memory: a node holds a
    ``Position``, a few kilobytes)."""

    visits: int | None = 800
    seconds: float | None = None
    resign_threshold: float | None = -0.9
    resign_after: int = 3
    temperature: float = 0.0
    temperature_moves: int = 0
    analyze_max_visits: int = 20_000
    lcb: LcbConfig | None = None
    early_stop: bool = True  # False: every search spends the whole budget (an A/B baseline)


def game_position(game: Any) -> tuple[Position, History]:
    """A copy of the current position of a ``gobuddy.go.game.Game`` and its history (the
    game is not changed)."""
    return game.position.copy(), game_history(game)


def _with_to_play(pos: Position, color: int) -> Position:
    if pos.to_play == color:
        return pos
    pos = pos.copy()
    pos.to_play = color
    pos.ko = None
    return pos


def cleanup_candidates(pos: Position) -> set[int]:
    """Legal points for the side to move that fill no own eye-like point and put no own
    chain of 2+ stones in atari without capturing."""
    out = set()
    me = pos.to_play
    for p in pos.legal_moves():
        if pos.is_eye_like(p, me):
            continue
        trial = pos.copy()
        captured = trial.play(p, check=False)
        stones, libs = trial.chain_at(p)
        if not captured and len(libs) == 1 and len(stones) >= 2:
            continue
        out.add(p)
    return out


class SearchPlayer:
    """MCTS over an ``Evaluator``; one per GTP engine (holds the tree between moves).
    ``engine`` runs the search (``gobuddy.ai.search_engines``: ``"python"``, the
    default, ``"native"`` or ``"auto"``); ``search_note`` says why ``auto`` fell back."""

    def __init__(self, evaluator: Any, config: PlayerConfig = PlayerConfig(),
                 search_config: SearchConfig = SearchConfig(), engine: str = "python") -> None:
        if config.visits is None and config.seconds is None:
            raise ValueError("PlayerConfig needs visits or seconds")
        self.evaluator = evaluator
        self.config = config
        self.engine = engine
        self.search, self.search_note = make_search(evaluator, search_config, engine)
        self._low: dict[int, int] = {BLACK: 0, WHITE: 0}
        self.last_stats: SearchStats | None = None  # the last genmove's search
        self.name = f"gobuddy-mcts({evaluator.name})"

    # ------------------------------------------------------------------ genmove
    def genmove(self, game: Any, color: int, max_seconds: float | None = None) -> int:
        """``Player`` protocol: a flat point, pass, or ``RESIGN``; ``max_seconds`` caps
        the search's time (a game clock's allowance) below the configured budget."""
        return self._choose(game, color, cleanup=False, max_seconds=max_seconds)

    def cleanup_genmove(self, game: Any, color: int, max_seconds: float | None = None) -> int:
        """As ``genmove``, but plays on until dead stones are captured (see module doc)."""
        return self._choose(game, color, cleanup=True, max_seconds=max_seconds)

    def prepare(self, game: Any, color: int | None) -> Position:
        """Set the search on ``game``'s position with ``color`` to move (default: the
        game's side to move); ``ValueError`` for a size the model does not play."""
        if game.size not in self.evaluator.board_sizes:
            raise ValueError(f"the model plays {self.evaluator.board_sizes}, not {game.size}x{game.size}")
        if self.search.config.komi != game.komi:
            self.search, self.search_note = make_search(self.evaluator, replace(self.search.config, komi=game.komi),
                                                        self.engine)
        pos, history = game_position(game)
        pos = _with_to_play(pos, pos.to_play if color is None else color)
        self.search.set_position(pos, history)
        return pos

    def _choose(self, game: Any, color: int, cleanup: bool, max_seconds: float | None = None) -> int:
        cfg = self.config
        self.last_stats = None
        pos = self.prepare(game, color)
        komi = game.komi
        pass_point = pos.pass_point
        my_margin = tromp_taylor_margin(pos, komi) * color
        opponent_passed = pos.last_move == pass_point and pos.passes >= 1
        if opponent_passed and my_margin > 0 and not cleanup:
            return pass_point
        allowed = cleanup_candidates(pos) if cleanup else set()
        if cleanup and not allowed:
            return pass_point
        temperature = cfg.temperature if pos.move_count < cfg.temperature_moves else 0.0
        if cleanup:
            exclude = set(range(pos.n + 1)) - allowed
        else:
            exclude = {p for p in range(pos.n) if pos.is_eye_like(p, color)}  # pass is never excluded
        # a losing pass is never played while another move is left: it cannot settle the search
        contenders = exclude | ({pass_point} if my_margin < 0 and not cleanup else set())
        early_stop: bool | SettledRule = cfg.early_stop and cfg.temperature_moves <= pos.move_count
        if early_stop and cfg.lcb is not None:
            early_stop = partial(lcb_choice.settled, exclude=contenders, config=cfg.lcb)
        seconds = cfg.seconds if max_seconds is None else min(max_seconds, cfg.seconds or max_seconds)
        self.last_stats = self.search.run(visits=cfg.visits, seconds=seconds, early_stop=early_stop)
        root = self.search.root
        if not cleanup and self._should_resign(pos, root.q, color):
            return RESIGN
        move = self._best(temperature, exclude)
        if not cleanup and move == pass_point and my_margin < 0:
            others = {int(m) for m in root.moves} - exclude - {pass_point}
            if others:
                move = self._best(0.0, {int(m) for m in root.moves} - others)
        return move

    def _best(self, temperature: float, exclude: set[int]) -> int:
        """The searched root's move, ``exclude``'s points skipped unless nothing else is
        left: drawn by visits at a temperature, else by the configured choice."""
        if temperature > 0 or self.config.lcb is None:
            return self.search.choose(temperature, exclude=exclude)
        return lcb_choice.choose(self.search.root, exclude, self.config.lcb)

    def _should_resign(self, pos: Position, value: float, color: int) -> bool:
        cfg = self.config
        if cfg.resign_threshold is None or pos.move_count <= pos.n // 4:
            self._low[color] = 0
            return False
        self._low[color] = self._low[color] + 1 if value < cfg.resign_threshold else 0
        return self._low[color] >= cfg.resign_after
