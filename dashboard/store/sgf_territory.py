"""The final count in SGF: territory marks (``TB``/``TW``) <-> the stones counted dead.

SGF has no property for dead stones; the count is written as territory, in the last
node of the main line (where Sabaki, CGoban and KGS put it): ``TB`` lists every point
black owns once the dead stones are lifted that does not hold a black stone (empty
territory and the white stones counted dead), ``TW`` the same for white; neutral
points (dame, seki) are in neither. Reading it back, the stones counted dead are the
stones that lie on the other colour's territory.

| function | from | to |
|---|---|---|
| ``territory_marks`` | a position and its dead stones (GTP) | ``{"TB": [...], "TW": [...]}`` (SGF points) |
| ``dead_from_marks`` | a position and a node's raw properties | the dead stones (GTP), or ``None`` without marks |

Not checked: that marked territory is really enclosed (a file's marks are its own);
compressed point lists (``aa:cc``) are read, and marks off the board are skipped.
"""

from __future__ import annotations

import logging
from typing import Iterable, Mapping, Sequence

from gobuddy.go.coords import BLACK, EMPTY, WHITE, CoordinateError, from_gtp, from_sgf, to_gtp, to_sgf
from gobuddy.go.position import Position
from gobuddy.go.scoring import ownership

log = logging.getLogger("dashboard.store.sgf_territory")

MARKS = {BLACK: "TB", WHITE: "TW"}


def territory_marks(pos: Position, dead: Iterable[str]) -> dict[str, list[str]]:
    """``TB``/``TW`` for the count of ``pos`` with ``dead`` (GTP vertices) lifted; a dead
    vertex that holds no stone here is skipped (logged: the record and the count
    disagree)."""
    size = pos.size
    lifted = []
    for vertex in dead:
        point = from_gtp(vertex, size)
        if pos.board[point] == EMPTY:
            log.warning("counted dead at %s, where the game has no stone: left out of the territory", vertex)
            continue
        lifted.append(point)
    owner = ownership(pos, lifted)
    marks: dict[str, list[str]] = {"TB": [], "TW": []}
    for point, who in enumerate(owner.tolist()):
        if who != EMPTY and pos.board[point] != who:
            marks[MARKS[who]].append(to_sgf(point, size))
    return marks


def dead_from_marks(pos: Position, properties: Mapping[str, Sequence[str]]) -> list[str] | None:
    """The stones of ``pos`` lying on the other colour's territory marks (GTP, sorted by
    point), or ``None`` when the properties hold no ``TB``/``TW``."""
    if "TB" not in properties and "TW" not in properties:
        return None
    size = pos.size
    dead = set()
    for colour, name in MARKS.items():
        for point in _points(properties.get(name, ()), size):
            if pos.board[point] == -colour:
                dead.add(point)
    return [to_gtp(p, size) for p in sorted(dead)]


def _points(values: Iterable[str], size: int) -> list[int]:
    """SGF point list values (``dd`` or a rectangle ``aa:cc``) as flat points."""
    out = []
    for value in values:
        try:
            if ":" in value:
                first, last = (from_sgf(v, size) for v in value.split(":", 1))
                (r0, c0), (r1, c1) = divmod(first, size), divmod(last, size)
                out += [r * size + c for r in range(min(r0, r1), max(r0, r1) + 1)
                        for c in range(min(c0, c1), max(c0, c1) + 1)]
            else:
                out.append(from_sgf(value, size))
        except CoordinateError:
            continue
    return [p for p in out if 0 <= p < size * size]
