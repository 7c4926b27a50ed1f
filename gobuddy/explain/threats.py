"""Ataris and escapes, read with the ladder reader (``gobuddy.explain.ladder``).

``threat_reasons(played)`` gives, for a move:

- two chains or more put in atari at once: ``atari`` "double atari" when every answer
  of the opponent leaves the mover stones to capture (read one move deep);
- for each opponent chain the move puts in atari, read with the defender to move:
  ``ladder`` "the ladder works" (captured after at least ``LADDER_CHASES`` ataris),
  ``ladder`` "the ladder does not work" with its breaker (it escapes after a chase),
  ``atari`` "cannot escape" (captured at once) or "can escape at X";
- for each own chain in atari before the move that no longer is after it: ``save``,
  unless it is left with two liberties and the opponent captures it in a ladder — then
  ``ladder`` against the move ("running does not save it: the ladder works");
- for the chain of the stone just played (not in atari, two liberties, not counted
  above): ``ladder`` against the move when the opponent can capture it in a ladder,
  ``atari`` against it when one atari is enough (it cannot escape at all).

A chain the opponent can capture at once is the business of ``captures``. Not read:
nets and other non-atari attacks (see ``ladder``).
"""

from __future__ import annotations

from gobuddy.explain.captures import takeable
from gobuddy.explain.ladder import CAPTURED, ESCAPES, read_ladder
from gobuddy.explain.played import (
    Chain, Played, chain, chains_next_to, color_word, group_name, stones_word, vertex, vertices)
from gobuddy.explain.reason import Reason, reason
from gobuddy.go.coords import EMPTY
from gobuddy.go.position import neighbours

LADDER_CHASES = 2  # ataris in a reading before a capture or an escape counts as a ladder


def _ladder_breaker_words(reading, size: int, them: str) -> str:
    if reading.breaker is not None:
        return f"the stone at {vertex(reading.breaker, size)} breaks it"
    if reading.captures_at:
        return f"{them} escapes by capturing at {vertices(reading.captures_at, size)}"
    return f"{them} escapes at {vertex(reading.line[-1], size)}"


def _double_atari(played: Played, targets: list[Chain]) -> Reason | None:
    """Two chains or more put in atari at once: read every answer of the opponent
    (extend one, or capture a stone next to one) and what the mover can take after
    it. A reason when every answer leaves stones to take (the least of them)."""
    after, them = played.after, played.opponent
    nbrs = neighbours(played.size)
    answers: set[int] = set()
    for c in targets:
        answers |= c.liberties
        for s in c.stones:
            for q in nbrs[s]:
                if after.board[q] == played.color and after.liberties(q) == 1:
                    answers |= after.chain_at(q)[1]
    gain = None
    for move in sorted(answers):
        if after.illegal_reason(move, them) is not None:
            continue
        trial = after.copy()
        trial.play(move, them, check=False)
        best = 0
        for c in targets:
            if trial.board[c.stones[0]] == them:
                took = takeable(trial, chain(trial, c.stones[0]), played.color)
                best = max(best, len(took[1])) if took is not None else best
        gain = best if gain is None else min(gain, best)
    if not gain:
        return None
    size = played.size
    where = vertices(sorted(p for c in targets for p in c.stones), size)
    return reason("atari", f"double atari on {where}: {color_word(them)} cannot save both, {color_word(played.color)} "
                  f"captures at least {stones_word(gain)}", f"double atari on {where}: {color_word(them)} cannot "
                  f"save both ({stones_word(gain)} at least)", tuple(p for c in targets for p in c.stones), gain,
                  good=True, bonus=8.0)


def _atari_reasons(played: Played) -> list[Reason]:
    size, me, them = played.size, color_word(played.color), color_word(played.opponent)
    out = []
    targets = [c for c in chains_next_to(played.after, played.move, played.opponent)
               if len(c.liberties) == 1 and played.before.liberties(c.stones[0]) >= 2]
    if len(targets) >= 2:
        double = _double_atari(played, targets)
        if double is not None:
            out.append(double)
    for c in targets:
        n, where = c.size, vertices(c.stones, size)
        the, it = ("the stone", "it") if n == 1 else (f"the {n} stones", "they")
        reading = read_ladder(played.after, c.stones[0], attacker_to_move=False)
        if reading.result == CAPTURED and reading.chases >= LADDER_CHASES:
            out.append(reason("ladder", f"the ladder works: {me} captures {the} at {where}",
                              f"works: {me} captures {stones_word(n)} at {where}", c.stones, n, good=True))
        elif reading.result == ESCAPES and reading.chases >= LADDER_CHASES - 1:
            why = _ladder_breaker_words(reading, size, them)
            first = (reading.breaker,) if reading.breaker is not None else ()
            out.append(reason("ladder", f"the ladder does not work: {why}", f"does not work: {why}",
                              (*first, *c.stones), n, good=False))
        elif reading.result == CAPTURED:
            out.append(reason("atari", f"ataris {the} at {where}; {it} cannot escape",
                              f"{stones_word(n)} at {where}, {it} cannot escape", c.stones, n, good=True))
        elif reading.result == ESCAPES:
            out.append(reason("atari", f"ataris {the} at {where}; {them} can escape at "
                              f"{vertex(reading.line[0], size)}",
                              f"{stones_word(n)} at {where}, {them} can escape at {vertex(reading.line[0], size)}",
                              c.stones, n, good=None, bonus=-n / 4))
        else:
            out.append(reason("atari", f"ataris {the} at {where}", f"{stones_word(n)} at {where}",
                              c.stones, n, good=None, bonus=-n / 4))
    return out


def _ladder_against(played: Played, c: Chain, saving: bool) -> Reason | None:
    """A ``ladder`` reason against the move when the opponent captures ``c`` (two
    liberties after the move) in a ladder; ``saving``: the move tried to save it."""
    if len(c.liberties) != 2:
        return None
    reading = read_ladder(played.after, c.stones[0], attacker_to_move=True)
    if reading.result != CAPTURED:
        return None
    size, them = played.size, color_word(played.opponent)
    name, start, n = group_name(c.stones, played.move, size), vertex(reading.line[0], size), stones_word(c.size)
    if reading.chases < LADDER_CHASES:  # caught at once: an atari it cannot escape, no ladder
        verb = "does not save" if saving else "leaves"
        return reason("atari", f"{verb} {name}: {them} ataris at {start} and it cannot escape ({n})",
                      f"{verb} {name}: {them} ataris at {start}, it cannot escape ({n})",
                      (*c.stones, reading.line[0]), c.size, good=False)
    if saving:
        text = f"does not save {name}: the ladder works, {them} captures {n} starting at {start}"
    else:
        text = f"{them} captures {name} in a ladder starting at {start} ({n})"
    return reason("ladder", text, f"works for {them}: {name} is captured from {start} ({n})",
                  (*c.stones, reading.line[0]), c.size, good=False)


def _save_reasons(played: Played) -> tuple[list[Reason], set[int]]:
    size = played.size
    out = []
    read: set[int] = set()
    seen: set[int] = set()
    for p, v in enumerate(played.before.board):
        if v != played.color or p in seen or played.before.liberties(p) != 1:
            continue
        old = chain(played.before, p)
        seen.update(old.stones)
        if played.after.board[p] == EMPTY or played.after.liberties(p) < 2:
            continue  # captured, or still in atari: ``captures`` tells
        now = chain(played.after, p)
        read.update(now.stones)
        against = _ladder_against(played, now, saving=True)
        if against is not None:
            out.append(against)
            continue
        how = "by capturing" if played.captured and set(played.captured) & _around(played, old) else "from atari"
        name = group_name(old.stones, played.move, size)
        out.append(reason("save", f"saves {name} {how} ({stones_word(old.size)})",
                          f"{name} {how} ({stones_word(old.size)})", (*old.stones, played.move), old.size,
                          good=True))
    return out, read


def _around(played: Played, c: Chain) -> set[int]:
    """The opponent stones next to ``c`` before the move."""
    nbrs = neighbours(played.size)
    return {q for s in c.stones for q in nbrs[s] if played.before.board[q] == played.opponent}


def threat_reasons(played: Played) -> list[Reason]:
    """Atari, ladder and save reasons of a move (see the module docstring)."""
    if played.is_pass:
        return []
    out = _atari_reasons(played)
    saves, read = _save_reasons(played)
    out += saves
    own = played.own_chain()
    if played.move not in read and len(own.liberties) == 2:
        against = _ladder_against(played, own, saving=False)
        if against is not None:
            out.append(against)
    return out
