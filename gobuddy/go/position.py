"""A Go position: stones, chains with their liberties, ko, superko history, captures.

``Position`` is mutable: ``play`` changes it in place (fast enough for playouts and
search) and ``copy`` gives an independent position. Points are flat indices and colours
are ``BLACK``/``WHITE`` as documented in ``gobuddy.go.coords``.

Rules implemented: captures, suicide is illegal, positional superko (a move may not
recreate any earlier whole-board arrangement of stones) or, when ``superko=False``,
only the simple ko rule (no immediate recapture of a single stone). Passing is always
legal. What is *not* handled here: resignation, time, and the end of the game; those
belong to the game record (``gobuddy.go.record``) and scoring (``gobuddy.go.scoring``).

Chains are tracked incrementally: ``_chain[p]`` is the id of the chain at ``p`` (``-1``
when empty), ``_stones[id]`` is a tuple of its stones and ``_libs[id]`` its liberties as
a bitset (a Python int, bit ``p`` set for a liberty at ``p``), and ``_empty`` is the
bitset of empty points; so a move costs work proportional to the chains it touches,
never a flood fill of the board, and ``copy`` shares every chain (tuples and ints are
immutable). ``legal_mask`` works on the bitsets for the whole board at once.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Iterator, Sequence

import numpy as np

from gobuddy.go.coords import BLACK, EMPTY, WHITE, check_size, color_to_str, to_gtp


class IllegalMove(ValueError):
    """A move the rules forbid; the message says which move and why."""


@lru_cache(maxsize=None)
def neighbours(size: int) -> tuple[tuple[int, ...], ...]:
    """For each flat point, the flat indices of its orthogonal neighbours."""
    table = []
    for p in range(size * size):
        r, c = divmod(p, size)
        adj = []
        if r > 0:
            adj.append(p - size)
        if r < size - 1:
            adj.append(p + size)
        if c > 0:
            adj.append(p - 1)
        if c < size - 1:
            adj.append(p + 1)
        table.append(tuple(adj))
    return tuple(table)


@lru_cache(maxsize=None)
def _bit_masks(size: int) -> tuple[tuple[int, ...], int, int, int]:
    """``(bit of each point, all points, all but column A, all but the last column)``."""
    n = size * size
    full = (1 << n) - 1
    first_column = sum(1 << (r * size) for r in range(size))
    return tuple(1 << p for p in range(n)), full, full & ~first_column, full & ~(first_column << (size - 1))


@lru_cache(maxsize=None)
def zobrist_table(size: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Fixed 64-bit random keys per point for black and white (seeded: stable across runs)."""
    rng = random.Random(0x60B0DD1 + size)
    n = size * size
    black = tuple(rng.getrandbits(64) for _ in range(n))
    white = tuple(rng.getrandbits(64) for _ in range(n))
    return black, white


@lru_cache(maxsize=None)
def _zobrist_points(size: int) -> tuple[dict[int, int], dict[int, int]] | None:
    """Key -> point for black and white (``None`` if two keys of a colour collide)."""
    black, white = zobrist_table(size)
    found = ({k: p for p, k in enumerate(black)}, {k: p for p, k in enumerate(white)})
    return found if len(found[0]) == len(found[1]) == size * size else None


class Position:
    """A board position with the side to move.

    Attributes (read-only for callers): ``size``, ``to_play``, ``ko`` (the point the
    side to move may not play because of simple ko, or ``None``), ``captures``
    (``{BLACK: stones black has captured, WHITE: ...}``), ``passes`` (consecutive
    passes that led here), ``move_count`` (moves including passes since the start
    position), ``hash`` (Zobrist key of the stones only), ``last_move`` (flat, pass,
    or ``None``), ``superko`` (positional superko on, else simple ko).
    """

    __slots__ = (
        "size", "n", "pass_point", "board", "to_play", "ko", "captures", "passes",
        "move_count", "hash", "last_move", "superko", "seen", "_chain", "_stones",
        "_libs", "_empty", "_next_id", "_nbrs", "_zb", "_zw", "_bits",
    )

    def __init__(self, size: int = 9, superko: bool = True, to_play: int = BLACK) -> None:
        check_size(size)
        self.size = size
        self.n = size * size
        self.pass_point = self.n
        self.board: list[int] = [EMPTY] * self.n
        self.to_play = to_play
        self.ko: int | None = None
        self.captures = {BLACK: 0, WHITE: 0}
        self.passes = 0
        self.move_count = 0
        self.hash = 0
        self.last_move: int | None = None
        self.superko = superko
        self.seen: set[int] = {0}
        self._chain = [-1] * self.n
        self._stones: dict[int, tuple[int, ...]] = {}
        self._libs: dict[int, int] = {}
        self._bits = _bit_masks(size)[0]
        self._empty = _bit_masks(size)[1]
        self._next_id = 0
        self._nbrs = neighbours(size)
        self._zb, self._zw = zobrist_table(size)

    # ------------------------------------------------------------------ building
    @classmethod
    def from_ascii(cls, text: str, to_play: int = BLACK, superko: bool = True) -> "Position":
        """Build from rows of ``X`` (black), ``O`` (white), ``.`` (empty), top row first.

        Whitespace inside a row is ignored. Stones are placed as setup (no captures are
        made; a chain without liberties is refused)."""
        rows = ["".join(line.split()) for line in text.strip().splitlines() if line.strip()]
        size = len(rows)
        pos = cls(size, superko=superko, to_play=to_play)
        for r, row in enumerate(rows):
            if len(row) != size:
                raise ValueError(f"row {r + 1} has {len(row)} points, expected {size}")
            for c, ch in enumerate(row):
                if ch in "Xx#":
                    pos.place(r * size + c, BLACK)
                elif ch in "Oo":
                    pos.place(r * size + c, WHITE)
                elif ch not in ".+":
                    raise ValueError(f"unknown board character {ch!r} in row {r + 1}")
        pos.check_no_dead_chains()
        return pos

    def place(self, point: int, color: int) -> None:
        """Put a stone as setup (SGF AB/AW, handicap): no capture, no ko, no turn change.

        Setup starts a new superko history: only the position after it counts as seen.
        Not checked: that chains keep a liberty (call ``check_no_dead_chains``)."""
        if self.board[point] != EMPTY:
            raise IllegalMove(f"{to_gtp(point, self.size)} is occupied")
        self._put(point, color, capture=False)
        self.ko = None
        self.seen = {self.hash}

    def set_to_play(self, color: int) -> None:
        """Set the side to move (SGF PL, GTP genmove out of turn); clears the ko point."""
        if color not in (BLACK, WHITE):
            raise ValueError(f"{color!r} is not a colour")
        self.to_play = color
        self.ko = None

    def remove(self, point: int) -> None:
        """Take a stone away as setup (SGF AE). Chains are rebuilt."""
        if self.board[point] == EMPTY:
            return
        color = self.board[point]
        board = self.board[:]
        board[point] = EMPTY
        self._rebuild(board)
        self.hash ^= (self._zb if color == BLACK else self._zw)[point]
        self.ko = None
        self.seen = {self.hash}

    def check_no_dead_chains(self) -> None:
        """Raise ``ValueError`` if some chain has no liberty (an impossible setup)."""
        for cid, libs in self._libs.items():
            if not libs:
                p = self._stones[cid][0]
                raise ValueError(f"the chain at {to_gtp(p, self.size)} has no liberties")

    def _rebuild(self, board: list[int]) -> None:
        self.board = [EMPTY] * self.n
        self._chain = [-1] * self.n
        self._stones, self._libs = {}, {}
        self._empty = _bit_masks(self.size)[1]
        h = self.hash
        for p, color in enumerate(board):
            if color != EMPTY:
                self._put(p, color, capture=False)
        self.hash = h

    def copy(self) -> "Position":
        """An independent copy (chains, history and all)."""
        other = Position.__new__(Position)
        other.size, other.n, other.pass_point = self.size, self.n, self.pass_point
        other.board = self.board[:]
        other.to_play, other.ko = self.to_play, self.ko
        other.captures = dict(self.captures)
        other.passes, other.move_count = self.passes, self.move_count
        other.hash, other.last_move, other.superko = self.hash, self.last_move, self.superko
        other.seen = set(self.seen)
        other._chain = self._chain[:]
        other._stones = self._stones.copy()  # tuples and ints: shared, never changed in place
        other._libs = self._libs.copy()
        other._empty, other._next_id = self._empty, self._next_id
        other._nbrs, other._zb, other._zw, other._bits = self._nbrs, self._zb, self._zw, self._bits
        return other

    # ------------------------------------------------------------------ queries
    def chain_at(self, point: int) -> tuple[list[int], set[int]]:
        """(stones, liberties) of the chain at ``point``; raises ``KeyError`` if empty."""
        cid = self._chain[point]
        if cid < 0:
            raise KeyError(f"no stone at {to_gtp(point, self.size)}")
        return list(self._stones[cid]), _points(self._libs[cid])

    def chains(self) -> Iterator[tuple[list[int], set[int]]]:
        """``chain_at`` of every chain once, in the order of its first point (row-major)."""
        seen: set[int] = set()
        for p, cid in enumerate(self._chain):
            if cid >= 0 and cid not in seen:
                seen.add(cid)
                yield self.chain_at(p)

    def liberties(self, point: int) -> int:
        """Number of liberties of the chain at ``point`` (0 for an empty point)."""
        cid = self._chain[point]
        return self._libs[cid].bit_count() if cid >= 0 else 0

    def liberty_counts(self) -> list[int]:
        """Per point, the liberties of the chain there (0 where empty)."""
        counts = {cid: libs.bit_count() for cid, libs in self._libs.items()}
        counts[-1] = 0
        return list(map(counts.__getitem__, self._chain))

    def stones(self) -> np.ndarray:
        """The board as an int8 ``(size, size)`` array, row 0 at the top."""
        return np.array(self.board, dtype=np.int8).reshape(self.size, self.size)

    def key(self) -> int:
        """A 64-bit transposition key: stones, side to move and the simple-ko point."""
        return (self.hash ^ (0 if self.to_play == BLACK else 0x9E3779B97F4A7C15) ^ (
            0 if self.ko is None else (self.ko + 1) * 0x632BE59BD9B4E019)) & 0xFFFFFFFFFFFFFFFF

    def is_eye_like(self, point: int, color: int) -> bool:
        """True if ``point`` is empty, all neighbours are ``color`` and at most one
        diagonal (none on the edge) is held by the opponent: a point a sensible player
        never fills. Not a full eye test (false eyes in seki are not detected)."""
        board = self.board
        if board[point] != EMPTY:
            return False
        for q in self._nbrs[point]:
            if board[q] != color:
                return False
        size = self.size
        r, c = divmod(point, size)
        bad = 0
        edge = r == 0 or c == 0 or r == size - 1 or c == size - 1
        for dr, dc in ((-1, -1), (-1, 1), (1, -1), (1, 1)):
            rr, cc = r + dr, c + dc
            if 0 <= rr < size and 0 <= cc < size and board[rr * size + cc] == -color:
                bad += 1
        return bad == 0 if edge else bad <= 1

    # ------------------------------------------------------------------ legality
    def illegal_reason(self, point: int, color: int | None = None) -> str | None:
        """Why ``color`` (default: side to move) may not play ``point``, or ``None``.

        Reasons: ``"occupied"``, ``"ko"``, ``"suicide"``, ``"superko"``."""
        if point == self.pass_point:
            return None
        if color is None:
            color = self.to_play
        board = self.board
        if board[point] != EMPTY:
            return "occupied"
        if point == self.ko and color == self.to_play:
            return "ko"
        chain, libs = self._chain, self._libs
        captured: list[int] = []
        alive = False
        for q in self._nbrs[point]:
            v = board[q]
            if v == EMPTY:
                alive = True
            elif v == color:
                own = libs[chain[q]]
                if own & (own - 1):  # two liberties or more
                    alive = True
            else:
                cid = chain[q]
                theirs = libs[cid]
                if theirs and not theirs & (theirs - 1) and cid not in captured:  # exactly one
                    captured.append(cid)
        if captured:
            alive = True
        if not alive:
            return "suicide"
        if self.superko:
            zc = self._zb if color == BLACK else self._zw
            zo = self._zw if color == BLACK else self._zb
            h = self.hash ^ zc[point]
            for cid in captured:
                for s in self._stones[cid]:
                    h ^= zo[s]
            if h in self.seen:
                return "superko"
        return None

    def is_legal(self, point: int, color: int | None = None) -> bool:
        """True if the move is legal (pass always is)."""
        return self.illegal_reason(point, color) is None

    def legal_mask(self, color: int | None = None) -> np.ndarray:
        """Boolean vector of length ``size*size + 1``: legal points, then pass (True).
        A new array each call (the caller may change it)."""
        return _unpack_masks([self.legal_bits(color)], self.n)[0]

    def legal_moves(self, color: int | None = None) -> list[int]:
        """Legal points (pass excluded) for ``color`` (default: side to move), ascending."""
        return _points_list(self.legal_bits(color))

    def legal_bits(self, color: int | None = None) -> int:
        """The legal points (pass excluded) for ``color`` (default: side to move) as a
        bitset: bit ``p`` is set when ``illegal_reason(p, color)`` is ``None``.

        Whole-board rules on the bitsets: an empty point is playable when it has an
        empty neighbour, is a liberty of an own chain with two liberties or more, or is
        the last liberty of an opponent chain (a capture); then the ko point and, with
        superko, the moves that recreate a seen position are removed."""
        to_play = self.to_play
        if color is None:
            color = to_play
        board, stones, size = self.board, self._stones, self.size
        empty = self._empty
        _, full, not_first, not_last = _bit_masks(size)
        next_to_empty = (((empty << 1) & not_first) | ((empty >> 1) & not_last)
                         | ((empty << size) & full) | (empty >> size))
        own_safe = ataris = 0
        last_libs: list[tuple[int, int]] = []  # (lone liberty, chain) of opponent chains in atari
        for cid, libs in self._libs.items():
            if board[stones[cid][0]] == color:
                if libs & (libs - 1):
                    own_safe |= libs
            elif libs and not libs & (libs - 1):
                ataris |= libs
                last_libs.append((libs, cid))
        legal = empty & (next_to_empty | own_safe | ataris)
        if self.ko is not None and color == to_play:
            legal &= ~self._bits[self.ko]
        if not self.superko or not legal:
            return legal
        seen, h = self.seen, self.hash
        black = color == BLACK
        zc, zo = (self._zb, self._zw) if black else (self._zw, self._zb)
        if last_libs:
            after: dict[int, int] = {}  # capturing point's bit -> hash of the stones it takes
            for bit, cid in last_libs:
                x = after.get(bit, 0)
                for s in stones[cid]:
                    x ^= zo[s]
                after[bit] = x
            for bit, x in after.items():
                if legal & bit and h ^ zc[bit.bit_length() - 1] ^ x in seen:
                    legal ^= bit
        quiet = legal & ~ataris
        keys = _zobrist_points(size)
        if keys is not None and len(seen) < quiet.bit_count():
            # Fewer seen positions than candidates: look the candidates up by key.
            point_of = keys[0] if black else keys[1]
            bits = self._bits
            for old in seen:
                p = point_of.get(h ^ old)
                if p is not None and quiet & bits[p]:
                    legal ^= bits[p]
        else:
            while quiet:
                low = quiet & -quiet
                if h ^ zc[low.bit_length() - 1] in seen:
                    legal ^= low
                quiet ^= low
        return legal

    # ------------------------------------------------------------------ playing
    def play(self, point: int, color: int | None = None, check: bool = True) -> list[int]:
        """Play ``point`` (or pass) for ``color`` (default: side to move), in place.

        Returns the captured points. With ``check=False`` the caller vouches for
        legality (used after ``is_legal``). Raises ``IllegalMove`` otherwise."""
        if color is None:
            color = self.to_play
        if point == self.pass_point:
            self.passes += 1
            self.ko = None
            captured: list[int] = []
        else:
            if check:
                why = self.illegal_reason(point, color)
                if why is not None:
                    raise IllegalMove(f"illegal move {color_to_str(color)} {to_gtp(point, self.size)}: {why}")
            captured = self._put(point, color)
            self.captures[color] += len(captured)
            # Simple ko: a single stone that captured a single stone and has one liberty.
            self.ko = None
            if len(captured) == 1:
                cid = self._chain[point]
                if len(self._stones[cid]) == 1 and self._libs[cid].bit_count() == 1:
                    self.ko = captured[0]
            self.seen.add(self.hash)
            self.passes = 0
        self.to_play = -color
        self.move_count += 1
        self.last_move = point
        return captured

    def _put(self, point: int, color: int, capture: bool = True) -> list[int]:
        """Place a stone, merge chains, take liberties, remove dead opponent chains
        (unless ``capture`` is false: setup may leave chains without liberties)."""
        board, chain, libs, stones, bits = self.board, self._chain, self._libs, self._stones, self._bits
        nbrs = self._nbrs
        board[point] = color
        bit = bits[point]
        self.hash ^= (self._zb if color == BLACK else self._zw)[point]
        self._empty &= ~bit
        cid = self._next_id
        self._next_id += 1
        my_libs = 0  # the liberties of chain ``cid`` (written back at the end)
        chain[point] = cid
        stones[cid] = (point,)
        libs[cid] = 0
        dead: list[int] = []
        for q in nbrs[point]:
            v = board[q]
            if v == EMPTY:
                my_libs |= bits[q]
                continue
            other = chain[q]
            if v == color:
                if other == cid:
                    continue
                # Merge the smaller chain into the larger one.
                a, b = (cid, other) if len(stones[cid]) >= len(stones[other]) else (other, cid)
                for s in stones[b]:
                    chain[s] = a
                stones[a] = stones[a] + stones[b]
                my_libs |= libs[other]
                del stones[b], libs[b]
                cid = a
            else:
                ol = libs[other] & ~bit
                libs[other] = ol
                if not ol and capture and other not in dead:
                    dead.append(other)
        libs[cid] = my_libs & ~bit
        captured: list[int] = []
        if dead:
            zo = self._zw if color == BLACK else self._zb
            h = self.hash
            empty = self._empty
            for d in dead:
                for s in stones[d]:
                    board[s] = EMPTY
                    chain[s] = -1
                    h ^= zo[s]
                    empty |= bits[s]
                    captured.append(s)
                del stones[d], libs[d]
            self.hash = h
            self._empty = empty
            for s in captured:
                for q in nbrs[s]:
                    c = chain[q]
                    if c >= 0:
                        libs[c] |= bits[s]
        return captured

    # ------------------------------------------------------------------ display
    def __str__(self) -> str:
        return self.to_ascii()

    def to_ascii(self, coordinates: bool = False) -> str:
        """Rows of ``X``/``O``/``.``, top row first; with GTP coordinates if asked."""
        from gobuddy.go.coords import GTP_COLUMNS

        chars = {BLACK: "X", WHITE: "O", EMPTY: "."}
        lines = []
        for r in range(self.size):
            row = " ".join(chars[v] for v in self.board[r * self.size:(r + 1) * self.size])
            lines.append(f"{self.size - r:>2} {row}" if coordinates else row)
        if coordinates:
            lines.append("   " + " ".join(GTP_COLUMNS[: self.size]))
        return "\n".join(lines)


def _points(bits: int) -> set[int]:
    """The points of a bitset."""
    return set(_points_list(bits))


def legal_masks(positions: Sequence[Position]) -> np.ndarray:
    """``legal_mask()`` of each position (side to move, one board size) as the rows of
    one bool array ``[len(positions), size*size + 1]``, unpacked in one call. Not
    checked: that the sizes agree."""
    return _unpack_masks([p.legal_bits() for p in positions], positions[0].n)


def _unpack_masks(bitsets: list[int], n: int) -> np.ndarray:
    """Bitsets of ``n`` points as bool rows of ``n + 1`` (the last, pass, always True)."""
    width = (n + 8) // 8
    top = 1 << n
    packed = b"".join([(bits | top).to_bytes(width, "little") for bits in bitsets])
    rows = np.frombuffer(packed, dtype=np.uint8).reshape(len(bitsets), width)
    return np.unpackbits(rows, axis=1, count=n + 1, bitorder="little").view(np.bool_)


def _points_list(bits: int) -> list[int]:
    """The points of a bitset, ascending."""
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return out
