"""Network input features: the one definition used by training and serving alike.

A network input is a ``Position`` plus a short *history*: the boards before it, most
recent first, as flat int8 arrays (``np.array(position.board, np.int8)``, black = 1,
white = -1). ``HISTORY_DEPTH`` previous boards are used; missing ones (game start,
setup positions, positions built with ``from_ascii``) are filled with the oldest board
available, the current one if there is none, so "no history" reads as "nothing moved".

Planes (``FEATURE_VERSION`` 1, ``NUM_PLANES`` = 18, each ``size x size``, row 0 at the
top, all 0/1). "own" is the side to move, "opp" the other side, in every plane:

| plane | meaning                                                          |
|-------|------------------------------------------------------------------|
| 0     | own stones                                                       |
| 1     | opp stones                                                       |
| 2     | own stones one move ago (the board before the last move)         |
| 3     | opp stones one move ago                                          |
| 4     | own stones two moves ago                                         |
| 5     | opp stones two moves ago                                         |
| 6     | own stones in chains with 1 liberty                              |
| 7     | own stones in chains with 2 liberties                            |
| 8     | own stones in chains with 3 or more liberties                    |
| 9     | opp stones in chains with 1 liberty                              |
| 10    | opp stones in chains with 2 liberties                            |
| 11    | opp stones in chains with 3 or more liberties                    |
| 12    | legal moves for the side to move (superko included if enabled)   |
| 13    | the simple-ko point the side to move may not take back           |
| 14    | the last move (empty after a pass or at the start)               |
| 15    | all ones if the last move was a pass                             |
| 16    | all ones if black is to move                                     |
| 17    | all ones (marks the board inside the convolution's zero padding) |

Komi is not an input: a model is trained for one komi (``gobuddy.komi`` in its
metadata, see ``MODEL_CONTRACT.md``). Not checked here: that the history really
precedes the position (any int8 boards of the right length are accepted).
"""

from __future__ import annotations

import struct
from itertools import chain
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from gobuddy.go.coords import BLACK
from gobuddy.go.position import Position

FEATURE_VERSION = 1
NUM_PLANES = 18
HISTORY_DEPTH = 2

History = tuple[np.ndarray, ...]
"""Previous boards, most recent first: flat int8 arrays of ``size * size``."""

PLANE_NAMES = (
    "own", "opp", "own_1", "opp_1", "own_2", "opp_2",
    "own_libs_1", "own_libs_2", "own_libs_3plus", "opp_libs_1", "opp_libs_2", "opp_libs_3plus",
    "legal", "ko", "last_move", "last_was_pass", "black_to_move", "ones",
)
assert len(PLANE_NAMES) == NUM_PLANES


def board_array(position: Position) -> np.ndarray:
    """The stones of ``position`` as a flat int8 array (the unit of ``History``)."""
    return np.array(position.board, dtype=np.int8)


def push_history(history: History, board: np.ndarray, depth: int = HISTORY_DEPTH) -> History:
    """The history after a move from the position whose board is ``board``."""
    return (board,) + tuple(history[: depth - 1])


def encode(position: Position, history: History = (), legal: np.ndarray | None = None) -> np.ndarray:
    """Planes ``[NUM_PLANES, size, size]`` float32 for one position.

    ``legal`` (bool, ``size*size + 1``, as ``Position.legal_mask``) is computed when not
    given."""
    return encode_batch([position], [history], None if legal is None else [legal])[0]


def encode_batch(positions: Sequence[Position], histories: Sequence[History] | None = None,
                 legals: Sequence[np.ndarray] | np.ndarray | None = None, dtype: type = np.float32,
                 boards: Sequence[np.ndarray] | None = None) -> np.ndarray:
    """Planes ``[batch, NUM_PLANES, size, size]`` for positions of one board size.

    ``legals``: each position's ``Position.legal_mask()`` (a list of them or one
    ``[batch, size*size + 1]`` array), computed when not given; ``boards``: each
    position's ``board_array(position)``, read from the positions when not given. The
    per-position work is reading liberty counts and scalars into Python lists; they
    become arrays in one conversion each and the planes are built with vectorised
    numpy over the whole batch. Pass ``dtype=np.uint8`` for compact training shards.
    Raises ``ValueError`` on mixed board sizes or a history board of the wrong length.
    Not checked: the legal masks' and given boards' lengths and contents."""
    count = len(positions)
    if count == 0:
        raise ValueError("encode_batch needs at least one position")
    size = positions[0].size
    n = size * size
    current: list = []  # the boards now: lists (from the positions) or int8 arrays (given)
    past: list = []  # HISTORY_DEPTH boards per position, missing ones repeated (module docstring)
    libs: list[list[int]] = []
    to_play: list[int] = []
    marks: list[tuple[int, int, int]] = []  # (row, plane, point) set to 1: ko and last move
    planes_on: list[tuple[int, int]] = []   # (row, plane) all ones: last was pass, black to move
    for i, pos in enumerate(positions):
        if pos.size != size:
            raise ValueError(f"encode_batch got a {pos.size}x{pos.size} position among {size}x{size} ones")
        board = pos.board if boards is None else boards[i]
        current.append(board)
        history = histories[i] if histories is not None else ()
        for h in range(HISTORY_DEPTH):
            if h < len(history):
                board = history[h]
                if len(board) != n:
                    raise ValueError(f"history board {h} has {len(board)} points, expected {n}")
            past.append(board)
        libs.append(pos.liberty_counts())
        to_play.append(pos.to_play)
        if pos.to_play == BLACK:
            planes_on.append((i, 16))
        if pos.ko is not None:
            marks.append((i, 13, pos.ko))
        if pos.last_move == n:
            planes_on.append((i, 15))
        elif pos.last_move is not None:
            marks.append((i, 14, pos.last_move))
    if legals is None:
        legals = [pos.legal_mask() for pos in positions]
    stones = np.empty((count, 1 + HISTORY_DEPTH, n), dtype=np.int8)
    stones[:, 0] = _int8_rows(current, n) if boards is None else np.array(current, dtype=np.int8)
    stones[:, 1:] = np.array(past, dtype=np.int8).reshape(count, HISTORY_DEPTH, n)
    rel = stones * np.array(to_play, dtype=np.int8)[:, None, None]  # +1 own, -1 opp
    out = np.zeros((count, NUM_PLANES, n), dtype=dtype)
    # planes 0-5: own, opp of the board now, one and two moves ago
    out[:, 0:6] = (rel[:, :, None, :] == _OWN_OPP).reshape(count, 6, n)
    # planes 6-11: +k for own stones in chains of k liberties (3 = three or more), -k opp
    chains = _liberty_classes(libs, n) * rel[:, 0]
    out[:, 6:12] = chains[:, None, :] == _LIBERTY_CODES
    out[:, 12] = np.asarray(legals)[:, :n]
    if marks:
        rows, planes, points = zip(*marks)
        out[rows, planes, points] = 1
    if planes_on:
        rows, planes = zip(*planes_on)
        out[rows, planes] = 1
    out[:, 17] = 1
    return out.reshape(count, NUM_PLANES, size, size)


_OWN_OPP = np.array([1, -1], dtype=np.int8)[None, None, :, None]
_LIBERTY_CODES = np.array([1, 2, 3, -1, -2, -3], dtype=np.int8)[None, :, None]


def _int8_rows(rows: list[list[int]], n: int) -> np.ndarray:
    """Equal-length lists of small ints as an int8 ``[len(rows), n]`` array (one
    ``struct`` pack: several times faster than ``np.array`` on lists)."""
    packed = struct.pack(f"{len(rows) * n}b", *chain.from_iterable(rows))
    return np.frombuffer(packed, dtype=np.int8).reshape(len(rows), n)


def _liberty_classes(rows: list[list[int]], n: int) -> np.ndarray:
    """Liberty counts clamped to 3 (0 empty, 1, 2, 3 = three or more) as an int8
    ``[len(rows), n]`` array: through bytes when every count fits one (a chain has
    fewer liberties than the board has points), else through int16."""
    if n <= 256:
        packed = b"".join(map(bytes, rows)).translate(_CLAMP_TO_3)
        return np.frombuffer(packed, dtype=np.int8).reshape(len(rows), n)
    return np.minimum(np.array(rows, dtype=np.int16), 3).astype(np.int8)


_CLAMP_TO_3 = bytes(min(b, 3) for b in range(256))


def game_history(game: Any) -> History:
    """The history of a ``gobuddy.go.game.Game``'s current position: the boards before
    its last ``HISTORY_DEPTH`` moves, most recent first (no replay: the game keeps them)."""
    n = game.move_number
    return tuple(np.array(game.board_after(k), dtype=np.int8) for k in range(n - 1, max(-1, n - 1 - HISTORY_DEPTH), -1))


def replay(size: int, moves: Iterable[int], start: Position | None = None,
           superko: bool = True) -> Iterator[tuple[Position, History, int]]:
    """Walk a game: yield ``(position, history, move)`` before each move, then play it.

    ``moves`` are flat indices (pass = ``size*size``), colours alternate from the start
    position (``start`` if given, e.g. after handicap setup, else an empty
    board). The yielded position is a copy the caller may keep. Raises ``IllegalMove``
    on an illegal move."""
    pos = start.copy() if start is not None else Position(size, superko=superko)
    history: History = ()
    for move in moves:
        yield pos.copy(), history, move
        history = push_history(history, board_array(pos))
        pos.play(move)
