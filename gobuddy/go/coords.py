"""Coordinates: the one convention of Go Learning Buddy, and conversions at the edges.

| system        | 9x9 example | meaning                                                    |
|---------------|-------------|------------------------------------------------------------|
| (row, col)    | (5, 3)      | row 0 is the TOP row, col 0 is the left column (A)         |
| flat index    | 48          | ``row * size + col``; pass is ``size * size``              |
| GTP vertex    | ``D4``      | column letter (A..Z without I), row number from the bottom |
| SGF point     | ``dd``      | column letter then row letter, both from the top left      |

Inside ``gobuddy`` a move is a flat index (an ``int``); ``pass`` is ``pass_move(size)``
(== ``size * size``). GTP and SGF strings exist only at the edges (protocols, files,
messages, UI) and are converted here and nowhere else.

Colours are ints: ``BLACK = 1``, ``WHITE = -1``, ``EMPTY = 0``; ``-colour`` is the other
side. On the wire they are ``"B"`` and ``"W"``.

Board sizes from ``MIN_SIZE`` to ``MAX_SIZE`` (2..25) are supported everywhere.
"""

from __future__ import annotations

BLACK = 1
WHITE = -1
EMPTY = 0
MIN_SIZE = 2
MAX_SIZE = 25

GTP_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"  # no I, per the GTP specification
SGF_LETTERS = "abcdefghijklmnopqrstuvwxyz"


class CoordinateError(ValueError):
    """A vertex, point or colour string that does not name anything on this board."""


def check_size(size: int) -> int:
    """Return ``size`` if it is a supported board size, else raise ``CoordinateError``."""
    if not isinstance(size, int) or not MIN_SIZE <= size <= MAX_SIZE:
        raise CoordinateError(f"board size must be an integer from {MIN_SIZE} to {MAX_SIZE}, got {size!r}")
    return size


def pass_move(size: int) -> int:
    """The flat index that means pass on a ``size`` board."""
    return size * size


def to_flat(row: int, col: int, size: int) -> int:
    """(row, col) -> flat index. Raises ``CoordinateError`` off the board."""
    if not (0 <= row < size and 0 <= col < size):
        raise CoordinateError(f"(row {row}, col {col}) is off a {size}x{size} board")
    return row * size + col


def from_flat(point: int, size: int) -> tuple[int, int]:
    """Flat index -> (row, col). Pass has no (row, col): it raises ``CoordinateError``."""
    if not 0 <= point < size * size:
        raise CoordinateError(f"flat index {point} is not a point of a {size}x{size} board")
    return divmod(point, size)


def to_gtp(point: int, size: int) -> str:
    """Flat index (or pass) -> GTP vertex such as ``D4`` or ``pass``."""
    if point == pass_move(size):
        return "pass"
    row, col = from_flat(point, size)
    return f"{GTP_COLUMNS[col]}{size - row}"


def from_gtp(vertex: str, size: int) -> int:
    """GTP vertex (any case, ``pass`` allowed) -> flat index.

    Raises ``CoordinateError`` naming the vertex for anything that is not a vertex of
    this board (``I`` columns, row 0, rows past the size, garbage)."""
    text = vertex.strip().upper()
    if text == "PASS":
        return pass_move(size)
    if len(text) < 2 or text[0] not in GTP_COLUMNS or not text[1:].isdigit():
        raise CoordinateError(f"{vertex!r} is not a GTP vertex")
    col = GTP_COLUMNS.index(text[0])
    number = int(text[1:])
    if col >= size or not 1 <= number <= size:
        raise CoordinateError(f"{vertex!r} is off a {size}x{size} board")
    return (size - number) * size + col


def to_sgf(point: int, size: int) -> str:
    """Flat index -> SGF point (``dd``); pass -> ``""`` (FF[4] style)."""
    if point == pass_move(size):
        return ""
    row, col = from_flat(point, size)
    return SGF_LETTERS[col] + SGF_LETTERS[row]


def from_sgf(text: str, size: int) -> int:
    """SGF point -> flat index. ``""`` is pass, and so is ``tt`` on boards up to 19x19.

    Raises ``CoordinateError`` for anything else that is not a point of this board."""
    if text == "" or (text == "tt" and size <= 19):
        return pass_move(size)
    if len(text) != 2 or text[0] not in SGF_LETTERS or text[1] not in SGF_LETTERS:
        raise CoordinateError(f"{text!r} is not an SGF point")
    col, row = SGF_LETTERS.index(text[0]), SGF_LETTERS.index(text[1])
    if col >= size or row >= size:
        raise CoordinateError(f"SGF point {text!r} is off a {size}x{size} board")
    return row * size + col


def color_from_str(text: str) -> int:
    """``"B"``/``"black"``/``"W"``/``"white"`` (any case) -> ``BLACK``/``WHITE``."""
    key = text.strip().lower()
    if key in ("b", "black"):
        return BLACK
    if key in ("w", "white"):
        return WHITE
    raise CoordinateError(f"{text!r} is not a colour (expected B or W)")


def color_to_str(color: int) -> str:
    """``BLACK`` -> ``"B"``, ``WHITE`` -> ``"W"``."""
    if color == BLACK:
        return "B"
    if color == WHITE:
        return "W"
    raise CoordinateError(f"{color!r} is not a colour")
