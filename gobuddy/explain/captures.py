"""Captures, read one move deep for each side: what the move takes, and what the
opponent can take straight back.

``capture_reasons(played)`` gives, for a move:

- ``capture``: the stones it takes. Read on: when the opponent can then capture a
  bigger own group at once (a chain left in atari, or the capturing stones themselves),
  the sentence says so and the reason counts against the move ("captures 1 stone at
  E5, but white then captures 5 at ...");
- ``snapback`` against the move: it captured, and the opponent recaptures more by
  playing back where its stones were (the move walked into a snapback);
- ``snapback`` for the move: the stones just played can be captured, but the capture
  leaves the capturer in atari and the move's side takes back more, on the points
  where its stones were (a throw-in that is a snapback, not a self-atari);
- ``self-atari``: the opponent can capture the chain of the stone just played;
- ``atari`` against the move: an own chain that was in atari before the move still
  is, and the opponent can take it — only when it could have been saved (``savable``:
  extended or freed by a capture to two liberties or more, not caught by a ladder);
  stones that were lost anyway are not counted as lost by the move.

"The opponent can capture" means the capturing move is legal for it now (the ko rule
and superko are respected); nothing further is read here (ladders: ``threats``).
"""

from __future__ import annotations

from gobuddy.explain.played import (
    Chain, Played, chain, chains_of, color_word, group_name, stones_word, vertex, vertices)
from gobuddy.explain.ladder import CAPTURED, read_ladder
from gobuddy.explain.reason import Reason, reason
from gobuddy.go.coords import EMPTY
from gobuddy.go.position import Position, neighbours


def takeable(pos: Position, c: Chain, by: int) -> tuple[int, tuple[int, ...]] | None:
    """``(point, captured stones)`` if ``by`` can capture chain ``c`` at once in ``pos``
    (``by`` need not be the side to move: the ko point binds only the side to move)."""
    if len(c.liberties) != 1:
        return None
    (point,) = c.liberties
    if pos.illegal_reason(point, by) is not None:
        return None
    trial = pos.copy()
    taken = trial.play(point, by, check=False)
    return point, tuple(sorted(taken))


def savable(pos: Position, point: int) -> bool:
    """Can the owner of the chain at ``point`` (in atari), moving now, give it two
    liberties or more (extending, or capturing a stone next to it) without it being
    caught at once or in a ladder?"""
    owner = pos.board[point]
    stones, libs = pos.chain_at(point)
    tries = set(libs)
    nbrs = neighbours(pos.size)
    for s in stones:
        for q in nbrs[s]:
            if pos.board[q] == -owner and pos.liberties(q) == 1:
                tries |= pos.chain_at(q)[1]
    for move in tries:
        if pos.illegal_reason(move, owner) is not None:
            continue
        trial = pos.copy()
        trial.play(move, owner, check=False)
        n = trial.liberties(point)
        if n >= 3 or (n == 2 and read_ladder(trial, point, attacker_to_move=True).result != CAPTURED):
            return True
    return False


def _exposed(played: Played) -> list[tuple[Chain, int, tuple[int, ...]]]:
    """Own chains the opponent can capture right after the move, the biggest first:
    ``(chain, capturing point, stones taken)``. A chain that was in atari before and
    could not have been saved anyway is left out: leaving it is no loss."""
    out = []
    for c in chains_of(played.after, played.color):
        if len(c.liberties) == 1:
            if played.move not in c.stones and not savable(played.before, c.stones[0]):
                continue
            took = takeable(played.after, c, played.opponent)
            if took is not None:
                out.append((c, took[0], took[1]))
    return sorted(out, key=lambda e: -len(e[2]))


def _snapback_for(played: Played, point: int, taken: tuple[int, ...]) -> tuple[int, tuple[int, ...]] | None:
    """After the opponent captures the move's chain at ``point`` (taking ``taken``), can
    the move's side capture more, playing on one of the ``taken`` points?"""
    trial = played.after.copy()
    trial.play(point, played.opponent, check=False)
    capturer = chain(trial, point)
    took = takeable(trial, capturer, played.color)
    if took is None or took[0] not in taken or len(took[1]) <= len(taken):
        return None
    return took


def capture_reasons(played: Played) -> list[Reason]:
    """The capture, self-atari, snapback and neglected-atari reasons of a move (see the
    module docstring)."""
    if played.is_pass:
        return []
    size, me, them = played.size, color_word(played.color), color_word(played.opponent)
    out: list[Reason] = []
    exposed = _exposed(played)
    own = played.own_chain()
    took_back = next((e for e in exposed if played.move in e[0].stones), None)
    lost = exposed[0] if exposed else None
    k = len(played.captured)
    if k:
        where = vertices(played.captured, size)
        if took_back is not None and took_back[1] in played.captured and len(took_back[2]) > k:
            out.append(reason(
                "snapback", f"captures {stones_word(k)} at {where}, but walks into a snapback: {them} captures "
                f"{len(took_back[2])} at {vertex(took_back[1], size)}",
                f"walks into it: {them} captures {len(took_back[2])} at {vertex(took_back[1], size)}",
                (took_back[1], *took_back[2]), len(took_back[2]), good=False))
        elif lost is not None and len(lost[2]) > k:
            out.append(reason(
                "capture", f"captures {stones_word(k)} at {where}, but {them} then captures {len(lost[2])} at "
                f"{vertex(lost[1], size)}", f"{stones_word(k)} at {where}, but loses {len(lost[2])} "
                f"({them} captures at {vertex(lost[1], size)})",
                (*played.captured, lost[1]), k, good=False, bonus=len(lost[2]) / 2))
        else:
            out.append(reason("capture", f"captures {stones_word(k)} at {where}", f"{stones_word(k)} at {where}",
                              played.captured, k, good=True))
    if took_back is not None and not (k and took_back[1] in played.captured and len(took_back[2]) > k):
        _, point, taken = took_back
        snap = _snapback_for(played, point, taken) if not k else None
        if snap is not None:
            out.append(reason(
                "snapback", f"snapback: if {them} captures at {vertex(point, size)}, {me} captures "
                f"{len(snap[1])} at {vertex(snap[0], size)}",
                f"if {them} captures at {vertex(point, size)}, {me} captures {len(snap[1])} at "
                f"{vertex(snap[0], size)}", (snap[0], *snap[1]), len(snap[1]), good=True))
        else:
            net_loss = len(taken) > k
            out.append(reason(
                "self-atari", f"self-atari: {them} captures {len(taken)} at {vertex(point, size)}",
                f"{them} captures {len(taken)} at {vertex(point, size)}", (point, *own.stones), len(taken),
                good=False if net_loss else None))
    for c, point, taken in exposed:
        if played.move in c.stones or not _was_in_atari(played, c):
            continue
        out.append(reason(
            "atari", f"leaves {group_name(c.stones, played.move, size)} in atari: {them} captures "
            f"{len(taken)} at {vertex(point, size)}",
            f"leaves {group_name(c.stones, played.move, size)} in atari ({them} captures {len(taken)} at "
            f"{vertex(point, size)})", (*c.stones, point), len(taken), good=False))
    return out


def _was_in_atari(played: Played, c: Chain) -> bool:
    p = c.stones[0]
    return played.before.board[p] != EMPTY and played.before.liberties(p) == 1
