"""The board stand-in: stones, hands and a clock over a ``SensorModel``, giving frames.

``BoardSimulator`` is driven one action at a time (place a stone, lift stones, let a
hand hover, wait, press a button). Each action advances simulated time and returns what
a real board would have sent meanwhile: ``Frame`` objects at ``frame_rate`` (with
timing jitter and the odd frame lost on the link, visible as a sequence gap) and
``ButtonPress`` objects. Nothing sleeps: a game of several minutes renders in well under
a second. Hands come from the player's side (black sits below row 1, white above the
top row), shade a soft disc of the board on the way in, while holding the stone (the
stone lands midway through the hold) and on the way out.

``game_inputs`` plays a whole game on the simulator: every stone by hand, captured
stones taken off late (often seconds after the capturing stone; sometimes by the same
hand at once), idle hands passing over the board, passes as button presses. Games come
from ``random_game`` (``gobuddy.go.playout.random_move``), ``gnugo_game`` (GNU Go over
GTP, optional), or any list of moves. ``calibrate`` runs the calibration procedure on a
simulated board, and ``SimulatedBoard`` yields those inputs, paced
in real time for a service. The same simulator behind the firmware's serial protocol
on a pseudo-terminal is ``edge.simulation.pty_board``. Not here: players that react to the LEDs
(``game_inputs`` plays a fixed game whatever the board reports).
"""

from __future__ import annotations

import random
import subprocess
import time
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Sequence

import numpy as np

from edge.calibration.levels import Calibration, Calibrator
from edge.sensing.classify import BoardInput, ButtonPress, Frame
from edge.simulation.sensor_model import Hand, SensorModel
from gobuddy.go.coords import BLACK, EMPTY, WHITE, color_to_str, from_gtp, to_gtp
from gobuddy.go.playout import random_move
from gobuddy.go.position import Position

Span = tuple[float, float]
GNUGO = "/usr/games/gnugo"


@dataclass(frozen=True)
class Timing:
    """How the simulated players move, in seconds (pairs are uniform ranges)."""

    frame_rate: float = 25.0
    jitter_s: float = 0.003
    drop_rate: float = 0.005
    reach_s: Span = (0.25, 0.5)  # hand moving in to its first point
    hold_s: Span = (0.08, 0.25)  # hand still at a point; the stone lands or lifts midway
    step_s: Span = (0.12, 0.3)  # hand moving from one point to the next
    leave_s: Span = (0.2, 0.45)  # hand moving away
    think_s: Span = (0.3, 1.2)  # no hand between moves
    capture_delay_s: Span = (0.0, 2.5)  # after the capturing trip, before the removal trip
    same_trip_chance: float = 0.3  # the placing hand takes the captures off at once
    hover_chance: float = 0.1  # per move, an idle hand passes over the board
    hover_s: Span = (0.1, 0.8)  # ... and holds still this long
    hand_radius: Span = (1.2, 2.0)
    hand_depth: Span = (0.3, 0.6)


_PLACE, _LIFT, _NOTHING = "place", "lift", "nothing"


class BoardSimulator:
    """A simulated board at time ``t``. ``colors`` is the truth (flat, int)."""

    def __init__(self, model: SensorModel, timing: Timing = Timing(), seed: int = 0, t0: float = 0.0) -> None:
        self.model = model
        self.timing = timing
        self.size = model.size
        self.rng = random.Random(seed)
        self.t = t0
        self.seq = 0
        self._next_frame = t0
        self._transmission = np.ones(model.n)
        self.colors = [EMPTY] * model.n

    def board(self) -> tuple[int, ...]:
        return tuple(self.colors)

    def draw(self, span: Span) -> float:
        """A duration drawn uniformly from ``span`` (the simulator's own random stream)."""
        return self.rng.uniform(*span)

    # ------------------------------------------------------------------ actions
    def setup(self, stones: dict[int, int]) -> None:
        """Put stones on the board with no hand and no time passing (a board as found)."""
        for p, color in stones.items():
            self._act(_PLACE, p, color)

    def idle(self, seconds: float) -> list[Frame]:
        """Nothing moves for ``seconds``."""
        return self._advance(seconds, None, [])

    def press(self, button: str) -> ButtonPress:
        return ButtonPress(self.t, button)

    def place(self, point: int, color: int) -> list[Frame]:
        """A hand from ``color``'s side puts a stone of ``color`` on ``point``."""
        return self.trip(color, [(point, _PLACE, color)])

    def lay(self, points: Sequence[int], color: int) -> list[Frame]:
        """A hand from ``color``'s side puts stones of ``color`` on ``points``, one after
        another (reference stones for calibration)."""
        return self.trip(color, [(p, _PLACE, color) for p in points])

    def lift(self, points: Sequence[int], side: int) -> list[Frame]:
        """A hand from ``side`` takes the stones on ``points`` off, one after another."""
        return self.trip(side, [(p, _LIFT, EMPTY) for p in points])

    def hover(self, point: int | None = None, seconds: float | None = None, side: int | None = None) -> list[Frame]:
        """A hand comes over ``point`` (random when ``None``), holds still, goes away."""
        point = self.rng.randrange(self.model.n) if point is None else point
        hold = self.draw(self.timing.hover_s) if seconds is None else seconds
        side = self.rng.choice((BLACK, WHITE)) if side is None else side
        return self.trip(side, [(point, _NOTHING, EMPTY)], hold=hold)

    def play(self, point: int, color: int, captured: Sequence[int]) -> list[Frame]:
        """A move as players make it: the stone, then the captured stones taken off,
        at once by the same hand or in a later trip."""
        tm = self.timing
        if captured and self.rng.random() < tm.same_trip_chance:
            return self.trip(color, [(point, _PLACE, color)] + [(p, _LIFT, EMPTY) for p in captured])
        frames = self.place(point, color)
        if captured:
            frames += self.idle(self.draw(tm.capture_delay_s))
            frames += self.lift(captured, color)
        return frames

    def trip(self, side: int, stops: list[tuple[int, str, int]], hold: float | None = None) -> list[Frame]:
        """One hand trip from ``side`` over ``stops`` (point, action, colour) in turn."""
        tm, size = self.timing, self.size
        toward = 1.0 if side == BLACK else -1.0  # the palm sits behind the fingers
        edge_y = size - 1 + 2.5 if side == BLACK else -2.5
        radius, depth = self.draw(tm.hand_radius), self.draw(tm.hand_depth)
        first_col = stops[0][0] % size
        start = (first_col + self.rng.uniform(-1.5, 1.5), edge_y)
        waypoints: list[tuple[float, float, tuple[float, float], tuple[float, float]]] = []
        actions: list[tuple[float, str, int, int]] = []
        t, here = self.t, start
        for i, (point, action, color) in enumerate(stops):
            r, c = divmod(point, size)
            palm = (c + self.rng.uniform(-0.3, 0.3), r + toward * 0.8 + self.rng.uniform(-0.2, 0.2))
            move = self.draw(tm.reach_s if i == 0 else tm.step_s)
            waypoints.append((t, t + move, here, palm))
            t += move
            still = self.draw(tm.hold_s) if hold is None else hold
            waypoints.append((t, t + still, palm, palm))
            actions.append((t + still / 2, action, point, color))
            t += still
            here = palm
        leave = self.draw(tm.leave_s)
        end = (here[0] + self.rng.uniform(-1.5, 1.5), edge_y)
        waypoints.append((t, t + leave, here, end))
        last = len(waypoints) - 1

        def hand_at(ft: float) -> Hand | None:
            for k, (a, b, p0, p1) in enumerate(waypoints):
                if a <= ft < b:
                    s = (ft - a) / (b - a)
                    s = s * s * (3 - 2 * s)
                    x, y = p0[0] + (p1[0] - p0[0]) * s, p0[1] + (p1[1] - p0[1]) * s
                    low = 0.4 + 0.6 * s if k == 0 else 1.0 - 0.6 * s if k == last else 1.0
                    return Hand(x, y, radius, depth * low)
            return None

        return self._advance(t + leave - self.t, hand_at, actions)

    # ------------------------------------------------------------------ rendering
    def _act(self, action: str, point: int, color: int) -> None:
        if action == _PLACE:
            if self.colors[point] != EMPTY:
                raise ValueError(f"{to_gtp(point, self.size)} already holds a stone")
            self._transmission[point] = self.model.stone(color)
            self.colors[point] = color
        elif action == _LIFT:
            self._transmission[point] = 1.0
            self.colors[point] = EMPTY

    def _advance(self, seconds: float, hand_at: Callable[[float], Hand | None] | None,
                 actions: list[tuple[float, str, int, int]]) -> list[Frame]:
        tm = self.timing
        end = self.t + seconds
        todo = sorted(actions)
        frames: list[Frame] = []
        i = 0
        while self._next_frame < end:
            ft = self._next_frame
            while i < len(todo) and todo[i][0] <= ft:
                self._act(*todo[i][1:])
                i += 1
            readings = self.model.read(ft, self._transmission, hand_at(ft) if hand_at else None)
            self.seq += 1
            if self.rng.random() >= tm.drop_rate:
                frames.append(Frame(ft + self.rng.uniform(-tm.jitter_s, tm.jitter_s), readings, self.seq))
            self._next_frame += 1.0 / tm.frame_rate
        for _, action, point, color in todo[i:]:
            self._act(action, point, color)
        self.t = end
        return frames


# ---------------------------------------------------------------------- games
def random_game(size: int = 9, seed: int = 0, min_moves: int = 60, max_moves: int = 90) -> list[int]:
    """A legal game by ``random_move`` with at least ``min_moves`` stones played, cut at
    ``max_moves`` moves, ending with two passes. Flat points, pass = ``size * size``."""
    rng = random.Random(seed)
    while True:
        pos = Position(size)
        moves: list[int] = []
        while len(moves) < max_moves and not (len(moves) >= 2 and moves[-1] == moves[-2] == pos.pass_point):
            move = random_move(pos, rng)
            pos.play(move, check=False)
            moves.append(move)
        if sum(m != pos.pass_point for m in moves) >= min_moves:
            break
    while not (len(moves) >= 2 and moves[-1] == moves[-2] == pos.pass_point):
        moves.append(pos.pass_point)
    return moves


class GnuGo:
    """A GNU Go GTP process (Chinese rules) choosing moves for both sides; ``OSError`` if
    it cannot start, stops answering or refuses a command."""

    def __init__(self, size: int, seed: int, level: int = 1, program: str = GNUGO) -> None:
        self._proc = subprocess.Popen([program, "--mode", "gtp", "--level", str(level), "--seed", str(seed),
                                       "--chinese-rules", "--boardsize", str(size)],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.size = size

    def gtp(self, command: str) -> str:
        """Send ``command``; the answer, without its ``=``."""
        assert self._proc.stdin and self._proc.stdout
        self._proc.stdin.write(command + "\n")
        self._proc.stdin.flush()
        lines = []
        while True:
            line = self._proc.stdout.readline()
            if not line:
                raise OSError(f"GNU Go stopped answering after {command!r}")
            if not line.strip():
                if lines:
                    break
                continue
            lines.append(line.strip())
        if not lines[0].startswith("="):
            raise OSError(f"GNU Go refused {command!r}: {lines[0]}")
        return lines[0][1:].strip()

    def close(self) -> None:
        self._proc.kill()
        self._proc.wait()


def gnugo_game(size: int = 9, seed: int = 0, max_moves: int = 120, level: int = 1,
               program: str = GNUGO) -> list[int]:
    """A game GNU Go plays against itself over GTP, until two passes, a resignation or
    ``max_moves``; ends with two passes. Raises ``OSError`` if GNU Go cannot start."""
    gnugo = GnuGo(size, seed, level, program)
    try:
        gnugo.gtp("clear_board")
        moves: list[int] = []
        color = BLACK
        while len(moves) < max_moves:
            answer = gnugo.gtp(f"genmove {color_to_str(color)}").lower()
            if answer == "resign":
                break
            moves.append(from_gtp(answer, size))
            if len(moves) >= 2 and moves[-1] == moves[-2] == size * size:
                break
            color = -color
        gnugo.gtp("quit")
    finally:
        gnugo.close()
    while not (len(moves) >= 2 and moves[-1] == moves[-2] == size * size):
        moves.append(size * size)
    return moves


def game_inputs(sim: BoardSimulator, moves: Iterable[int], start: Position | None = None,
                hovers: bool = True) -> Iterator[BoardInput]:
    """Everything the board sends while ``moves`` are played on ``sim`` from ``start``
    (default: empty board, black first; the simulator must already show its stones).
    Illegal moves raise ``IllegalMove`` (the true game must be legal)."""
    pos = start.copy() if start is not None else Position(sim.size)
    tm = sim.timing
    yield from sim.idle(sim.rng.uniform(0.6, 1.0))
    for move in moves:
        color = pos.to_play
        captured = pos.play(move)
        if move == pos.pass_point:
            yield sim.press("pass")
        else:
            yield from sim.play(move, color, captured)
        if hovers and sim.rng.random() < tm.hover_chance:
            yield from sim.hover()
        yield from sim.idle(sim.draw(tm.think_s))
    yield from sim.idle(1.0)


def calibrate(model: SensorModel, t: float = 0.0, references: int = 5, frames: int = 8,
              colour: bool = True) -> Calibration:
    """Run the calibration procedure on a simulated board at time ``t``: ``frames``
    frames of the empty board, then ``references`` black and white stones (when
    ``colour``) on spread-out points, as a person would do it."""
    cal = Calibrator(model.size)
    empty = np.ones(model.n)
    for k in range(frames):
        cal.add_empty(model.read(t + k * 0.04, empty).tolist())
    if colour:
        rng = random.Random(t)
        for color in (BLACK, WHITE):
            points = rng.sample(range(model.n), references)
            trans = empty.copy()
            for p in points:
                trans[p] = model.stone(color)
            cal.add_stones(model.read(t, trans).tolist(), color, points)
    return cal.finish()


class RealTimePacer:
    """Waits until each input's time has come, relative to the first one (``now`` and
    ``sleep`` injected: ``time.monotonic`` and ``time.sleep`` by default)."""

    def __init__(self, now: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> None:
        self.now, self.sleep = now, sleep
        self._origin: tuple[float, float] | None = None

    def __call__(self, t: float) -> None:
        if self._origin is None:
            self._origin = (t, self.now())
        due = self._origin[1] + (t - self._origin[0])
        delay = due - self.now()
        if delay > 0:
            self.sleep(delay)


class SimulatedBoard:
    """The simulated inputs in time order, paced by ``pace`` (e.g. ``RealTimePacer``)
    or as fast as they are read when ``pace`` is ``None``."""

    def __init__(self, inputs: Iterable[BoardInput], pace: Callable[[float], None] | None = None) -> None:
        self._inputs = inputs
        self._pace = pace

    def inputs(self) -> Iterator[BoardInput]:
        for item in self._inputs:
            if self._pace is not None:
                self._pace(item.t)
            yield item
