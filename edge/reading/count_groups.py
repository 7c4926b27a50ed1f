"""The dead stones of a count as the players choose them on the board, group by group.

``CountGroups`` holds the game's final position split into groups (stones of one colour
joined along lines; a group is named by its first point, row-major), the stones the
workers proposed dead, and what the players did since:

| on the board (stable boards only)                       | the group                       |
|---------------------------------------------------------|---------------------------------|
| a stone of it lifted (put back later, or left off)      | toggles: dead <-> alive, once per lift |
| every stone of it off the board                         | dead, whatever the toggles      |
| stones put back, a stone put on an empty point          | nothing                         |

A group is proposed dead when any of its stones is. ``dead`` is every stone of the
groups counted dead now. ``snapshot``/``restore`` keep the players' choices (GTP
vertices) so that a count survives a restart of the agent (``edge.journal.count_journal``).
Pure: no time, no I/O; what it reads is never a move. A group is whole again when each
of its points holds a stone (of any class: not checked that it is the lifted one).
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from gobuddy.go.coords import EMPTY, from_gtp, to_gtp
from gobuddy.go.position import neighbours


class CountGroups:
    """One count's groups and the players' toggles (see the module docstring)."""

    def __init__(self, stones: Sequence[int], size: int) -> None:
        self.size = size
        self.groups: dict[int, tuple[int, ...]] = groups_of(stones, size)
        self._group_of = {p: key for key, points in self.groups.items() for p in points}
        self.proposed: frozenset[int] = frozenset()  # group keys the workers called dead
        self.toggled: set[int] = set()  # group keys the players toggled (an odd number of times)
        self.lifted: set[int] = set()  # group keys with a stone off the board now
        self.gone: set[int] = set()  # group keys with every stone off the board now

    def propose(self, dead: Iterable[int]) -> None:
        """The workers' dead stones (flat points; those not on a stone are ignored)."""
        self.proposed = frozenset(self._group_of[p] for p in dead if p in self._group_of)

    def see(self, board: Sequence[int]) -> bool:
        """Take in a stable board (classes per point); True when the dead stones changed."""
        before = self.dead
        for key, points in self.groups.items():
            off = [p for p in points if board[p] == EMPTY]
            if off and key not in self.lifted:
                self.toggled ^= {key}
                self.lifted.add(key)
            elif not off:
                self.lifted.discard(key)
            if len(off) == len(points):
                self.gone.add(key)
            else:
                self.gone.discard(key)
        return self.dead != before

    @property
    def dead(self) -> tuple[int, ...]:
        """Every stone of the groups counted dead now, sorted."""
        keys = {k for k in self.groups if (k in self.proposed) != (k in self.toggled)} | self.gone
        return tuple(sorted(p for k in keys for p in self.groups[k]))

    def snapshot(self) -> dict[str, Any]:
        """The players' choices as GTP vertices (a group by its first point)."""
        def vertices(keys: Iterable[int]) -> list[str]:
            return [to_gtp(k, self.size) for k in sorted(keys)]
        return {"proposed": vertices(self.proposed), "toggled": vertices(self.toggled),
                "lifted": vertices(self.lifted), "gone": vertices(self.gone)}

    def restore(self, snapshot: dict[str, Any]) -> None:
        """Take back a ``snapshot`` of the same position (``ValueError`` for a vertex
        that names no group of it)."""
        def keys(name: str) -> set[int]:
            out = set()
            for vertex in snapshot.get(name) or ():
                point = from_gtp(vertex, self.size)
                if point not in self.groups:
                    raise ValueError(f"{vertex} names no group of this position")
                out.add(point)
            return out
        self.proposed = frozenset(keys("proposed"))
        self.toggled, self.lifted, self.gone = keys("toggled"), keys("lifted"), keys("gone")


def groups_of(stones: Sequence[int], size: int) -> dict[int, tuple[int, ...]]:
    """Each group of ``stones`` (colours per point; ``EMPTY`` points belong to none) keyed
    by its first point (row-major), in that order, its points sorted."""
    adjacent = neighbours(size)
    seen: set[int] = set()
    groups: dict[int, tuple[int, ...]] = {}
    for start, colour in enumerate(stones):
        if colour == EMPTY or start in seen:
            continue
        group, todo = [start], [start]
        seen.add(start)
        while todo:
            p = todo.pop()
            for q in adjacent[p]:
                if q not in seen and stones[q] == colour:
                    seen.add(q)
                    group.append(q)
                    todo.append(q)
        groups[start] = tuple(sorted(group))
    return groups
