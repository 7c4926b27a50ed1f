"""Moves the board did not show one at a time, told by the rules from what it shows now.

Pure functions for ``edge.reading.reconcile`` (no state, no I/O):

| function | the moves |
|---|---|
| ``read_around`` | none: masked points (``edge.sensing.faults``) read as last seen, or as the game has them once it changed there |
| ``masked_move_candidates`` | a stone on a masked point, told by the stones it captured or by the next stones, the other colour's first, in turn order |
| ``moves_in_order`` | 2 to 4 new stones the board showed in turn order (or across a gap in the frames) |

Each needs colours (colour sensing) to tell anything: under occupancy sensing a stone's
colour is the turn's, so the turn order proves nothing. Not checked here: whether the
caller may use them (the reconciler tries them only for a board no simpler reading
explains).
"""

from __future__ import annotations

from typing import Mapping, Sequence

from edge.reading.problems import BoardDiff
from gobuddy.go.coords import EMPTY
from gobuddy.go.position import Position


def read_around(board: tuple[int, ...], expected: Sequence[int], masked: frozenset[int],
                base: Mapping[int, int | None]) -> tuple[int, ...]:
    """``board`` with each masked point read as it was last seen (the class it keeps), or,
    where the game has changed since it was masked (``base``: what the game had there
    then, ``None`` once the game changed there), as the game has it now (``expected``)."""
    if not masked:
        return board
    return tuple(expected[p] if p in masked and expected[p] != base.get(p) else v for p, v in enumerate(board))


def masked_move_candidates(diff: BoardDiff, pos: Position, masked: frozenset[int],
                           since: Sequence[float] | None = None, slack: float = 0.0) -> list[int]:
    """The masked points where a move of the side to move explains ``diff``: its captures
    are what went (no new stone), or the new stones are the moves after it, in turn
    order (the other side's first; 2 to 4 of them only with ``since``, as
    ``moves_in_order`` reads them), legal in turn, with only their captures gone. The
    caller plays one only if it is the only one."""
    me = pos.to_play
    if diff.recoloured or not diff.added and not diff.removed:
        return []
    if len(diff.added) > (4 if since is not None else 1):
        return []
    gone = {q for q, _ in diff.removed}
    found = []
    for p in sorted(masked):
        if pos.board[p] != EMPTY or pos.illegal_reason(p) is not None:
            continue
        after = pos.copy()
        captured = set(after.play(p)) - masked
        if not diff.added:
            if captured and gone == captured:
                found.append(p)
            continue
        if not captured <= gone or diff.added[0][1] != -me and len(diff.added) == 1:
            continue
        rest = BoardDiff(diff.added, tuple((q, c) for q, c in diff.removed if q not in captured), (), diff.leftover)
        if len(diff.added) == 1:
            q = diff.added[0][0]
            if after.illegal_reason(q) is None and {x for x, _ in rest.removed} <= set(after.copy().play(q)):
                found.append(p)
        elif since is not None and moves_in_order(rest, after, since, slack) is not None:
            found.append(p)
    return found


def moves_in_order(diff: BoardDiff, pos: Position, since: Sequence[float], slack: float) -> list[int] | None:
    """The new stones of ``diff`` as moves, if the board showed them in turn order: each of
    the colour whose turn it is, each appeared (``since``: per point, when it last turned
    occupied) ``slack`` seconds before every later one (0 after a gap in the frames: then
    the colours give the order), each legal in turn, and only stones they capture gone;
    else ``None``."""
    if diff.recoloured or not 2 <= len(diff.added) <= 4:
        return None
    pos = pos.copy()
    left, order, captured = list(diff.added), [], set()
    while left:
        mine = [p for p, c in left if c == pos.to_play]
        if not mine:
            return None
        first = min(mine, key=lambda p: since[p])
        if any(since[first] > since[p] - slack for p, _ in left if p != first):
            return None
        if pos.illegal_reason(first) is not None:
            return None
        captured |= set(pos.play(first))
        order.append(first)
        left = [(p, c) for p, c in left if p != first]
    if {p for p, _ in diff.removed} | set(diff.leftover) <= captured - set(order):
        return order
    return None
