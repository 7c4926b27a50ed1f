"""Area scoring (Chinese / Tromp-Taylor): stones plus surrounded empty points, with komi.

A point counts for a colour if it holds a stone of that colour, or if it is empty and
every stone its empty region touches is of that colour. Empty regions touching both
colours (dame, the shared liberties of a seki) or no stone at all count for nobody.
Stones in a seki therefore count for their owner and the shared liberties are neutral;
an eye inside a seki group counts for that group's owner, as in Chinese rules.

Dead stones are given by the caller (``dead``, flat points): they are lifted before
counting, so the empty region they leave counts for whoever surrounds it, which is the
other side when the marking is right. Tromp-Taylor scoring is the same count with no
dead stones. Prisoners play no part in area scoring.

Not checked here: that ``dead`` lists whole chains, or that the game is over; scoring
an unfinished position simply counts what is there.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from gobuddy.go.coords import BLACK, EMPTY, WHITE, to_gtp
from gobuddy.go.position import Position, neighbours


def result_string(margin: float) -> str:
    """Margin (black minus white, komi included) -> ``B+3.5``, ``W+12``, or ``0`` (jigo).

    Whole margins print without a decimal point (``B+3``), as in the GTP and SGF
    conventions."""
    if margin == 0:
        return "0"
    return f"{'B' if margin > 0 else 'W'}+{abs(margin):g}"


@dataclass(frozen=True)
class Score:
    """An area count: ``black`` and ``white`` points (stones + territory), ``neutral``
    points (dame, seki liberties) and the ``komi`` given to white."""

    black: int
    white: int
    komi: float
    neutral: int

    @property
    def margin(self) -> float:
        """Black's lead: ``black - white - komi`` (negative when white wins)."""
        return self.black - self.white - self.komi

    @property
    def result(self) -> str:
        """``B+x``, ``W+x`` or ``0``; see ``result_string``."""
        return result_string(self.margin)

    @property
    def winner(self) -> int:
        """``BLACK``, ``WHITE`` or ``EMPTY`` for a draw."""
        m = self.margin
        return BLACK if m > 0 else WHITE if m < 0 else EMPTY


def _board_without(pos: Position, dead: Iterable[int]) -> list[int]:
    board = pos.board[:]
    for p in dead:
        if not 0 <= p < pos.n:
            raise ValueError(f"dead point {p} is not on a {pos.size}x{pos.size} board")
        if board[p] == EMPTY:
            raise ValueError(f"dead point {to_gtp(p, pos.size)} holds no stone")
        board[p] = EMPTY
    return board


def empty_regions(board: list[int], size: int) -> Iterator[tuple[list[int], int]]:
    """Each maximal empty region of ``board`` as (points, border), where ``border`` is a
    bit set: 1 if it touches a black stone, 2 if it touches a white one."""
    nbrs = neighbours(size)
    seen = bytearray(len(board))
    for start, v in enumerate(board):
        if v != EMPTY or seen[start]:
            continue
        seen[start] = 1
        region = [start]
        border = 0
        i = 0
        while i < len(region):
            for q in nbrs[region[i]]:
                w = board[q]
                if w == EMPTY:
                    if not seen[q]:
                        seen[q] = 1
                        region.append(q)
                elif w == BLACK:
                    border |= 1
                else:
                    border |= 2
            i += 1
        yield region, border


def board_owners(board: list[int], size: int) -> list[int]:
    """Per point of a plain board list: its stone's colour, or the colour of the only
    colour its empty region touches, else ``EMPTY`` (no dead stones lifted)."""
    owner = board[:]
    for region, border in empty_regions(board, size):
        if border == 1 or border == 2:
            colour = BLACK if border == 1 else WHITE
            for p in region:
                owner[p] = colour
    return owner


def ownership(pos: Position, dead: Iterable[int] = ()) -> np.ndarray:
    """Per flat point: +1 black's, -1 white's, 0 neutral, after lifting ``dead``.

    Returns an int8 vector of length ``size * size`` (no pass entry)."""
    board = _board_without(pos, dead)
    return np.array(board_owners(board, pos.size), dtype=np.int8)


def area_score(pos: Position, komi: float, dead: Iterable[int] = ()) -> Score:
    """Count ``pos`` by area with ``komi`` after lifting the ``dead`` stones.

    Raises ``ValueError`` if a dead point is off the board or empty."""
    board = _board_without(pos, dead)
    owner = board_owners(board, pos.size)
    black = owner.count(BLACK)
    white = owner.count(WHITE)
    return Score(black=black, white=white, komi=float(komi), neutral=len(owner) - black - white)


def tromp_taylor_margin(pos: Position, komi: float) -> float:
    """Black's Tromp-Taylor lead (all stones alive), komi included: the fast path.

    Plain Python over the board list, no numpy and no allocation beyond one bytearray
    and the flood stack; the same count as ``area_score(pos, komi).margin``."""
    board = pos.board
    nbrs = neighbours(pos.size)
    seen = bytearray(len(board))
    score = sum(board)  # BLACK = 1, WHITE = -1: stones counted in one go
    for start, v in enumerate(board):
        if v or seen[start]:
            continue
        seen[start] = 1
        stack = [start]
        count = 0
        border = 0
        while stack:
            p = stack.pop()
            count += 1
            for q in nbrs[p]:
                w = board[q]
                if w == 0:
                    if not seen[q]:
                        seen[q] = 1
                        stack.append(q)
                else:
                    border |= 1 if w == 1 else 2
        if border == 1:
            score += count
        elif border == 2:
            score -= count
    return score - float(komi)
