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

from typing import Iterable, Iterator, Sequence

import numpy as np

from gobuddy.go.coords import BLACK, WHITE
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
                 legals: Sequence[np.ndarray] | None = None, dtype: type = np.float32) -> np.ndarray:
    """Planes ``[batch, NUM_PLANES, size, size]`` for positions of one board size.

    The per-position work is reading the board, liberty counts and legal mask; the
    planes themselves are built with vectorised numpy over the whole batch. Pass
    ``dtype=np.uint8`` for compact training shards. Raises ``ValueError`` on mixed
    board sizes or a history board of the wrong length."""
    count = len(positions)
    if count == 0:
        raise ValueError("encode_batch needs at least one position")
    size = positions[0].size
    n = size * size
    boards = np.empty((count, 1 + HISTORY_DEPTH, n), dtype=np.int8)
    libs = np.empty((count, n), dtype=np.int16)
    legal = np.empty((count, n), dtype=bool)
    to_play = np.empty(count, dtype=np.int8)
    ko = np.full(count, -1, dtype=np.int64)
    last = np.full(count, -1, dtype=np.int64)
    passed = np.zeros(count, dtype=bool)
    for i, pos in enumerate(positions):
        if pos.size != size:
            raise ValueError(f"encode_batch got a {pos.size}x{pos.size} position among {size}x{size} ones")
        boards[i, 0] = pos.board
        history = histories[i] if histories is not None else ()
        for h in range(HISTORY_DEPTH):
            if h < len(history):
                if len(history[h]) != n:
                    raise ValueError(f"history board {h} has {len(history[h])} points, expected {n}")
                boards[i, 1 + h] = history[h]
            else:
                boards[i, 1 + h] = boards[i, h]
        libs[i] = pos.liberty_counts()
        mask = legals[i] if legals is not None else pos.legal_mask()
        legal[i] = mask[:n]
        to_play[i] = pos.to_play
        if pos.ko is not None:
            ko[i] = pos.ko
        if pos.last_move is not None:
            if pos.last_move == n:
                passed[i] = True
            else:
                last[i] = pos.last_move
    rel = boards * to_play[:, None, None]  # +1 own, -1 opp
    out = np.zeros((count, NUM_PLANES, n), dtype=dtype)
    own, opp = rel == 1, rel == -1
    out[:, 0:6:2] = own
    out[:, 1:6:2] = opp
    now_own, now_opp = own[:, 0], opp[:, 0]
    out[:, 6] = now_own & (libs == 1)
    out[:, 7] = now_own & (libs == 2)
    out[:, 8] = now_own & (libs >= 3)
    out[:, 9] = now_opp & (libs == 1)
    out[:, 10] = now_opp & (libs == 2)
    out[:, 11] = now_opp & (libs >= 3)
    out[:, 12] = legal
    rows = np.arange(count)
    has_ko = ko >= 0
    out[rows[has_ko], 13, ko[has_ko]] = 1
    has_last = last >= 0
    out[rows[has_last], 14, last[has_last]] = 1
    out[:, 15] = passed[:, None]
    out[:, 16] = (to_play == BLACK)[:, None]
    out[:, 17] = 1
    return out.reshape(count, NUM_PLANES, size, size)


def position_with_history(size: int, moves: Iterable[tuple[int, int]], setup_black: Iterable[int] = (),
                          setup_white: Iterable[int] = (), first_to_play: int = BLACK,
                          superko: bool = True) -> tuple[Position, History]:
    """The position after setup stones and ``(colour, point)`` moves (pass allowed,
    colours need not alternate), with its history. Raises ``IllegalMove`` naming the
    move, ``ValueError`` for a setup chain without liberties."""
    pos = Position(size, superko=superko, to_play=first_to_play)
    for p in setup_black:
        pos.place(p, BLACK)
    for p in setup_white:
        pos.place(p, WHITE)
    pos.check_no_dead_chains()
    pos.seen = {pos.hash}  # superko history starts from the finished setup
    history: History = ()
    for color, point in moves:
        board = board_array(pos)
        pos.play(point, color)
        history = push_history(history, board)
    return pos, history


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
