"""What every model player adds to the GTP front end: ``lz-analyze``, ``kgs-genmove_cleanup``
and a ``boardsize`` that refuses sizes the model does not play.

``register_player(engine, player)`` registers them on a ``GtpEngine``
(``engine_worker.gtp_engine``) for a ``SearchPlayer`` or a ``LevelPlayer`` (``gobuddy.ai``):
``lz-analyze`` for whichever has a search (a level without one offers none), the rest for
both. ``lz-analyze [colour] [interval]`` streams Leela Zero's ``info move ...`` lines every
``interval`` centiseconds (default 100) from the player's own search tree, up to the
player's ``analyze_max_visits``, until the next command arrives.

Not here: how moves are chosen (``gobuddy.ai.player``, ``gobuddy.ai.levels``).
"""

from __future__ import annotations

import math
from typing import Any

from engine_worker.gtp_engine import arguments, color_arg, int_arg
from engine_worker.gtp_shell import GtpError
from gobuddy.ai.player import SearchPlayer
from gobuddy.go.coords import CoordinateError, color_from_str, to_gtp


def register_player(engine: Any, player: Any) -> None:
    """Register the player's commands on ``engine`` (see the module docstring); a change
    of board size also clears the player's search tree."""
    searcher: SearchPlayer | None = player if isinstance(player, SearchPlayer) else getattr(player, "search", None)
    if searcher is not None:
        engine.shell.register("lz-analyze", lambda args, stream: lz_analyze(searcher, engine.game, args, stream),
                              streaming=True)

    def cleanup(args: list[str]) -> str:
        color = color_arg(arguments(args, 1)[0])
        move = engine.clocked(color, player.cleanup_genmove)
        engine.play(color, move)
        return to_gtp(move, engine.game.size)

    def boardsize(args: list[str]) -> None:
        if len(args) == 1 and args[0].isdigit() and int(args[0]) not in player.evaluator.board_sizes:
            raise GtpError("unacceptable size")
        engine.cmd_boardsize(args)
        if searcher is not None:
            searcher.search.clear()

    engine.shell.register("kgs-genmove_cleanup", cleanup)
    engine.shell.register("boardsize", boardsize)


def lz_analyze(player: SearchPlayer, game: Any, args: list[str], stream: Any) -> None:
    """Serve ``lz-analyze [colour] [interval]`` on an ``engine_worker.gtp_shell.Stream``."""
    color = None
    interval = 100
    rest = list(args)
    if rest:
        try:
            color = color_from_str(rest[0])
            rest = rest[1:]
        except CoordinateError:
            pass
    if len(rest) > 1:
        raise GtpError("syntax error")
    if rest:
        interval = max(1, int_arg(rest[0]))
    try:
        player.prepare(game, color)
    except ValueError as exc:
        raise GtpError(str(exc)) from None
    stopper = _StreamStop(stream)
    cap = player.config.analyze_max_visits
    search = player.search
    while True:
        if search.root.visits < cap:
            search.run(visits=cap, seconds=interval / 100.0, stop=stopper)
        elif stream.wait(interval / 100.0):
            stopper.seen = True
        line = info_line(search)
        if line:
            stream.write(line)
        if stopper.is_set():
            return


def info_line(search: Any) -> str:
    """The search's root as one ``lz-analyze`` line (empty before any visit)."""
    root = search.root
    if root is None or not root.expanded:
        return ""
    size = root.position.size
    parts = []
    order = 0
    for i in search.ranked():
        n = int(round(root.N[i]))
        if n < 1:
            break
        w = min(1.0, max(0.0, (search.child_q(root, i) + 1.0) / 2.0))
        lcb = max(0.0, w - 1.96 * math.sqrt(w * (1.0 - w) / n))
        pv = " ".join(to_gtp(m, size) for m in search.pv(root, i))
        parts.append(f"info move {to_gtp(int(root.moves[i]), size)} visits {n} winrate {int(w * 10000)} "
                     f"prior {int(root.prior_raw[i] * 10000)} lcb {int(lcb * 10000)} order {order} pv {pv}")
        order += 1
    return " ".join(parts)


class _StreamStop:
    """A stop signal that turns true once the GTP stream has more input waiting."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.seen = False

    def is_set(self) -> bool:
        if not self.seen and self.stream.interrupted():
            self.seen = True
        return self.seen
