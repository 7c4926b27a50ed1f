"""A simulated pair of players for ``--auto-play``: the ``PtyBoard`` plays games by itself.

``AutoPlayer`` waits until a host talks to the board, then plays game after game the
way people at the board would: START, then every move as a hand trip that places the
stone (and takes captured stones off, at once or a little later), a hint asked for now
and then (ADVICE), a thinking pause between moves, PASS twice at the end (or after
``max_moves``), a look at the dead stones the count blinks and TURN DONE to accept it,
a look at the result, and a hand clearing the board before the next
START. Against the engine (``engine_color``) it places the engine's stone where the
board's LEDs point (and learns of the engine's passes from ``recorded``, the agent's
move list, when given). Moves come from GNU Go (``gnugo``, level 1, when installed) or the
project's random legal player. Before the first game, and whenever ``calibration`` (the
agent's calibration prompt) asks, it lays the reference stones where the prompt says,
presses TURN DONE, and takes them off again (``edge.calibration.procedure``).

It plays from what it believes the position is; it does not read the agent's events.
If the agent sees something else (a misread), the board shows a problem, and the next
game starts clean. Not done: reacting to problems, undo, resignation.
"""

from __future__ import annotations

import logging
import random
import shutil
import threading
from dataclasses import dataclass
from typing import Callable

from edge.calibration.procedure import BLACK_STONES, CLEAR_BOARD, WHITE_STONES, Prompt
from edge.simulation.pty_board import PtyBoard
from edge.simulation.simulator import GNUGO, GnuGo
from gobuddy.go.coords import BLACK, WHITE, color_to_str, from_gtp, to_gtp
from gobuddy.go.playout import random_move
from gobuddy.go.position import Position


@dataclass(frozen=True)
class AutoPlayConfig:
    """``hint_chance`` per move (ADVICE before it); ``engine_color`` the side the engine
    plays (its stones go where the LEDs point), ``None`` for two simulated players."""

    seed: int = 0
    players: str = "gnugo"  # or "random"
    max_moves: int = 100
    hint_chance: float = 0.15
    hint_look_s: float = 2.5
    engine_color: int | None = None
    engine_wait_s: float = 60.0
    between_games_s: float = 5.0


class AutoPlayer:
    """Plays on ``board`` in a thread until ``stop``."""

    def __init__(self, board: PtyBoard, config: AutoPlayConfig = AutoPlayConfig(),
                 recorded: Callable[[], list[tuple[int, int]]] | None = None,
                 logger: logging.Logger | None = None, calibration: Callable[[], Prompt | None] | None = None) -> None:
        self.board, self.config = board, config
        self._recorded = recorded
        self._calibration = calibration
        self.size = board.size
        self.rng = random.Random(config.seed)
        self.log = logger or logging.getLogger("edge.simulation.autoplay")
        self.games = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="autoplay", daemon=True)
        self._gnugo: GnuGo | None = None

    def start(self) -> "AutoPlayer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5.0)
        if self._gnugo is not None:
            self._gnugo.close()

    def _wait(self, future) -> None:  # type: ignore[no-untyped-def]
        while not self._stop.is_set():
            try:
                future.result(0.2)
                return
            except TimeoutError:
                continue

    def _run(self) -> None:
        while not self.board.host_seen.wait(0.2):
            if self._stop.is_set():
                return
        if self.config.players == "gnugo" and shutil.which(GNUGO):
            self._gnugo = GnuGo(self.size, self.config.seed)
        self._wait(self.board.idle(3.0))  # let the agent calibrate on the empty board
        while not self._stop.is_set():
            try:
                self._calibrate()
                self._game()
            except (OSError, ValueError) as exc:
                self.log.warning("auto-play game stopped: %s", exc)
            self._wait(self.board.idle(self.config.between_games_s))

    def _game(self) -> None:
        cfg, board = self.config, self.board
        pos = Position(self.size)
        if self._gnugo is not None:
            self._gnugo.gtp("clear_board")
        self._wait(board.press("START"))
        self._wait(board.idle(1.0))
        self.games += 1
        passes = 0
        while passes < 2 and not self._stop.is_set():
            color = pos.to_play
            if color == cfg.engine_color:
                move = self._engine_move(pos)
                if move is None:
                    return
            else:
                if self.rng.random() < cfg.hint_chance:
                    self._wait(board.press("ADVICE"))
                    self._wait(board.idle(cfg.hint_look_s))
                move = self._choose(pos, color)
            captured = pos.play(move, color)
            if self._gnugo is not None and color == cfg.engine_color:
                self._gnugo.gtp(f"play {color_to_str(color)} {to_gtp(move, self.size) if move != pos.pass_point else 'pass'}")
            if move == pos.pass_point:
                passes += 1
                if color != cfg.engine_color:
                    self._wait(board.press("PASS"))
            else:
                passes = 0
                self._wait(board.play(move, color, captured))
            self._wait(board.idle(self.rng.uniform(0.3, 1.2)))
        self._wait(board.idle(3.0))
        self._wait(board.press("DONE"))  # accept the count of dead stones (START would too)
        self._wait(board.idle(1.0))
        stones = [p for p, v in enumerate(pos.board) if v != 0]
        self.rng.shuffle(stones)
        for i in range(0, len(stones), 8):
            self._wait(board.lift(stones[i:i + 8], self.rng.choice((BLACK, WHITE))))

    def _calibrate(self) -> None:
        """Do what the calibration prompt asks until there is none: reference stones on its
        points and TURN DONE (stones it names as misread set again; held when the colours
        read alike), and the stones off again at the end."""
        laid: dict[int, int] = {}  # point: colour
        seen: Prompt | None = None
        while self._calibration is not None and not self._stop.is_set():
            prompt = self._calibration()
            if prompt is None:
                return
            if prompt != seen and prompt.waiting:
                if prompt.step in (BLACK_STONES, WHITE_STONES) and prompt.problem and not prompt.points:
                    self._wait(self.board.press("DONE", hold_s=2.5))  # this board cannot tell colours
                elif prompt.step in (BLACK_STONES, WHITE_STONES):
                    again = {p: laid.pop(p) for p in prompt.points if p in laid}
                    if again:
                        self._wait(self.board.lift(list(again), self.rng.choice((BLACK, WHITE))))
                    colour = BLACK if prompt.step == BLACK_STONES else WHITE
                    todo = {**again, **{p: colour for p in prompt.points if p not in again and p not in laid}}
                    for c in (BLACK, WHITE):
                        if any(k == c for k in todo.values()):
                            self._wait(self.board.lay([p for p, k in todo.items() if k == c], c))
                    laid.update(todo)
                    self._wait(self.board.press("DONE"))
                elif prompt.step == CLEAR_BOARD and laid:
                    self._wait(self.board.lift(list(laid), self.rng.choice((BLACK, WHITE))))
                    laid.clear()
            seen = prompt
            self._wait(self.board.idle(0.5))

    def _choose(self, pos: Position, color: int) -> int:
        if pos.move_count >= self.config.max_moves:
            return pos.pass_point
        if self._gnugo is not None:
            answer = self._gnugo.gtp(f"genmove {color_to_str(color)}").lower()
            return pos.pass_point if answer in ("pass", "resign") else from_gtp(answer, self.size)
        return random_move(pos, self.rng, color, avoid_self_atari=True)

    def _engine_move(self, pos: Position) -> int | None:
        """Wait for the LEDs to point at the engine's move (or for the record to show that
        the engine passed); None if neither happens."""
        waited = 0.0
        while waited < self.config.engine_wait_s and not self._stop.is_set():
            leds = self.board.leds()
            if leds.mode == "POINT" and leds.points:
                return from_gtp(leds.points[0], self.size)
            moves = self._recorded() if self._recorded is not None else []
            if len(moves) > pos.move_count and moves[pos.move_count][1] == pos.pass_point:
                return pos.pass_point
            self._wait(self.board.idle(0.5))
            waited += 0.5
        self.log.warning("the engine's move never lit up; ending this game")
        return None
