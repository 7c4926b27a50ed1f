"""Ko: taking it and filling it.

``ko_reasons(played)``:

- ``ko`` "takes the ko at X": the move captured one stone and the position's ko point
  is now set (the opponent may not take back at once);
- ``ko`` "fills the ko at X": before the move, an own lone stone in atari whose only
  liberty is the move could have been taken by the opponent as a ko (its capturing
  stone would stand alone with one liberty, where the taken stone was); the move
  connects instead.

Not told: ko threats (what a move threatens elsewhere) and who wins a ko fight.
"""

from __future__ import annotations

from gobuddy.explain.played import Played, chains_next_to, vertex
from gobuddy.explain.reason import Reason, reason


def ko_reasons(played: Played) -> list[Reason]:
    """The ko reasons of a move (see the module docstring)."""
    if played.is_pass:
        return []
    size, move = played.size, played.move
    out: list[Reason] = []
    if played.after.ko is not None and len(played.captured) == 1:
        out.append(reason("ko", f"takes the ko at {vertex(move, size)}", f"takes the ko at {vertex(move, size)}",
                          (move, played.after.ko), 1, good=True))
    for c in chains_next_to(played.before, move, played.color):
        if c.size != 1 or c.liberties != {move}:
            continue
        trial = played.before.copy()
        trial.set_to_play(played.opponent)
        if trial.illegal_reason(move, played.opponent) not in (None, "superko"):
            continue
        taken = trial.play(move, played.opponent, check=False)
        if taken == [c.stones[0]] and trial.liberties(move) == 1 and len(trial.chain_at(move)[0]) == 1:
            out.append(reason("ko", f"fills the ko at {vertex(move, size)}", f"fills the ko at {vertex(move, size)}",
                              (move, c.stones[0]), 1, good=True))
            break
    return out
