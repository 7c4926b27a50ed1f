"""A move played on a copy of a position, with the chain facts every reader asks for,
and the words that name points and groups.

``Played.of(position, move, color)`` copies the position (the caller's is never
changed), lets ``color`` play ``move`` and keeps both sides: ``before`` (``color`` to
move) and ``after``. Raises ``IllegalMove`` (occupied, suicide, ko, superko) as
``Position.play`` does. A pass is allowed; it changes no chain.

Names: a group is named by one of its stones, the one nearest the move ("the group at
C3"); a list of points is written in GTP, column by column and from the bottom up
("D4 E4 E5"), the first ``MAX_LISTED`` of them.
"""

from __future__ import annotations

from dataclasses import dataclass

from gobuddy.go.coords import BLACK, to_gtp
from gobuddy.go.position import Position, neighbours

MAX_LISTED = 8


@dataclass(frozen=True)
class Chain:
    """A chain: its stones (sorted), its liberties, its colour."""

    stones: tuple[int, ...]
    liberties: frozenset[int]
    color: int

    @property
    def size(self) -> int:
        return len(self.stones)


def chain(pos: Position, point: int) -> Chain:
    """The chain at ``point`` (a stone must be there)."""
    stones, libs = pos.chain_at(point)
    return Chain(tuple(sorted(stones)), frozenset(libs), pos.board[point])


def chains_next_to(pos: Position, point: int, color: int) -> list[Chain]:
    """The distinct chains of ``color`` next to ``point``."""
    out: list[Chain] = []
    seen: set[int] = set()
    for q in neighbours(pos.size)[point]:
        if pos.board[q] == color and q not in seen:
            c = chain(pos, q)
            seen.update(c.stones)
            out.append(c)
    return out


def chains_of(pos: Position, color: int) -> list[Chain]:
    """Every chain of ``color`` on the board."""
    out: list[Chain] = []
    seen: set[int] = set()
    for p, v in enumerate(pos.board):
        if v == color and p not in seen:
            c = chain(pos, p)
            seen.update(c.stones)
            out.append(c)
    return out


@dataclass(frozen=True)
class Played:
    """``color`` played ``move``: the position ``before`` (``color`` to move), the
    position ``after``, and the points the move ``captured``."""

    before: Position
    after: Position
    move: int
    color: int
    captured: tuple[int, ...]

    @classmethod
    def of(cls, position: Position, move: int, color: int | None = None) -> "Played":
        before = position.copy()
        if color is not None and color != before.to_play:
            before.set_to_play(color)
        color = before.to_play
        after = before.copy()
        captured = after.play(move, color)
        return cls(before, after, move, color, tuple(sorted(captured)))

    @property
    def size(self) -> int:
        return self.before.size

    @property
    def opponent(self) -> int:
        return -self.color

    @property
    def is_pass(self) -> bool:
        return self.move == self.before.pass_point

    def own_chain(self) -> Chain:
        """The chain the move's stone belongs to after the move."""
        return chain(self.after, self.move)


def vertex(point: int, size: int) -> str:
    """One point in GTP."""
    return to_gtp(point, size)


def vertices(points: tuple[int, ...] | list[int] | frozenset[int], size: int) -> str:
    """Points in GTP, column by column from the bottom up; past ``MAX_LISTED``, "and N more"."""
    ordered = sorted(points, key=lambda p: (p % size, -(p // size)))
    words = [to_gtp(p, size) for p in ordered[:MAX_LISTED]]
    if len(ordered) > MAX_LISTED:
        words.append(f"and {len(ordered) - MAX_LISTED} more")
    return " ".join(words)


def nearest(points: tuple[int, ...] | list[int], to: int, size: int) -> int:
    """The point of ``points`` nearest ``to`` (Manhattan; ties: the first in GTP order)."""
    tr, tc = divmod(to, size)
    return min(points, key=lambda p: (abs(p // size - tr) + abs(p % size - tc), p % size, -(p // size)))


def group_name(stones: tuple[int, ...] | list[int], near: int, size: int) -> str:
    """``the group at C3`` (the stone nearest ``near``); a lone stone is ``the stone at C3``."""
    anchor = vertex(nearest(stones, near, size) if near < size * size else min(stones), size)
    return f"the stone at {anchor}" if len(stones) == 1 else f"the group at {anchor}"


def stones_word(n: int) -> str:
    """``1 stone``, ``3 stones``."""
    return f"{n} stone" if n == 1 else f"{n} stones"


def color_word(color: int) -> str:
    """``black`` or ``white``."""
    return "black" if color == BLACK else "white"
