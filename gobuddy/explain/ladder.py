"""Reading a ladder: can a chain of one or two liberties be captured by ataris alone?

``read_ladder(pos, point, attacker_to_move)`` reads the chain at ``point``:

- the attacker (the chain's opponent) may only play ataris: with the chain at two
  liberties it tries each liberty, the one that leaves the defender fewer liberties
  after its extension first;
- the defender, its chain in atari, may extend at its liberty or capture any attacker
  chain in atari that touches it;
- the chain escapes once it has three liberties or more, and is captured when it is in
  atari with no move that gives it two or more.

This is exact for what it reads: a ladder breaker (a defender stone the chain runs
into), an attacker stone left in atari along the way, the edge, a capture that frees
the chain, all follow from playing the moves out. Not read: nets and other non-atari
attacks (``captured`` means "captured by ataris"; ``escapes`` means "ataris do not
capture it", not "safe"), counter-ataris elsewhere (ladder threats), and ko fights
beyond what the ko rule of ``Position`` refuses. Bounds: ``max_depth`` moves and
``budget`` positions; past either the answer is ``unknown``.

The answer's ``line`` for an escape follows the attacker's most forcing atari (the one
leaving the extension the fewest liberties: the way the ladder runs) and the
defender's way out of it; ``breaker``: a defender stone of the starting position that
the escaping chain reached on that line (the stone that breaks the ladder), else
``None``; ``captures_at``: the attacker stones the defender took on that line.
"""

from __future__ import annotations

from dataclasses import dataclass

from gobuddy.go.coords import EMPTY
from gobuddy.go.position import Position, neighbours

CAPTURED, ESCAPES, UNKNOWN = "captured", "escapes", "unknown"


@dataclass(frozen=True)
class LadderReading:
    """``result`` (``captured``, ``escapes``, ``unknown``); ``line``: the moves of the
    reading, alternating from whoever moved first (flat points); ``chases``: the
    attacker's ataris in it; ``breaker``, ``captures_at``: see the module docstring;
    ``nodes``: positions read."""

    result: str
    line: tuple[int, ...]
    chases: int
    breaker: int | None
    captures_at: tuple[int, ...]
    nodes: int


class _OutOfBudget(Exception):
    pass


class _Reader:
    def __init__(self, point: int, defender: int, max_depth: int, budget: int) -> None:
        self.point = point
        self.defender = defender
        self.attacker = -defender
        self.max_depth = max_depth
        self.budget = budget
        self.nodes = 0

    def _count(self) -> None:
        self.nodes += 1
        if self.nodes > self.budget:
            raise _OutOfBudget

    def defend(self, pos: Position, depth: int) -> tuple[str, tuple[int, ...]]:
        """The chain is in atari, the defender to move: (result, line)."""
        self._count()
        if depth >= self.max_depth:
            return UNKNOWN, ()
        stones, libs = pos.chain_at(self.point)
        options = set(libs)
        nbrs = neighbours(pos.size)
        for s in stones:
            for q in nbrs[s]:
                if pos.board[q] == self.attacker and pos.liberties(q) == 1:
                    options |= pos.chain_at(q)[1]
        longest: tuple[int, ...] = ()
        unknown = False
        for move in sorted(options):
            if pos.illegal_reason(move, self.defender) is not None:
                continue
            child = pos.copy()
            child.play(move, self.defender, check=False)
            libs_after = child.liberties(self.point)
            if libs_after >= 3:
                return ESCAPES, (move,)
            if libs_after <= 1:
                longest = max(longest, (move,), key=len)
                continue
            result, line = self.attack(child, depth + 1)
            if result == ESCAPES:
                return ESCAPES, (move, *line)
            if result == UNKNOWN:
                unknown = True
            else:
                longest = max(longest, (move, *line), key=len)
        if unknown:
            return UNKNOWN, ()
        return CAPTURED, longest

    def attack(self, pos: Position, depth: int) -> tuple[str, tuple[int, ...]]:
        """The chain has two liberties, the attacker to move: (result, line)."""
        self._count()
        if depth >= self.max_depth:
            return UNKNOWN, ()
        libs = sorted(pos.chain_at(self.point)[1])
        tries = []
        for move in libs:
            if pos.illegal_reason(move, self.attacker) is not None:
                continue
            child = pos.copy()
            child.play(move, self.attacker, check=False)
            if child.board[self.point] == EMPTY or child.liberties(self.point) != 1:
                continue
            # The defender's extension: how many liberties would it reach (fewer first).
            (other,) = child.chain_at(self.point)[1]
            room = sum(1 for q in neighbours(pos.size)[other] if child.board[q] == EMPTY)
            tries.append((room, move, child))
        unknown = False
        shown: tuple[int, ...] | None = None  # the escape's line: the most forcing try refuted
        for _, move, child in sorted(tries, key=lambda t: (t[0], t[1])):
            result, line = self.defend(child, depth + 1)
            if result == CAPTURED:
                return CAPTURED, (move, *line)
            unknown |= result == UNKNOWN
            if shown is None:
                shown = (move, *line)
        return (UNKNOWN, ()) if unknown else (ESCAPES, shown or ())


def read_ladder(pos: Position, point: int, attacker_to_move: bool, max_depth: int | None = None,
                budget: int = 20_000) -> LadderReading:
    """Read the chain at ``point`` (see the module docstring). With the attacker to move
    the chain must have two liberties, with the defender to move one; otherwise the
    answer is ``unknown`` at once (a chain of three liberties or more is no ladder).
    ``max_depth`` defaults to four times the board's side. ``pos`` is not changed."""
    if pos.board[point] == EMPTY:
        raise ValueError("read_ladder: no stone at that point")
    defender = pos.board[point]
    reader = _Reader(point, defender, max_depth or 4 * pos.size, budget)
    libs = pos.liberties(point)
    work = pos.copy()
    if libs != (2 if attacker_to_move else 1):
        return LadderReading(UNKNOWN, (), 0, None, (), 0)
    try:
        result, line = (reader.attack if attacker_to_move else reader.defend)(work, 0)
    except _OutOfBudget:
        return LadderReading(UNKNOWN, (), 0, None, (), reader.nodes)
    start_attacker = 0 if attacker_to_move else 1
    chases = len(line[start_attacker::2])
    breaker, captured = _escape_facts(pos, point, line, attacker_to_move) if result == ESCAPES else (None, ())
    return LadderReading(result, line, chases, breaker, captured, reader.nodes)


def _escape_facts(pos: Position, point: int, line: tuple[int, ...],
                  attacker_to_move: bool) -> tuple[int | None, tuple[int, ...]]:
    """Play ``line`` out: the starting defender stone the chain reached last, and the
    attacker stones the defender captured."""
    defender = pos.board[point]
    start_chain = set(pos.chain_at(point)[0])
    work = pos.copy()
    color = -defender if attacker_to_move else defender
    captured: list[int] = []
    for move in line:
        took = work.play(move, color, check=False)
        if color == defender:
            captured.extend(took)
        color = -color
    played = set(line)
    reached = [s for s in work.chain_at(point)[0]
               if s not in start_chain and s not in played and pos.board[s] == defender]
    breaker = None
    if reached:
        last = line[-1]
        size = pos.size
        breaker = min(reached, key=lambda s: (abs(s // size - last // size) + abs(s % size - last % size), s))
    return breaker, tuple(sorted(captured))
