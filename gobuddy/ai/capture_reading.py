"""Reading whether a chain can be captured: a small exact search for finished positions.

``read_capture(pos, point, attacker_first)`` asks: can the opponent of the chain at
``point`` (the *attacker*) capture it, the chain's owner (the *defender*) resisting?
It is a three-valued AND/OR search: the attacker must move (an attacker pass only
lets the defender pass and end the game alive, so it is never tried); the defender may
pass. The chain counts as captured the moment its ``point`` is empty.

Only *enclosed* chains are read: every liberty in a small empty region (at most
``SMALL_REGION`` points: eye space, shared liberties); a chain with a liberty in open
space is ``unknown`` at once. Moves considered, recomputed at every node, are points of
small empty regions only:
- both sides: the chain's liberties and the rest of the small regions they lie in
  (points freed by a capture join in);
- the defender also: the liberty of an attacker chain next to it in atari (a capture,
  wherever that liberty lies: capturing out into open space saves the chain), the
  liberties in small regions of attacker chains next to it with at most
  ``SHORT_LIBERTIES`` liberties (a capturing race), and pass;
- the attacker also: the liberty of its own chain next to the target in atari
  (saving it, wherever that liberty lies).
Sacrifices (self-atari, even of many stones) are tried, after the other moves. A
defender that captures its way into open space (no small region left to play in) is
therefore safe.

Answers: ``captured`` (proved within the local moves), ``safe`` (no local attack
works, which includes seki), ``unknown`` (not enclosed, more than ``max_liberties``
liberties, or the node ``budget`` or ``max_depth`` ran out).

Not checked: moves outside the local set (an attack from afar, a defence by capturing
a distant chain), ko threats (a ko is simply played out under positional superko),
graph-history interaction in the transposition table (results are stored by position
key, whatever the path). Meant for the stable groups of a finished game, not for
fights in open areas.
"""

from __future__ import annotations

from dataclasses import dataclass

from gobuddy.go.coords import EMPTY
from gobuddy.go.position import Position, neighbours

CAPTURED, SAFE, UNKNOWN = "captured", "safe", "unknown"
SMALL_REGION = 6  # an empty region of at most this many points touching the chain is read whole
SHORT_LIBERTIES = 3  # attacker chains next to the target with this few liberties may be attacked
_WIN, _LOSS, _OPEN = 1, -1, 0  # from the attacker's side


@dataclass(frozen=True)
class Reading:
    """The answer: ``result`` (``captured``, ``safe``, ``unknown``), ``line`` (the
    moves of a line that proves it, flat points, pass = ``size * size``; empty when
    unknown) and ``nodes`` searched. ``sacrifice`` is true when the attacker's proving
    line puts two or more of its own stones in atari (a sacrifice random playouts
    that avoid self-atari never try)."""

    result: str
    line: tuple[int, ...]
    nodes: int
    sacrifice: bool = False


class _Budget(Exception):
    pass


class _Reader:
    def __init__(self, pos: Position, point: int, budget: int, max_depth: int) -> None:
        self.point = point
        self.defender = pos.board[point]
        self.attacker = -self.defender
        self.budget = budget
        self.max_depth = max_depth
        self.nodes = 0
        self.nbrs = neighbours(pos.size)
        self.table: dict[tuple[int, bool], tuple[int, tuple[int, ...], bool]] = {}

    def _region_is_small(self, pos: Position, point: int, memo: dict[int, bool]) -> bool:
        """True if the empty region around ``point`` has at most ``SMALL_REGION`` points."""
        if point in memo:
            return memo[point]
        board = pos.board
        region = [point]
        seen = {point}
        i = 0
        while i < len(region) and len(region) <= SMALL_REGION:
            for q in self.nbrs[region[i]]:
                if board[q] == EMPTY and q not in seen:
                    seen.add(q)
                    region.append(q)
            i += 1
        small = len(region) <= SMALL_REGION
        for q in seen if small else (point,):
            memo[q] = small
        return small

    def _candidates(self, pos: Position, attacker: bool) -> list[int]:
        stones, libs = pos.chain_at(self.point)
        memo: dict[int, bool] = {}
        moves = {p for p in libs if self._region_is_small(pos, p, memo)}
        board = pos.board
        frontier = list(moves)
        while frontier:  # the whole of each small region touching the chain
            p = frontier.pop()
            for q in self.nbrs[p]:
                if board[q] == EMPTY and q not in moves:
                    moves.add(q)
                    frontier.append(q)
        seen: set[int] = set()
        for s in stones:
            for q in self.nbrs[s]:
                if board[q] == self.attacker and q not in seen:
                    chain, theirs = pos.chain_at(q)
                    seen.update(chain)
                    if len(theirs) == 1:  # a capture, or saving a chain in atari: wherever it is
                        moves |= theirs
                    elif not attacker and len(theirs) <= SHORT_LIBERTIES:
                        moves |= {p for p in theirs if self._region_is_small(pos, p, memo)}
        return sorted(moves)

    def enclosed(self, pos: Position) -> bool:
        """True if every liberty of the chain lies in a small empty region."""
        memo: dict[int, bool] = {}
        return all(self._region_is_small(pos, p, memo) for p in pos.chain_at(self.point)[1])

    def _children(self, pos: Position, attacker: bool) -> list[tuple[tuple[int, int], int, Position, bool]]:
        colour = self.attacker if attacker else self.defender
        out = []
        for m in self._candidates(pos, attacker):
            if pos.illegal_reason(m, colour) is not None:
                continue
            child = pos.copy()
            child.play(m, colour, check=False)
            if child.board[self.point] == EMPTY:
                return [((-1, 0), m, child, False)]  # a capture ends the search: try it alone
            own = child.liberties(m)
            sacrifice = own == 1 and len(child.chain_at(m)[0]) >= 2
            target = child.liberties(self.point)
            order = (target, -own) if attacker else (-target, -own)
            out.append((order, m, child, sacrifice))
        out.sort(key=lambda c: c[0])
        return out

    def _node(self, pos: Position, depth: int, attacker: bool) -> tuple[int, tuple[int, ...], bool]:
        """(value, proving line, the line has a sacrifice), the attacker or the defender to move."""
        key = (pos.key(), attacker)
        known = self.table.get(key)
        if known is not None:
            return known
        self.nodes += 1
        if self.nodes > self.budget:
            raise _Budget
        if depth >= self.max_depth:
            return _OPEN, (), False
        best = (_LOSS if attacker else _WIN, (), False)
        unsettled = False
        if not attacker:  # the defender's pass first: in a seki it is the answer
            passed = pos.copy()
            passed.play(pos.pass_point, self.defender, check=False)
            value, line, sac = self._node(passed, depth + 1, True)
            if value == _LOSS:
                self.table[key] = (_LOSS, (pos.pass_point, *line), False)
                return self.table[key]
            unsettled |= value == _OPEN
            if value == _WIN:
                best = (_WIN, (pos.pass_point, *line), sac)
        for _, move, child, sacrifice in self._children(pos, attacker):
            if child.board[self.point] == EMPTY:
                value, line, sac = _WIN, (), False
            else:
                value, line, sac = self._node(child, depth + 1, not attacker)
            if value == (_WIN if attacker else _LOSS):  # the side to move wins by this move
                self.table[key] = (value, (move, *line), attacker and (sac or sacrifice))
                return self.table[key]
            unsettled |= value == _OPEN
        if unsettled:
            return _OPEN, (), False
        self.table[key] = best
        return best


def read_capture(pos: Position, point: int, attacker_first: bool = True, budget: int = 20_000,
                 max_depth: int = 40, max_liberties: int = 8) -> Reading:
    """Can the chain at ``point`` be captured (see the module doc)? ``attacker_first``
    says who moves first; ``pos`` is not changed (its superko history is kept)."""
    if pos.board[point] == EMPTY:
        raise ValueError("no stone at that point")
    reader = _Reader(pos, point, budget, max_depth)
    if pos.liberties(point) > max_liberties or not reader.enclosed(pos):
        return Reading(UNKNOWN, (), 0)
    work = pos.copy()
    work.set_to_play(reader.attacker if attacker_first else reader.defender)
    try:
        value, line, sacrifice = reader._node(work, 0, attacker_first)
    except _Budget:
        return Reading(UNKNOWN, (), reader.nodes)
    if value == _OPEN:
        return Reading(UNKNOWN, (), reader.nodes)
    return Reading(CAPTURED if value == _WIN else SAFE, line, reader.nodes, sacrifice and value == _WIN)


__all__ = ["CAPTURED", "SAFE", "UNKNOWN", "Reading", "read_capture"]
