"""Handicap stone placement: the fixed points of GTP 2 (section 4.1.1), and a free one.

Fixed placement is defined for boards from 7x7 up: 2 to 4 stones on 7x7 and on even
sizes, 2 to 9 stones on odd sizes from 9x9. The corner stones sit on the third line
below 13x13 and on the fourth line from 13x13 up; the side and centre stones sit on the
middle lines. Stones are added in the order of the specification:

| stones | points (19x19)                                  |
|--------|-------------------------------------------------|
| 2      | D4 Q16                                          |
| 3      | + D16                                           |
| 4      | + Q4                                            |
| 5      | 4 corners + K10                                 |
| 6      | 4 corners + D10 Q10                             |
| 7      | 6 + K10                                         |
| 8      | 6 + K4 K16                                      |
| 9      | 8 + K10                                         |

These are the points GNU Go 3.8 gives (it lists them in board order instead) on every
size but 12x12, where GNU Go already uses the fourth line (D4 J9); we follow the
specification there, as GoGui and gomill do (C3 K10).
"""

from __future__ import annotations

from gobuddy.go.coords import check_size

MIN_FIXED_SIZE = 7


class HandicapError(ValueError):
    """A handicap that cannot be placed: wrong number of stones or board size."""


def max_fixed_handicap(size: int) -> int:
    """The most fixed handicap stones a ``size`` board takes (0: none defined)."""
    check_size(size)
    if size < MIN_FIXED_SIZE:
        return 0
    if size == 7 or size % 2 == 0:
        return 4
    return 9


# Each stone as (column key, row key) with keys 0 = low line, 1 = middle, 2 = high
# line, in GTP terms (row keys count from the bottom), following the specification.
_ORDER = {
    2: ("00", "22"),
    3: ("00", "22", "02"),
    4: ("00", "22", "02", "20"),
    5: ("00", "22", "02", "20", "11"),
    6: ("00", "22", "02", "20", "01", "21"),
    7: ("00", "22", "02", "20", "01", "21", "11"),
    8: ("00", "22", "02", "20", "01", "21", "10", "12"),
    9: ("00", "22", "02", "20", "01", "21", "10", "12", "11"),
}


def fixed_handicap_points(size: int, stones: int) -> list[int]:
    """Flat points of a ``stones`` fixed handicap on a ``size`` board, in spec order.

    Raises ``HandicapError`` naming the allowed range for an invalid count or size."""
    top = max_fixed_handicap(size)
    if top == 0:
        raise HandicapError(
            f"fixed handicap is not defined on a {size}x{size} board (only from "
            f"{MIN_FIXED_SIZE}x{MIN_FIXED_SIZE} up)")
    if not isinstance(stones, int) or not 2 <= stones <= top:
        raise HandicapError(
            f"invalid number of handicap stones {stones!r} on {size}x{size}: from 2 to {top}")
    edge = 2 if size < 13 else 3
    line = {"0": edge, "1": (size - 1) // 2, "2": size - 1 - edge}
    return [(size - 1 - line[row]) * size + line[col] for col, row in _ORDER[stones]]


def free_handicap_points(size: int, stones: int) -> list[int]:
    """An engine's own choice of ``stones`` handicap points (GTP ``place_free_handicap``).

    The fixed placement where it is defined; otherwise its stones first, then points
    added one at a time as far as possible from those already chosen (ties: farthest
    from the edge, then lowest flat index), so any count from 2 to ``size*size - 1``
    gets a spread-out, deterministic answer. Raises ``HandicapError`` outside that range."""
    check_size(size)
    n = size * size
    if not isinstance(stones, int) or not 2 <= stones <= n - 1:
        raise HandicapError(
            f"invalid number of handicap stones {stones!r} on {size}x{size}: from 2 to {n - 1}")
    top = max_fixed_handicap(size)
    if stones <= top:
        return fixed_handicap_points(size, stones)
    chosen = fixed_handicap_points(size, top) if top else [(size // 2) * size + size // 2]
    far = [min(abs(p // size - q // size) + abs(p % size - q % size) for q in chosen) for p in range(n)]
    edge = [min(r, c, size - 1 - r, size - 1 - c) for r, c in (divmod(p, size) for p in range(n))]
    taken = set(chosen)
    while len(chosen) < stones:
        best = max((p for p in range(n) if p not in taken), key=lambda p: (far[p], edge[p], -p))
        chosen.append(best)
        taken.add(best)
        br, bc = divmod(best, size)
        for p in range(n):
            d = abs(p // size - br) + abs(p % size - bc)
            if d < far[p]:
                far[p] = d
    return chosen
