"""The simple legal-move player, random playouts, and a playout-based life estimate.

``random_move`` picks uniformly among the legal points that are not the mover's own
eye-like points (``Position.is_eye_like``) and passes when none is left: the classic
light playout policy. It knows nothing else about Go: it puts its own chains in atari,
breaks its own seki, and never resigns.

``tactical_move`` is the playout policy behind ``playout_ownership`` (Tromp-Taylor
ownership averaged over playouts to the end): it answers the last move's ataris before
playing at random. Deciding which stones are dead from it is ``gobuddy.ai.final_status``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from gobuddy.go.coords import EMPTY
from gobuddy.go.position import Position, neighbours
from gobuddy.go.scoring import board_owners


def random_move(pos: Position, rng: random.Random, color: int | None = None,
                avoid_self_atari: bool = False) -> int:
    """A uniformly random legal point for ``color`` (default: side to move) that is
    not its own eye-like point, or pass (``pos.pass_point``) when there is none.

    With ``avoid_self_atari`` it also never leaves a chain of two or more stones with
    a single liberty (unless the move captures), which keeps a seki standing."""
    if color is None:
        color = pos.to_play
    board = pos.board
    empties = [p for p, v in enumerate(board) if v == EMPTY]
    eye_like, reason = pos.is_eye_like, pos.illegal_reason
    randrange = rng.randrange
    while empties:
        i = randrange(len(empties))
        p = empties[i]
        empties[i] = empties[-1]
        empties.pop()
        if not eye_like(p, color) and reason(p, color) is None:
            if avoid_self_atari and self_atari(pos, p, color):
                continue
            return p
    return pos.pass_point


def self_atari(pos: Position, point: int, color: int) -> bool:
    """True if ``color`` at the empty ``point`` makes a chain of two or more stones
    with exactly one liberty and captures nothing. Legality is not checked."""
    board = pos.board
    nbrs = neighbours(pos.size)[point]
    libs: set[int] = set()
    friends: set[int] = set()
    stones = 1
    for q in nbrs:
        v = board[q]
        if v == EMPTY:
            libs.add(q)
        elif v != color and pos.liberties(q) == 1:
            return False  # it captures
    if len(libs) >= 2:
        return False
    for q in nbrs:
        if board[q] == color and q not in friends:
            chain, chain_libs = pos.chain_at(q)
            friends.update(chain)
            stones += len(chain)
            libs |= chain_libs
    libs.discard(point)
    return stones >= 2 and len(libs) <= 1


def play_out(pos: Position, rng: random.Random, max_moves: int | None = None,
             avoid_self_atari: bool = False, tactical: bool = False) -> Position:
    """Play ``random_move`` (``tactical_move`` with ``tactical``, which also avoids
    self-atari) for both sides in place until two passes in a row or ``max_moves``
    moves (default ``3 * size * size``, which also ends ko cycles under simple ko).
    Returns ``pos``."""
    limit = 3 * pos.n if max_moves is None else max_moves
    passes = 0
    for _ in range(limit):
        move = tactical_move(pos, rng) if tactical else random_move(pos, rng, avoid_self_atari=avoid_self_atari)
        pos.play(move, check=False)
        passes = passes + 1 if move == pos.pass_point else 0
        if passes >= 2:
            break
    return pos


def tactical_move(pos: Position, rng: random.Random) -> int:
    """A playout move for the side to move that first answers the opponent's last move:
    capture an opponent chain in atari at or next to it, or save an own chain next to
    it that it put in atari by playing the lone liberty (when that does not leave two
    or more stones in atari); one such answer at random. Otherwise ``random_move``
    avoiding self-atari. No ladders, no reading: a capture may be a poor move."""
    color = pos.to_play
    last = pos.last_move
    board = pos.board
    if last is not None and last != pos.pass_point and board[last] == -color:
        answers = []
        seen: set[int] = set()
        for q in (last, *neighbours(pos.size)[last]):
            if board[q] == EMPTY or q in seen or pos.liberties(q) != 1:
                continue
            stones, libs = pos.chain_at(q)
            seen.update(stones)
            lib = next(iter(libs))
            if pos.illegal_reason(lib, color) is not None:
                continue
            if board[q] == -color or not self_atari(pos, lib, color):
                answers.append(lib)
        if answers:
            return answers[rng.randrange(len(answers))]
    return random_move(pos, rng, color, avoid_self_atari=True)


@dataclass
class RandomPlayer:
    """The GTP player that plays ``random_move``; ``seed`` makes it repeatable."""

    seed: int | None = None
    name: str = "random"
    rng: random.Random = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def genmove(self, game, color: int, max_seconds: float | None = None) -> int:
        """A move for ``color`` in ``game.position`` (flat point or pass; never resigns;
        instant, so ``max_seconds`` is not needed).

        ``game`` is anything with a ``position`` attribute: the GTP engine's ``Game``."""
        return random_move(game.position, self.rng, color)


def playout_ownership(pos: Position, playouts: int, seed: int = 0) -> tuple[list[float], list[float]]:
    """Over ``playouts`` playouts of ``tactical_move`` from copies of ``pos``
    (unchanged): per flat point, the mean Tromp-Taylor owner at the end (+1 black, -1
    white) and the fraction of playouts in which it ended neutral."""
    rng = random.Random(seed)
    total = [0] * pos.n
    neutral = [0] * pos.n
    for _ in range(playouts):
        end = play_out(pos.copy(), rng, tactical=True)
        for p, v in enumerate(board_owners(end.board, end.size)):
            total[p] += v
            if v == EMPTY:
                neutral[p] += 1
    return [t / playouts for t in total], [k / playouts for k in neutral]
