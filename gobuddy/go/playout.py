"""The simple legal-move player, random playouts, and a playout-based life estimate.

``random_move`` picks uniformly among the legal points that are not the mover's own
eye-like points (``Position.is_eye_like``) and passes when none is left: the classic
light playout policy. It knows nothing else about Go: it puts its own chains in atari,
breaks its own seki, and never resigns.

``estimate_status`` judges chains by random playouts to the end (Tromp-Taylor
ownership averaged over the playouts); see its docstring for what it misses.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from gobuddy.go.coords import EMPTY
from gobuddy.go.position import Position, neighbours
from gobuddy.go.scoring import board_owners, empty_regions


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
             avoid_self_atari: bool = False) -> Position:
    """Play ``random_move`` for both sides in place until two passes in a row or
    ``max_moves`` moves (default ``3 * size * size``, which also ends ko cycles under
    simple ko). Returns ``pos``."""
    limit = 3 * pos.n if max_moves is None else max_moves
    passes = 0
    for _ in range(limit):
        move = random_move(pos, rng, avoid_self_atari=avoid_self_atari)
        pos.play(move, check=False)
        passes = passes + 1 if move == pos.pass_point else 0
        if passes >= 2:
            break
    return pos


@dataclass
class RandomPlayer:
    """The GTP player that plays ``random_move``; ``seed`` makes it repeatable."""

    seed: int | None = None
    name: str = "random"
    rng: random.Random = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def genmove(self, game, color: int) -> int:
        """A move for ``color`` in ``game.position`` (flat point or pass; never resigns).

        ``game`` is anything with a ``position`` attribute: the GTP engine's ``Game``."""
        return random_move(game.position, self.rng, color)


def playout_ownership(pos: Position, playouts: int, seed: int = 0) -> tuple[list[float], list[float]]:
    """Over ``playouts`` playouts from copies of ``pos`` (unchanged) that avoid
    self-atari: per flat point, the mean Tromp-Taylor owner at the end (+1 black, -1
    white) and the fraction of playouts in which it ended neutral."""
    rng = random.Random(seed)
    total = [0] * pos.n
    neutral = [0] * pos.n
    for _ in range(playouts):
        end = play_out(pos.copy(), rng, avoid_self_atari=True)
        for p, v in enumerate(board_owners(end.board, end.size)):
            total[p] += v
            if v == EMPTY:
                neutral[p] += 1
    return [t / playouts for t in total], [k / playouts for k in neutral]


@dataclass(frozen=True)
class Status:
    """Chains (each a sorted list of flat points) sorted by their first point."""

    alive: list[list[int]]
    dead: list[list[int]]
    seki: list[list[int]]

    def dead_points(self) -> list[int]:
        return sorted(p for chain in self.dead for p in chain)


DEAD_BELOW = -0.5  # mean ownership, from the chain's side, under which a chain is dead
SEKI_NEUTRAL = 0.5  # a shared liberty is a seki liberty if it ends neutral this often


def estimate_status(pos: Position, playouts: int = 64, seed: int | None = None) -> Status:
    """Classify every chain as alive, dead or seki, for ``final_status_list``/``final_score``.

    The playouts are random but never fill their own eye-like points nor put a chain
    of two or more stones in atari (so a seki survives them). A chain is *dead* when,
    averaged over ``playouts`` playouts (seeded by ``seed``, default the position's
    hash, so the answer is repeatable), its points end up the opponent's: mean
    ownership from its side below ``DEAD_BELOW`` (the opponent's in about 3 playouts of
    4). With the dead chains lifted, a living chain is *seki* when it touches an empty
    point that borders both colours and ended neutral in most playouts
    (``SEKI_NEUTRAL``): a liberty neither side can fill. Ordinary dame get filled in
    the playouts, so they do not make a seki.

    Meant for finished games. What it does not detect: life that depends on a ko or on
    a sequence random play will not find (bent four in the corner, under-the-stones, a
    capturing race won only by correct order); a seki that needs a self-atari of a
    single stone to break, or whose liberties random play fills anyway, may come out
    alive or dead; results can change with ``playouts``. Unfinished positions give
    rough answers (a weak group in an open area is a coin toss)."""
    seed = pos.hash & 0xFFFFFFFF if seed is None else seed
    own, neutral = playout_ownership(pos, playouts, seed)
    chains = _chains(pos)
    dead, living = [], []
    for colour, points in chains:
        mean = sum(own[p] for p in points) * colour / len(points)
        (dead if mean < DEAD_BELOW else living).append((colour, points, mean))
    board = pos.board[:]
    for _, points, _ in dead:
        for p in points:
            board[p] = EMPTY
    shared = bytearray(pos.n)
    for region, border in empty_regions(board, pos.size):
        if border == 3:
            for p in region:
                shared[p] = neutral[p] > SEKI_NEUTRAL
    nbrs = neighbours(pos.size)
    alive, seki = [], []
    for _, points, _ in living:
        touches = any(shared[q] for p in points for q in nbrs[p])
        (seki if touches else alive).append(points)
    return Status(alive=alive, dead=[points for _, points, _ in dead], seki=seki)


def _chains(pos: Position) -> list[tuple[int, list[int]]]:
    """Every chain as (colour, sorted points), in order of its first point."""
    seen = bytearray(pos.n)
    out = []
    for p, v in enumerate(pos.board):
        if v != EMPTY and not seen[p]:
            stones, _ = pos.chain_at(p)
            for s in stones:
                seen[s] = 1
            out.append((v, sorted(stones)))
    return out
