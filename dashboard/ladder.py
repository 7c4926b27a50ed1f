"""The adaptive difficulty ladder: a person's opponent level follows their results.

Pure functions, no I/O. A level is a name from an ordered list, weakest first
(``gobuddy.ai.levels.level_names()`` where that module exists, else a list the caller
passes). The rule, one game at a time, against an engine playing at level L:

| the person's result | their level after the game           |
|---------------------|--------------------------------------|
| win                 | the level above L (the strongest stays) |
| loss                | the level below L (the weakest stays)   |
| draw (jigo)         | L                                    |
| no result           | unchanged (nothing is recorded)      |

The step starts from the level played, not from the level stored before, so a level
chosen by hand (the override on the Play page) counts as played. A game against an
engine whose level is not known (its name names no level) or against a person does
not move the ladder. A newcomer has no level; ``suggested_level`` offers the weakest
until the first game.

One ladder per board size: a 9x9 level says little about 13x13. The main ladder is
9x9 (``MAIN_SIZE``, where the levels are calibrated), kept on the player; another size's
level is the last step of the player's games of that size, and a first game of a size
starts from the main level (``store.players.level_of``).

How an engine player's level is known: its name carries it ("gobuddy 15 kyu",
"gobuddy (15 kyu)" or just "15 kyu"; ``level_in_name``). The Play page and the
boards name the engine player that way in ``game_started``.
"""

from __future__ import annotations

import re
from typing import Sequence

OUTCOMES = ("win", "loss", "draw")
MAIN_SIZE = 9  # the board size of ``players.level``: the levels are calibrated on 9x9


def default_levels() -> list[str] | None:
    """The engine's level names, weakest first, from ``gobuddy.ai.levels`` (None when
    that module is not there: callers then pass their own list)."""
    try:
        from gobuddy.ai.levels import level_names
    except ImportError:
        return None
    return list(level_names())


def outcome(result: str | None, color: str) -> str | None:
    """``win``/``loss``/``draw`` for the player of ``color`` ("B"/"W") from a result such
    as ``B+3.5``, ``W+R``, ``0`` or ``Draw``; None when there is no result (or one that
    names no winner, such as ``Void``)."""
    if not result:
        return None
    head = result[:2].upper()
    if head in ("B+", "W+"):
        return "win" if head[0] == color else "loss"
    text = result.strip().casefold()
    return "draw" if text in ("0", "jigo") or text.startswith("draw") else None


def step(levels: Sequence[str], played: str, result: str) -> str:
    """The level after a game at ``played`` with the person's ``result`` (see the
    table). ``KeyError`` for a level not in ``levels``, ``ValueError`` for a result
    not in ``OUTCOMES``."""
    if played not in levels:
        raise KeyError(f"no level {played!r}; the levels are: {', '.join(levels)}")
    if result not in OUTCOMES:
        raise ValueError(f"result must be one of {OUTCOMES}, got {result!r}")
    i = list(levels).index(played)
    if result == "win":
        i = min(i + 1, len(levels) - 1)
    elif result == "loss":
        i = max(i - 1, 0)
    return levels[i]


def level_in_name(name: str | None, levels: Sequence[str]) -> str | None:
    """The level an engine player's name carries (case and spaces ignored; the level
    must stand as words: "15 kyu" is not found in "115 kyu"); the longest match wins."""
    if not name:
        return None
    text = " ".join(name.split()).casefold()
    for level in sorted(levels, key=len, reverse=True):
        pattern = r"(?:^|[\s(\[:/-])" + re.escape(" ".join(level.split()).casefold()) + r"(?:$|[\s)\]])"
        if re.search(pattern, text):
            return level
    return None


def engine_player_name(level: str, engine: str = "gobuddy") -> str:
    """The name an engine player at ``level`` goes by in ``game_started`` ("gobuddy 15
    kyu"): the name that ``level_in_name`` reads the level back from."""
    return f"{engine} {level}"


def suggested_level(current: str | None, levels: Sequence[str]) -> str | None:
    """The level to offer before a game: the person's level, or the weakest for a
    newcomer (None when there are no levels)."""
    if current in levels:
        return current
    return levels[0] if levels else None
