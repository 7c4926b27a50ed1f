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
when empty) and ``_stones[id]``/``_libs[id]`` hold its stones and liberties, so a move
costs work proportional to the chains it touches, never a flood fill of the board.
"""

from __future__ import annotations

import random
from functools import lru_cache

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
def zobrist_table(size: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Fixed 64-bit random keys per point for black and white (seeded: stable across runs)."""
    rng = random.Random(0x60B0DD1 + size)
    n = size * size
    black = tuple(rng.getrandbits(64) for _ in range(n))
    white = tuple(rng.getrandbits(64) for _ in range(n))
    return black, white


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
        "_libs", "_next_id", "_nbrs", "_zb", "_zw",
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
        self._stones: dict[int, list[int]] = {}
        self._libs: dict[int, set[int]] = {}
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
        other._stones = {k: v[:] for k, v in self._stones.items()}
        other._libs = {k: set(v) for k, v in self._libs.items()}
        other._next_id = self._next_id
        other._nbrs, other._zb, other._zw = self._nbrs, self._zb, self._zw
        return other

    # ------------------------------------------------------------------ queries
    def chain_at(self, point: int) -> tuple[list[int], set[int]]:
        """(stones, liberties) of the chain at ``point``; raises ``KeyError`` if empty."""
        cid = self._chain[point]
        if cid < 0:
            raise KeyError(f"no stone at {to_gtp(point, self.size)}")
        return list(self._stones[cid]), set(self._libs[cid])

    def liberties(self, point: int) -> int:
        """Number of liberties of the chain at ``point`` (0 for an empty point)."""
        cid = self._chain[point]
        return len(self._libs[cid]) if cid >= 0 else 0

    def liberty_counts(self) -> list[int]:
        """Per point, the liberties of the chain there (0 where empty)."""
        libs = self._libs
        return [len(libs[c]) if c >= 0 else 0 for c in self._chain]

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
                if len(libs[chain[q]]) > 1:
                    alive = True
            else:
                cid = chain[q]
                if len(libs[cid]) == 1 and cid not in captured:
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
        """Boolean vector of length ``size*size + 1``: legal points, then pass (True)."""
        mask = np.zeros(self.n + 1, dtype=bool)
        mask[self.n] = True
        reason = self.illegal_reason
        for p in range(self.n):
            if self.board[p] == EMPTY and reason(p, color) is None:
                mask[p] = True
        return mask

    def legal_moves(self, color: int | None = None) -> list[int]:
        """Legal points (pass excluded) for ``color`` (default: side to move)."""
        reason = self.illegal_reason
        return [p for p in range(self.n) if self.board[p] == EMPTY and reason(p, color) is None]

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
            self.to_play = -color
            self.move_count += 1
            self.last_move = point
            return []
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
            if len(self._stones[cid]) == 1 and len(self._libs[cid]) == 1:
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
        board, chain, libs, stones, nbrs = self.board, self._chain, self._libs, self._stones, self._nbrs
        board[point] = color
        self.hash ^= (self._zb if color == BLACK else self._zw)[point]
        cid = self._next_id
        self._next_id += 1
        my_stones = [point]
        my_libs: set[int] = set()
        chain[point] = cid
        stones[cid] = my_stones
        libs[cid] = my_libs
        dead: list[int] = []
        for q in nbrs[point]:
            v = board[q]
            if v == EMPTY:
                my_libs.add(q)
                continue
            other = chain[q]
            if v == color:
                if other == cid:
                    continue
                # Merge the smaller chain into the larger one.
                a, b = (cid, other) if len(stones[cid]) >= len(stones[other]) else (other, cid)
                for s in stones[b]:
                    chain[s] = a
                stones[a].extend(stones[b])
                libs[a] |= libs[b]
                del stones[b], libs[b]
                cid = a
                my_stones, my_libs = stones[a], libs[a]
            else:
                ol = libs[other]
                ol.discard(point)
                if not ol and capture and other not in dead:
                    dead.append(other)
        my_libs.discard(point)
        captured: list[int] = []
        if dead:
            zo = self._zw if color == BLACK else self._zb
            h = self.hash
            for d in dead:
                for s in stones[d]:
                    board[s] = EMPTY
                    chain[s] = -1
                    h ^= zo[s]
                    captured.append(s)
                del stones[d], libs[d]
            self.hash = h
            for s in captured:
                for q in nbrs[s]:
                    c = chain[q]
                    if c >= 0:
                        libs[c].add(s)
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
