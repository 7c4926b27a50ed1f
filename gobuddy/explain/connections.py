"""Connections and cuts: which chains the move joins or keeps apart.

``connection_reasons(played)``:

- ``connection``: the move joins two or more own chains. It counts for more when the
  opponent could have cut there (a legal point for it whose stone would not be
  capturable at once) and the chains shared no other liberty;
- ``cut``: the move touches two or more opponent chains that, after it, share no
  liberty (they cannot join in one move), and the cutting chain has two liberties or
  more. Whether the cutting stones survive a longer attack is read by ``threats``
  (a ladder) and judged by the network (``judgement``), not here.

Not read: connections through a capture or under the opponent's ataris (a "hanging"
connection is a connection only by reading; it is not called one here).
"""

from __future__ import annotations

from itertools import combinations

from gobuddy.explain.played import Played, chains_next_to, color_word, nearest, stones_word, vertex
from gobuddy.explain.reason import Reason, reason


def _anchors(chains, move: int, size: int) -> str:
    """``D5 and F5``: one stone of each chain (the nearest the move), in GTP order."""
    anchors = sorted((nearest(c.stones, move, size) for c in chains), key=lambda p: (p % size, -(p // size)))
    names = [vertex(p, size) for p in anchors]
    return ", ".join(names[:-1]) + " and " + names[-1]


def connection_reasons(played: Played) -> list[Reason]:
    """The connection and cut reasons of a move (see the module docstring)."""
    if played.is_pass:
        return []
    size, move = played.size, played.move
    out: list[Reason] = []
    own = chains_next_to(played.before, move, played.color)
    if len(own) >= 2:
        shared_elsewhere = any((a.liberties & b.liberties) - {move} for a, b in combinations(own, 2))
        cuttable = _cut_point_for_opponent(played)
        total = played.own_chain().size
        bonus = (4.0 if cuttable else 0.0) + (2.0 if not shared_elsewhere else 0.0)
        out.append(reason("connection", f"connects the groups at {_anchors(own, move, size)} "
                          f"({stones_word(total)})",
                          f"the groups at {_anchors(own, move, size)} ({stones_word(total)})",
                          (move, *sorted(p for c in own for p in c.stones)), total,
                          good=True if cuttable else None, bonus=bonus - 6.0 * (not cuttable)))
    theirs = chains_next_to(played.before, move, played.opponent)
    if len(theirs) >= 2 and len(played.own_chain().liberties) >= 2:
        survivors = [c for c in chains_next_to(played.after, move, played.opponent)]
        apart = [(a, b) for a, b in combinations(survivors, 2) if not a.liberties & b.liberties]
        if apart:
            cut = sorted({id(c): c for pair in apart for c in pair}.values(), key=lambda c: -c.size)
            n = sum(c.size for c in cut)
            out.append(reason("cut", f"cuts the {color_word(played.opponent)} groups at "
                              f"{_anchors(cut, move, size)} apart ({stones_word(n)})",
                              f"the {color_word(played.opponent)} groups at {_anchors(cut, move, size)} apart",
                              (move, *sorted(p for c in cut for p in c.stones)), n, good=True))
    return out


def _cut_point_for_opponent(played: Played) -> bool:
    """Could the opponent have played the move's point, its stone not capturable at once?"""
    before = played.before
    if before.illegal_reason(played.move, played.opponent) is not None:
        return False
    trial = before.copy()
    trial.play(played.move, played.opponent, check=False)
    return trial.liberties(played.move) >= 2
