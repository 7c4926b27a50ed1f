"""Pass-alive chains and pass-alive territory: Benson's unconditional life.

A chain is *pass-alive* when the opponent cannot capture it even if its owner passes
for ever (Benson 1976). For a colour C the algorithm works on C's chains and the
*C-enclosed regions*: maximal connected sets of points that hold no C stone (empty
points and opponent stones). A region is *vital* to a chain when every empty point of
the region is a liberty of that chain. Repeat until nothing changes: drop every chain
with fewer than two vital regions among the regions still kept, then drop every region
that borders a dropped chain. The chains left are pass-alive.

*Pass-alive territory* of C: a kept region in which every empty point touches a
pass-alive C stone. The opponent can never make an eye there (each empty point touches
a stone that cannot be captured), so C can take every opponent stone inside whatever
the opponent does: those stones are dead and the region is C's, for certain. This is
the rule Tromp-Taylor scorers with "pass-alive territory" use; it is not re-proved here.

What this does not see: life that needs a move (a group with two eyes to make), seki
(a seki is never pass-alive), life by ko. Anything not pass-alive is undecided here,
not dead. Board size comes from the position; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from gobuddy.go.coords import BLACK, EMPTY, WHITE
from gobuddy.go.position import Position, neighbours


@dataclass(frozen=True)
class PassAlive:
    """What Benson's algorithm proves for one colour: ``stones`` of its pass-alive
    chains, ``territory`` (the points of its pass-alive territory, empty or holding
    opponent stones) and ``dead`` (the opponent stones inside that territory)."""

    colour: int
    stones: frozenset[int]
    territory: frozenset[int]
    dead: frozenset[int]


def _regions(board: list[int], size: int, colour: int) -> list[list[int]]:
    """The maximal connected sets of points not holding ``colour``."""
    nbrs = neighbours(size)
    seen = bytearray(len(board))
    out = []
    for start, v in enumerate(board):
        if v == colour or seen[start]:
            continue
        seen[start] = 1
        region = [start]
        i = 0
        while i < len(region):
            for q in nbrs[region[i]]:
                if board[q] != colour and not seen[q]:
                    seen[q] = 1
                    region.append(q)
            i += 1
        out.append(region)
    return out


def pass_alive(pos: Position, colour: int) -> PassAlive:
    """Benson's algorithm for ``colour`` (``BLACK`` or ``WHITE``) on ``pos``."""
    if colour not in (BLACK, WHITE):
        raise ValueError(f"{colour!r} is not a colour")
    board, size = pos.board, pos.size
    nbrs = neighbours(size)
    chain_of: dict[int, int] = {}  # stone -> chain index
    liberties: list[set[int]] = []
    chain_stones: list[list[int]] = []
    for p, v in enumerate(board):
        if v == colour and p not in chain_of:
            stones, libs = pos.chain_at(p)
            for s in stones:
                chain_of[s] = len(chain_stones)
            chain_stones.append(stones)
            liberties.append(libs)
    regions = _regions(board, size, colour)
    borders: list[set[int]] = []  # per region: the chains it touches
    vital_to: list[set[int]] = []  # per region: the chains it is vital to
    for region in regions:
        touching = {chain_of[q] for p in region for q in nbrs[p] if board[q] == colour}
        empties = [p for p in region if board[p] == EMPTY]
        borders.append(touching)
        vital_to.append({c for c in touching if all(p in liberties[c] for p in empties)})
    chains = set(range(len(chain_stones)))
    kept = set(range(len(regions)))
    while True:
        vital_count = dict.fromkeys(chains, 0)
        for r in kept:
            for c in vital_to[r] & chains:
                vital_count[c] += 1
        dropped = {c for c, n in vital_count.items() if n < 2}
        chains -= dropped
        lost = {r for r in kept if not borders[r] <= chains}
        kept -= lost
        if not dropped and not lost:
            break
    stones = frozenset(s for c in chains for s in chain_stones[c])
    territory: set[int] = set()
    for r in kept:
        region = regions[r]
        if all(any(q in stones for q in nbrs[p]) for p in region if board[p] == EMPTY):
            territory.update(region)
    dead = frozenset(p for p in territory if board[p] == -colour)
    return PassAlive(colour, stones, frozenset(territory), dead)


__all__ = ["PassAlive", "pass_alive"]
