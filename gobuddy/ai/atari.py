"""Ataris read with the rules engine: which own chains are in atari, and which move
saves one (for the weak levels of ``gobuddy.ai.levels``, which must always answer a
plain atari when saving works).

A chain in atari (one liberty) can be saved two ways: by extending on its liberty, or
by capturing an opponent chain next to it that is itself in atari. A saving move
*works* when afterwards the chain has three liberties or more, or two and the
opponent cannot capture it in a ladder (``ladder_captures``: the attacker keeps
playing atari, the defender extends or captures an atari-ing chain, read to the end
or to ``max_nodes``).

Not read: nets (geta) and other non-ladder captures of a two-liberty chain, loose
ladders, ko (a capture that is a ko recapture counts like any other), snapbacks
after the save. An unfinished reading counts as escaped: the level then tries the
save, as a human would.
"""

from __future__ import annotations

from dataclasses import dataclass

from gobuddy.go.coords import EMPTY
from gobuddy.go.position import Position, neighbours

MAX_LADDER_NODES = 400  # reading budget of one ladder (a 9x9 ladder is a few dozen nodes)


@dataclass(frozen=True)
class Rescue:
    """A move that saves the chain at ``chain`` (any of its stones) from atari:
    ``move`` (flat point), ``stones`` (size of the chain saved), ``liberties`` after
    the move."""

    chain: int
    move: int
    stones: int
    liberties: int


def chains_in_atari(pos: Position, color: int) -> list[tuple[list[int], int]]:
    """``color``'s chains with exactly one liberty: ``(stones, the liberty)``, each once,
    the biggest first."""
    found = [(stones, next(iter(libs))) for stones, libs in pos.chains()
             if len(libs) == 1 and pos.board[stones[0]] == color]
    found.sort(key=lambda item: (-len(item[0]), item[0][0]))
    return found


def _capturing_moves(pos: Position, stones: list[int], color: int) -> set[int]:
    """Liberties of opponent chains in atari that touch ``stones``."""
    out = set()
    nbrs = neighbours(pos.size)
    for s in stones:
        for q in nbrs[s]:
            if pos.board[q] == -color:
                chain, libs = pos.chain_at(q)
                if len(libs) == 1:
                    out.add(next(iter(libs)))
    return out


def ladder_captures(pos: Position, point: int, max_nodes: int = MAX_LADDER_NODES) -> bool:
    """True if the opponent of the chain at ``point``, moving first, captures it by a
    ladder (atari after atari). The chain must have two liberties or fewer; ``pos`` is
    not changed. Budget exhausted: ``False`` (not proven)."""
    budget = [max_nodes]
    color = pos.board[point]
    if color == EMPTY:
        raise ValueError("no stone at that point")
    return _attack(pos, point, color, budget)


def _attack(pos: Position, point: int, color: int, budget: list[int]) -> bool:
    libs = pos.chain_at(point)[1]
    if len(libs) == 1:
        lib = next(iter(libs))
        return pos.illegal_reason(lib, -color) is None
    if len(libs) != 2:
        return False
    for lib in sorted(libs):
        budget[0] -= 1
        if budget[0] < 0:
            return False
        if pos.illegal_reason(lib, -color) is not None:
            continue
        trial = pos.copy()
        trial.play(lib, -color)
        if trial.board[point] == EMPTY:  # cannot happen (the chain had two liberties) but be safe
            return True
        if trial.liberties(lib) == 1:  # a self-atari the defender just captures
            continue
        if not _defend(trial, point, color, budget):
            return True
    return False


def _defend(pos: Position, point: int, color: int, budget: list[int]) -> bool:
    """The chain at ``point`` is in atari, its owner to move: True if it escapes."""
    stones, libs = pos.chain_at(point)
    if len(libs) != 1:
        return True
    moves = sorted(_capturing_moves(pos, stones, color)) + [next(iter(libs))]
    for move in moves:
        budget[0] -= 1
        if budget[0] < 0:
            return True  # unfinished: not proven captured
        if pos.illegal_reason(move, color) is not None:
            continue
        trial = pos.copy()
        trial.play(move, color)
        n = trial.liberties(point)
        if n >= 3:
            return True
        if n == 2 and not _attack(trial, point, color, budget):
            return True
    return False


def rescues(pos: Position, color: int) -> list[Rescue]:
    """Moves that save a chain of ``color`` from atari (see the module doc), for every
    chain in atari, the biggest chain first (for one chain: more liberties first)."""
    out = []
    for stones, lib in chains_in_atari(pos, color):
        options = []
        for move in sorted(_capturing_moves(pos, stones, color) | {lib}):
            if pos.illegal_reason(move, color) is not None:
                continue
            trial = pos.copy()
            trial.play(move, color, check=False)
            n = trial.liberties(stones[0])
            if n >= 3 or (n == 2 and not ladder_captures(trial, stones[0])):
                options.append(Rescue(stones[0], move, len(stones), n))
        options.sort(key=lambda r: -r.liberties)
        out.extend(options)
    return out


def answers_atari(pos: Position, color: int, last_move: int | None) -> list[Rescue]:
    """``rescues`` of the chains that ``last_move`` (the opponent's) put in atari: the
    chains in atari that touch it. Empty when the last move was a pass or none."""
    if last_move is None or last_move >= pos.n or pos.board[last_move] != -color:
        return []
    touching = {q for q in neighbours(pos.size)[last_move] if pos.board[q] == color}
    out = []
    for rescue in rescues(pos, color):
        chain = set(pos.chain_at(rescue.chain)[0])
        if chain & touching:
            out.append(rescue)
    return out


__all__ = ["Rescue", "answers_atari", "chains_in_atari", "ladder_captures", "rescues"]
