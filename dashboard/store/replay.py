"""Replaying a stored game (setup stones and GTP moves) into positions and their keys.

The store keeps moves as GTP strings; this module is where they meet
``gobuddy.go.position``. Ko: positional superko except under territory rules
(``japanese``, ``korean``), which use the simple ko rule. What is NOT checked: whose
turn it is (the store records the colour each move was played with; the edge agent
reports a wrong colour as a problem before it becomes a move).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

from gobuddy.go.coords import CoordinateError, color_from_str, color_to_str, from_gtp, to_gtp
from gobuddy.go.position import Position

SIMPLE_KO_RULES = frozenset({"japanese", "korean"})


class RecordError(ValueError):
    """A stored or incoming record that cannot be replayed; names the move (0 = setup)."""

    def __init__(self, message: str, move_number: int) -> None:
        super().__init__(message)
        self.move_number = move_number


@dataclass(frozen=True)
class PositionKey:
    """What makes two positions the same for the engine: the stones, side to move and
    simple-ko point (``hash``: ``Position.key()`` masked to 64 bits, as 16 lower-case hex
    digits: the engine answers' ``position_key.hash``), board size, komi, rules. Not part of the key: the move history (so superko-forbidden moves and
    prisoner counts may differ between games that share a key)."""

    hash: str
    size: int
    komi: float
    rules: str
    to_play: str

    @classmethod
    def of(cls, pos: Position, komi: float, rules: str) -> "PositionKey":
        return cls(format(pos.key() & 0xFFFFFFFFFFFFFFFF, "016x"), pos.size, float(komi), rules, color_to_str(pos.to_play))


def start_position(size: int, rules: str, to_play: str, setup: Iterable[tuple[str, str]]) -> Position:
    """The position before move 1: ``setup`` stones as ``(colour, vertex)`` placed,
    ``to_play`` ("B"/"W") to move. Raises ``RecordError`` (move 0) for a vertex off the
    board, a point set twice, or a chain left without liberties."""
    pos = Position(size, superko=rules not in SIMPLE_KO_RULES, to_play=_color(to_play, 0))
    for color, vertex in setup:
        point = _point(vertex, size, 0, "setup stone")
        if point == pos.pass_point:
            raise RecordError("setup: 'pass' is not a point", 0)
        if pos.board[point] != 0:
            raise RecordError(f"setup: {vertex} is set twice", 0)
        pos.place(point, _color(color, 0))
    try:
        pos.check_no_dead_chains()
    except ValueError as exc:
        raise RecordError(f"setup: {exc}", 0) from None
    return pos


def play(pos: Position, number: int, color: str, vertex: str, captures: Sequence[str] | None = None) -> list[str]:
    """Play move ``number`` in place and return the captured vertices (sorted).

    Raises ``RecordError`` naming the move if the vertex is off the board, the move is
    illegal, or ``captures`` (when given) differ from what the rules capture."""
    c = _color(color, number)
    point = _point(vertex, pos.size, number, f"move {number}")
    why = pos.illegal_reason(point, c)
    if why is not None:
        raise RecordError(f"move {number} ({color} {vertex}) is illegal: {why}", number)
    taken = sorted(to_gtp(p, pos.size) for p in pos.play(point, c, check=False))
    if captures is not None:
        for v in captures:
            _point(v, pos.size, number, f"move {number}: capture")
        if sorted(v.upper() for v in captures) != taken:
            raise RecordError(f"move {number} ({color} {vertex}) says it captured {sorted(captures)}, "
                              f"the rules capture {taken}", number)
    return taken


def positions(size: int, rules: str, to_play: str, setup: Iterable[tuple[str, str]],
              moves: Sequence[tuple[int, str, str]]) -> Iterator[tuple[int, Position]]:
    """``(move count, position)`` for 0 (the start) and after each of ``moves``
    (``(number, colour, vertex)`` sorted by number), stopping at the first gap. The same
    ``Position`` object is yielded each time, played on in place: copy it to keep it.
    Raises ``RecordError`` for an illegal record."""
    pos = start_position(size, rules, to_play, setup)
    yield 0, pos
    for expected, (number, color, vertex) in enumerate(moves, start=1):
        if number != expected:
            return
        play(pos, number, color, vertex)
        yield number, pos


def position_keys(size: int, komi: float, rules: str, to_play: str, setup: Iterable[tuple[str, str]],
                  moves: Sequence[tuple[int, str, str]]) -> dict[int, PositionKey]:
    """The ``PositionKey`` after each move count of ``positions(...)``."""
    return {n: PositionKey.of(pos, komi, rules) for n, pos in positions(size, rules, to_play, setup, moves)}


def _color(text: str, number: int) -> int:
    try:
        return color_from_str(text)
    except CoordinateError as exc:
        raise RecordError(f"move {number}: {exc}" if number else f"setup: {exc}", number) from None


def _point(vertex: str, size: int, number: int, what: str) -> int:
    try:
        return from_gtp(vertex, size)
    except CoordinateError as exc:
        raise RecordError(f"{what}: {exc}", number) from None

