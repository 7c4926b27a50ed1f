"""Who plays at the board: the names chosen on the dashboard for the board's next games.

The dashboard's ``set_players`` board command names the person at black and at white
(``None``: a guest). ``PlayerChoice`` keeps the names, also across a restart (a small
JSON file in the agent's data directory), and gives each new game's ``game_started``
its players: the chosen names, ``guest`` (``gobuddy.bus.game_events.GUEST``) for a side nobody
named, and the engine's side in a game against the engine. The choice stays for the
games after, until it is changed. Not checked here: that a name is a known player (the
recorder creates players by name); the wire schema bounds it.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

log = logging.getLogger("edge.players")

SIDES = ("B", "W")


class PlayerChoice:
    """The chosen names (``names``: ``{"B": name, "W": name}``, a side left out when
    nobody is named), stored in ``path``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.names: dict[str, str] = self._load()

    def choose(self, players: dict[str, str | None] | None) -> None:
        """Name the players of the next games (``None``, blank or a missing side: a guest;
        runs of white space become one space)."""
        self.names = {side: " ".join(name.split()) for side, name in (players or {}).items()
                      if side in SIDES and isinstance(name, str) and name.strip()}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.names), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError as exc:  # the choice still holds until a restart
            log.warning("the players chosen could not be kept in %s: %s", self.path, exc)

    def _load(self) -> dict[str, str]:
        try:
            stored = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("ignoring the players kept in %s: %s", self.path, exc)
            return {}
        if not isinstance(stored, dict):
            return {}
        return {side: name for side, name in stored.items()
                if side in SIDES and isinstance(name, str) and 0 < len(name) <= 64}
