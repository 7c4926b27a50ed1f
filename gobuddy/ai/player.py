"""The search player behind GTP: ``genmove``/``reg_genmove`` through the ``Player``
protocol of ``engine_worker.gtp_engine``, plus ``kgs-genmove_cleanup`` and Leela Zero's
streaming ``lz-analyze``, registered on the engine's shell by ``SearchPlayer.register``.

Move choice after the search (tree reused from move to move):

- Resign when the root value stays below ``resign_threshold`` for ``resign_after``
  consecutive genmoves of that colour, once a quarter of the board's points have been
  played (``resign_threshold=None``: never).
- Own eye-like points (``Position.is_eye_like``) are never played: the most visited
  other move is, pass included.
- Pass rules, Tromp-Taylor count with the game's komi: after the opponent's pass, pass
  at once if that wins (the game is over and won); the search's pass is only accepted
  if passing does not lose (after an opponent's pass: the final count; otherwise: the
  count as it stands), else the most visited other move is played, if there is one.
  Caveat: Tromp-Taylor counts every stone as alive, so against an opponent who scores
  with dead stones removed, a Tromp-Taylor win after a pass can still be a loss.
- ``kgs-genmove_cleanup`` never passes while a legal move remains that neither fills an
  own eye-like point nor puts an own chain of two or more stones in atari without
  capturing (so dead stones get captured, sekis are left alone), and never resigns.

``lz-analyze [colour] [interval]`` (interval in centiseconds, default 100) writes one
line per interval, every visited move on it, best first::

    info move D4 visits 120 winrate 5432 prior 1234 lcb 5300 order 0 pv D4 E5 info move ...

(win rate, prior and lcb in 1/10000; lcb is the win rate minus 1.96 binomial standard
errors, ``sqrt(w(1-w)/visits)``, an approximation: the search keeps no variance), until
the next command arrives. Not handled: time controls (``time_left``); each move gets the
configured visits and seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from gobuddy.ai.features import History, game_history
from gobuddy.ai.mcts import Search, SearchConfig
from gobuddy.go.coords import BLACK, WHITE, CoordinateError, color_from_str, to_gtp
from gobuddy.go.game import RESIGN
from gobuddy.go.position import Position
from gobuddy.go.scoring import tromp_taylor_margin



@dataclass(frozen=True)
class PlayerConfig:
    """Budget and manners of the search player. ``visits``/``seconds``: per move (either
    may be ``None``, not both). ``temperature`` applies to the first
    ``temperature_moves`` moves of a game (self-play); 0 = most visited.
    ``analyze_max_visits`` caps the tree of an ``lz-analyze`` (memory: a node holds a
    ``Position``, a few kilobytes)."""

    visits: int | None = 800
    seconds: float | None = None
    resign_threshold: float | None = -0.9
    resign_after: int = 3
    temperature: float = 0.0
    temperature_moves: int = 0
    analyze_max_visits: int = 20_000


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
    """MCTS over an ``Evaluator``; one per GTP engine (holds the tree between moves)."""

    def __init__(self, evaluator: Any, config: PlayerConfig = PlayerConfig(),
                 search_config: SearchConfig = SearchConfig()) -> None:
        if config.visits is None and config.seconds is None:
            raise ValueError("PlayerConfig needs visits or seconds")
        self.evaluator = evaluator
        self.config = config
        self.search = Search(evaluator, search_config)
        self._low: dict[int, int] = {BLACK: 0, WHITE: 0}
        self.name = f"gobuddy-mcts({evaluator.name})"

    # ------------------------------------------------------------------ genmove
    def genmove(self, game: Any, color: int) -> int:
        """``Player`` protocol: a flat point, pass, or ``RESIGN``."""
        return self._choose(game, color, cleanup=False)

    def cleanup_genmove(self, game: Any, color: int) -> int:
        """As ``genmove``, but plays on until dead stones are captured (see module doc)."""
        return self._choose(game, color, cleanup=True)

    def _prepare(self, game: Any, color: int | None) -> Position:
        if game.size not in self.evaluator.board_sizes:
            raise ValueError(f"the model plays {self.evaluator.board_sizes}, not {game.size}x{game.size}")
        if self.search.config.komi != game.komi:
            self.search = Search(self.evaluator, replace(self.search.config, komi=game.komi))
        pos, history = game_position(game)
        pos = _with_to_play(pos, pos.to_play if color is None else color)
        self.search.set_position(pos, history)
        return pos

    def _choose(self, game: Any, color: int, cleanup: bool) -> int:
        cfg = self.config
        pos = self._prepare(game, color)
        komi = game.komi
        pass_point = pos.pass_point
        my_margin = tromp_taylor_margin(pos, komi) * color
        opponent_passed = pos.last_move == pass_point and pos.passes >= 1
        if opponent_passed and my_margin > 0 and not cleanup:
            return pass_point
        allowed = cleanup_candidates(pos) if cleanup else set()
        if cleanup and not allowed:
            return pass_point
        self.search.run(visits=cfg.visits, seconds=cfg.seconds, early_stop=cfg.temperature_moves <= pos.move_count)
        root = self.search.root
        if not cleanup and self._should_resign(pos, root.q, color):
            return RESIGN
        temperature = cfg.temperature if pos.move_count < cfg.temperature_moves else 0.0
        if cleanup:
            return self.search.choose(temperature, exclude={int(m) for m in root.moves} - allowed)
        eyes = {p for p in range(pos.n) if pos.is_eye_like(p, color)}
        move = self.search.choose(temperature, exclude=eyes)  # pass is never excluded
        if move == pass_point and my_margin < 0:
            others = {int(m) for m in root.moves} - eyes - {pass_point}
            if others:
                move = self.search.choose(0.0, exclude={int(m) for m in root.moves} - others)
        return move

    def _should_resign(self, pos: Position, value: float, color: int) -> bool:
        cfg = self.config
        if cfg.resign_threshold is None or pos.move_count <= pos.n // 4:
            self._low[color] = 0
            return False
        self._low[color] = self._low[color] + 1 if value < cfg.resign_threshold else 0
        return self._low[color] >= cfg.resign_after

    # ------------------------------------------------------------------ lz-analyze
    def info_line(self) -> str:
        """The current root as one ``lz-analyze`` line (empty before any visit)."""
        search = self.search
        root = search.root
        if root is None or not root.expanded:
            return ""
        size = root.position.size
        parts = []
        order = 0
        for i in search.ranked():
            n = int(round(root.N[i]))
            if n < 1:
                break
            w = min(1.0, max(0.0, (search.child_q(root, i) + 1.0) / 2.0))
            lcb = max(0.0, w - 1.96 * math.sqrt(w * (1.0 - w) / n))
            pv = " ".join(to_gtp(m, size) for m in search.pv(root, i))
            parts.append(f"info move {to_gtp(int(root.moves[i]), size)} visits {n} winrate {int(w * 10000)} "
                         f"prior {int(root.prior_raw[i] * 10000)} lcb {int(lcb * 10000)} order {order} pv {pv}")
            order += 1
        return " ".join(parts)

    def lz_analyze(self, game: Any, args: list[str], stream: Any) -> None:
        """Serve ``lz-analyze [colour] [interval]`` on a ``gobuddy.go.gtp.Stream``."""
        from gobuddy.go.gtp import GtpError

        color = None
        interval = 100
        rest = list(args)
        if rest:
            try:
                color = color_from_str(rest[0])
                rest = rest[1:]
            except CoordinateError:
                pass
        if len(rest) > 1:
            raise GtpError("syntax error")
        if rest:
            if not (rest[0].isascii() and rest[0].isdigit()):
                raise GtpError("syntax error")
            interval = max(1, int(rest[0]))
        try:
            self._prepare(game, color)
        except ValueError as exc:
            raise GtpError(str(exc)) from None
        stopper = _StreamStop(stream)
        cap = self.config.analyze_max_visits
        while True:
            if self.search.root.visits < cap:
                self.search.run(visits=cap, seconds=interval / 100.0, stop=stopper)
            elif stream.wait(interval / 100.0):
                stopper.seen = True
            line = self.info_line()
            if line:
                stream.write(line)
            if stopper.is_set():
                return

    # ------------------------------------------------------------------ GTP wiring
    def register(self, engine: Any) -> None:
        """Add ``kgs-genmove_cleanup`` and ``lz-analyze`` to a ``GtpEngine`` and make
        ``boardsize`` refuse sizes the model does not play."""
        register_manners(engine, self, self.evaluator.board_sizes, lambda: self.search.clear())
        engine.shell.register("lz-analyze", lambda args, stream: self.lz_analyze(engine.game, args, stream),
                              streaming=True)


def register_manners(engine: Any, player: Any, board_sizes: tuple[int, ...], on_resize: Any) -> None:
    """Register on a ``GtpEngine`` what every model player offers: ``kgs-genmove_cleanup``
    (``player.cleanup_genmove``, played on the engine's game) and a ``boardsize`` that
    refuses sizes outside ``board_sizes`` and calls ``on_resize()`` after a change."""
    from gobuddy.go.gtp import GtpError

    def cleanup(args: list[str]) -> str:
        try:
            (color,) = (color_from_str(a) for a in args)
        except (ValueError, CoordinateError):
            raise GtpError("syntax error") from None
        move = player.cleanup_genmove(engine.game, color)
        engine.play(color, move)
        return to_gtp(move, engine.game.size)

    def boardsize(args: list[str]) -> None:
        if len(args) == 1 and args[0].isdigit() and int(args[0]) not in board_sizes:
            raise GtpError("unacceptable size")
        engine.cmd_boardsize(args)
        on_resize()

    engine.shell.register("kgs-genmove_cleanup", cleanup)
    engine.shell.register("boardsize", boardsize)


class _StreamStop:
    """A stop signal that turns true once the GTP stream has more input waiting."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.seen = False

    def is_set(self) -> bool:
        if not self.seen and self.stream.interrupted():
            self.seen = True
        return self.seen
