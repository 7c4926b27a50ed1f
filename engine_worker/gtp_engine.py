"""The engine side of GTP: the standard commands on the game being played.

The game is a ``gobuddy.go.game.Game`` (the one definition of a game: setup, moves, the
derived position, undo by replay); ``boardsize``, ``clear_board``, the handicap
commands and ``loadsgf`` replace it with a new one. ``GtpEngine`` registers the
standard GTP 2 commands and the GNU Go extensions the project relies on
(``list_stones``, ``captures``, ``printsgf``, ``loadsgf``) on a ``GtpShell``; a
``Player`` answers ``genmove``/``reg_genmove``. To add a command, register it on
``engine.shell`` (see ``engine_worker.gtp_shell``); to change how moves are chosen, pass
another ``Player``.

Error messages use the specification's wording (``syntax error``, ``illegal move``,
``unacceptable size``, ``cannot undo``, ``board not empty``, ``invalid number of
stones``, ``bad vertex list``, ``cannot load file``); ``loadsgf`` and ``printsgf``
explain a failure on standard error, and ``loadsgf`` names there each repair it made
to a file it loaded (``gobuddy.go.sgf``: text around the game, repeated properties,
setup after the root, a second game left out...). ``final_score``/``final_status_list`` exist only
when a ``final_status`` judge is given (the front end gives
``gobuddy.ai.final_status.judge``, the one decision of dead stones that the Play page
uses too); the count is ``gobuddy.go.scoring.area_score`` without the stones it calls
dead.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Protocol

from gobuddy.go.coords import (
    BLACK, EMPTY, GTP_COLUMNS, MAX_SIZE, MIN_SIZE, WHITE, CoordinateError, color_from_str,
    from_gtp, to_gtp)
from gobuddy.go.game import RESIGN, Game
from engine_worker.gtp_clock import Clock
from engine_worker.gtp_shell import GtpError, GtpShell
from gobuddy.go.handicap import HandicapError, fixed_handicap_points, free_handicap_points
from gobuddy.go.position import IllegalMove, Position
from gobuddy.go.scoring import area_score
from gobuddy.go.sgf import dump_sgf, read_sgf

_KEPT_INFO = ("rules", "black", "white", "black_rank", "white_rank", "result", "date", "place",
              "event", "game_name")


class FinalStatus(Protocol):
    """A judge's verdicts on a finished position (``gobuddy.ai.final_status.FinalStatus``)."""

    def dead_points(self) -> list[int]: ...

    def listed(self, status: str) -> list[list[int]]: ...


class Player(Protocol):
    """Chooses moves for ``genmove``: a flat point, ``game.pass_point`` to pass, or
    ``RESIGN``. It must not change ``game``; the engine plays the move. ``max_seconds``:
    the most the move may take by the game's clock (``engine_worker.gtp_clock``; ``None``:
    no limit beyond the player's own budget)."""

    def genmove(self, game: Game, color: int, max_seconds: float | None = None) -> int: ...


class GtpEngine:
    """The standard GTP commands over a ``Game``, served by ``self.shell`` (see the module
    docstring). Registering a standard command's name again replaces it; its ``cmd_*``
    method stays available to delegate to."""

    def __init__(self, player: Player, game: Game | None = None, name: str = "Go Learning Buddy",
                 version: str | None = None,
                 final_status: Callable[[Position], FinalStatus] | None = None) -> None:
        self.player = player
        self.game = game if game is not None else Game()
        self.clock = Clock()
        self.info: dict[str, object] = {}  # game information kept from loadsgf, for printsgf
        self.name = name
        self.version_text = version
        self.final_status = final_status
        self.shell = GtpShell()
        commands: dict[str, Callable] = {
            "protocol_version": lambda a: "2",
            "name": lambda a: self.name,
            "version": self.cmd_version,
            "known_command": lambda a: "true" if self.shell.known(arguments(a, 1)[0]) else "false",
            "list_commands": lambda a: "\n".join(self.shell.commands()),
            "quit": self.cmd_quit,
            "boardsize": self.cmd_boardsize,
            "clear_board": lambda a: self._new_game(self.game.size),
            "komi": self.cmd_komi,
            "play": self.cmd_play,
            "genmove": lambda a: self.cmd_genmove(a, play=True),
            "reg_genmove": lambda a: self.cmd_genmove(a, play=False),
            "undo": self.cmd_undo,
            "showboard": lambda a: "\n" + self.board_text(),
            "fixed_handicap": lambda a: self.cmd_handicap(a, fixed_handicap_points),
            "place_free_handicap": lambda a: self.cmd_handicap(a, free_handicap_points),
            "set_free_handicap": self.cmd_set_free_handicap,
            "time_settings": self.cmd_time_settings,
            "kgs-time_settings": self.cmd_kgs_time_settings,
            "time_left": self.cmd_time_left,
            "final_score": self.cmd_final_score,
            "final_status_list": self.cmd_final_status_list,
            "loadsgf": self.cmd_loadsgf,
            "printsgf": self.cmd_printsgf,
            "list_stones": self.cmd_list_stones,
            "captures": lambda a: str(self.game.position.captures[color_arg(arguments(a, 1)[0])]),
        }
        if final_status is None:
            del commands["final_score"], commands["final_status_list"]
        for command, fn in commands.items():
            self.shell.register(command, fn)

    # ------------------------------------------------------------ commands
    def cmd_version(self, args: list[str]) -> str:
        if self.version_text is None:
            from importlib.metadata import PackageNotFoundError, version

            try:
                self.version_text = version("gobuddy")
            except PackageNotFoundError:
                self.version_text = "unknown"
        return self.version_text

    def cmd_quit(self, args: list[str]) -> str:
        self.shell.stop()
        return ""

    def cmd_boardsize(self, args: list[str]) -> None:
        size = int_arg(arguments(args, 1)[0])
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise GtpError("unacceptable size")
        self._new_game(size)

    def _new_game(self, size: int, **start: object) -> None:
        """An empty board of ``size`` (komi and ko rule kept; ``start``: setup fields)."""
        self.game = Game(size, self.game.ruleset, **start)  # type: ignore[arg-type]
        self.info = {}
        self.clock.reset()

    def cmd_komi(self, args: list[str]) -> None:
        self.game.ruleset = replace(self.game.ruleset, komi=float_arg(arguments(args, 1)[0]))

    def play(self, color: int, point: int) -> None:
        """Play a move on the game (``IllegalMove`` if the rules forbid it); a result
        loaded from a file no longer describes the game."""
        self.game.play(point, color)
        self.game.result = None
        self.info.pop("result", None)

    def cmd_play(self, args: list[str]) -> None:
        color_text, vertex = arguments(args, 2)
        color, point = color_arg(color_text), vertex_arg(vertex, self.game.size)
        try:
            self.play(color, point)
        except IllegalMove:
            raise GtpError("illegal move") from None

    def cmd_genmove(self, args: list[str], play: bool) -> str:
        color = color_arg(arguments(args, 1)[0])
        move = self.clocked(color, self.player.genmove, spend=play)
        if move == RESIGN:
            return "resign"
        if play:
            self.play(color, move)  # an illegal choice is the player's bug: internal error
        return to_gtp(move, self.game.size)

    def cmd_undo(self, args: list[str]) -> None:
        if not self.game.moves:
            raise GtpError("cannot undo")
        self.game.undo()

    def cmd_handicap(self, args: list[str], placement: Callable[[int, int], list[int]]) -> str:
        stones = int_arg(arguments(args, 1)[0])
        if not self.game.is_empty():
            raise GtpError("board not empty")
        try:
            points = placement(self.game.size, stones)
        except HandicapError:
            raise GtpError("invalid number of stones") from None
        self._handicap(points)
        return " ".join(to_gtp(p, self.game.size) for p in points)

    def _handicap(self, points: list[int]) -> None:
        """Black stones on the empty board; white moves next."""
        self._new_game(self.game.size, setup_black=tuple(points), first_to_play=WHITE, handicap=len(points))

    def cmd_set_free_handicap(self, args: list[str]) -> None:
        points = [vertex_arg(v, self.game.size) for v in args]
        size = self.game.size
        if not self.game.is_empty():
            raise GtpError("board not empty")
        if (len(points) < 2 or len(points) > size * size - 1 or len(set(points)) != len(points)
                or size * size in points):
            raise GtpError("bad vertex list")
        self._handicap(points)

    def clocked(self, color: int, choose: Callable[..., int], spend: bool = True) -> int:
        """``choose(game, color, max_seconds=...)`` under the clock's allowance; with
        ``spend`` (a move that is played) the time it took runs ``color``'s clock down."""
        started = time.monotonic()
        move = choose(self.game, color, max_seconds=self.allowance(color))
        if spend:
            self.clock.spent(color, time.monotonic() - started)
        return move

    def allowance(self, color: int) -> float | None:
        """The most seconds ``color``'s next move may take by the clock (``None``: no limit)."""
        pos = self.game.position
        return self.clock.allowance(color, sum(1 for p in range(pos.n) if pos.board[p] == EMPTY))

    def cmd_time_settings(self, args: list[str]) -> None:
        main, byo, stones = (int_arg(a) for a in arguments(args, 3))
        self._set_clock(main, byo, stones)

    def cmd_kgs_time_settings(self, args: list[str]) -> None:
        """KGS's time systems: ``none``, ``absolute MAIN``, ``canadian MAIN BYO STONES``,
        and ``byoyomi MAIN PERIOD PERIODS`` (Japanese; ``engine_worker.gtp_clock``)."""
        if not args:
            raise GtpError("syntax error")
        system, rest = args[0].lower(), args[1:]
        if system == "none":
            arguments(rest, 0)
            self._set_clock(0, 1, 0)
        elif system == "absolute":
            self._set_clock(int_arg(arguments(rest, 1)[0]), 0, 0)
        elif system == "canadian":
            main, byo, stones = (int_arg(a) for a in arguments(rest, 3))
            self._set_clock(main, byo, stones)
        elif system == "byoyomi":
            main, period, periods = (int_arg(a) for a in arguments(rest, 3))
            if periods > 0 and period > 0:
                self._set_clock(main, period, 1, periods)
            else:
                self._set_clock(main, 0, 0)
        else:
            raise GtpError("syntax error")

    def _set_clock(self, main: int, byo: int, stones: int, periods: int = 0) -> None:
        try:
            self.clock = Clock(main, byo, stones, periods)
        except ValueError:
            raise GtpError("syntax error") from None

    def cmd_time_left(self, args: list[str]) -> None:
        color_text, seconds, stones = arguments(args, 3)
        try:
            self.clock.set_left(color_arg(color_text), int_arg(seconds), int_arg(stones))
        except ValueError:
            raise GtpError("syntax error") from None

    def cmd_final_score(self, args: list[str]) -> str:
        pos = self.game.position
        return area_score(pos, self.game.komi, self.final_status(pos).dead_points()).result

    def cmd_final_status_list(self, args: list[str]) -> str:
        which = arguments(args, 1)[0]
        if which not in ("alive", "dead", "seki"):
            raise GtpError("syntax error")
        status = self.final_status(self.game.position)
        size = self.game.size
        return "\n".join(" ".join(to_gtp(p, size) for p in chain) for chain in status.listed(which))

    def cmd_loadsgf(self, args: list[str]) -> None:
        if not 1 <= len(args) <= 2:
            raise GtpError("syntax error")
        until = int_arg(args[1]) if len(args) == 2 else None
        if until is not None and until < 1:
            raise GtpError("syntax error")
        try:
            with open(args[0], "rb") as f:
                record, warnings = read_sgf(f.read()).first()
            notes = [str(w) for w in warnings] + self.load(record, until)
        except (OSError, ValueError) as exc:
            print(f"loadsgf {args[0]}: {exc}", file=sys.stderr)
            raise GtpError("cannot load file") from None
        for note in notes:
            print(f"loadsgf {args[0]}: repaired: {note}", file=sys.stderr)

    def cmd_printsgf(self, args: list[str]) -> str:
        if len(args) > 1:
            raise GtpError("syntax error")
        text = dump_sgf(self.game.record(**{**self.info, "rules": self.info.get("rules") or "chinese",
                                            "result": self.game.result}))
        if not args:
            return text
        try:
            with open(args[0], "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as exc:
            print(f"printsgf {args[0]}: {exc}", file=sys.stderr)
            raise GtpError("cannot write file") from None
        return ""

    def cmd_list_stones(self, args: list[str]) -> str:
        color = color_arg(arguments(args, 1)[0])
        size = self.game.size
        return " ".join(to_gtp(p, size) for p, v in enumerate(self.game.position.board) if v == color)

    def load(self, record: object, until: int | None = None) -> list[str]:
        """Replace the game by ``record``'s main line before move ``until`` (``Game.
        from_record``: the engine's komi from the file, its own ko rule); return the notes
        on what was repaired. Raises ``GameError``; the game is unchanged on failure."""
        info = record.info  # type: ignore[attr-defined]
        ruleset = replace(self.game.ruleset, komi=info.komi)
        game, notes = Game.from_record(record, until, ruleset=ruleset)  # type: ignore[arg-type]
        self.game = game
        self.info = {k: getattr(info, k) for k in _KEPT_INFO if k != "result"}
        return notes

    def board_text(self) -> str:
        """The board with GTP coordinates, captures and the side to move (no blank lines)."""
        pos = self.game.position
        letters = "   " + " ".join(GTP_COLUMNS[: pos.size])
        chars = {BLACK: "X", WHITE: "O", EMPTY: "."}
        rows = [letters]
        for r in range(pos.size):
            cells = " ".join(chars[v] for v in pos.board[r * pos.size:(r + 1) * pos.size])
            rows.append(f"{pos.size - r:>2} {cells} {pos.size - r}")
        rows.append(letters)
        rows.append(f"black (X) has captured {pos.captures[BLACK]} stones, "
                    f"white (O) has captured {pos.captures[WHITE]} stones")
        rows.append(f"{'black' if pos.to_play == BLACK else 'white'} to play, komi {self.game.komi:g}, "
                    f"move {len(self.game.moves)}")
        return "\n".join(rows)


# ---- command arguments: each raises GtpError("syntax error") when the text is not one

def arguments(args: list[str], n: int) -> list[str]:
    if len(args) != n:
        raise GtpError("syntax error")
    return args


def color_arg(text: str) -> int:
    try:
        return color_from_str(text)
    except CoordinateError:
        raise GtpError("syntax error") from None


def vertex_arg(text: str, size: int) -> int:
    try:
        return from_gtp(text, size)
    except CoordinateError:
        raise GtpError("syntax error") from None


def int_arg(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > 18:  # no GTP number needs more digits
        raise GtpError("syntax error")
    return int(text)


def float_arg(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise GtpError("syntax error") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise GtpError("syntax error")
    return value
