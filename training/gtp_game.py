"""One game between two GTP engines, refereed by our own rules and scoring.

``play_game(black, white, rules)`` sets both engines up (board size, komi), plays any
forced opening moves on both, then asks the side to move for ``genmove`` and tells the
other side with ``play`` until two passes in a row, a resignation, a failure, or the
move cap. Every move is checked with ``gobuddy.go.position`` (positional superko unless
``rules.superko`` is off): an engine that plays an illegal move, answers garbage, times
out or dies loses the game (``B+F``/``W+F`` for forfeits, ``+T`` for time); an engine
that refuses a move our rules allow makes the game void (the engines disagree on the
rules, nobody is to blame).

A game that ends by passes, or at the move cap, is scored by area with our
``gobuddy.go.scoring``. When the two passes leave the engines disagreeing about the
end (their ``final_status_list dead`` or ``final_score`` answers differ) and
``rules.cleanup`` is on, the game is not scored yet: as on KGS, both play on with
``kgs-genmove_cleanup`` (``genmove`` for an engine without it) until two more passes,
so that stones one side calls dead are captured on the board instead of being
counted alive (an engine that passes expecting dead stones to be removed, as GNU Go
does, is not robbed) or dead on one engine's word. Dead stones then come from both
engines' lists: used when they agree; when they differ, the list that reproduces the
engines' agreed ``final_score`` is used, else the stones both call dead; every
disagreement is written into ``notes``. Both engines' own ``final_score`` answers
are kept.

A resignation ends the game, unless the caller passes ``takeover``: then a substitute
engine it supplies is brought to the position (``play`` of every move so far) and
plays on for the side that resigned, so the game is still counted out (data
generation wants the final ownership of every game; a Monte Carlo engine told never
to resign plays nonsense once it sees every move lose).

``settle(game, finisher)`` repairs a game that the players ended by passing too early
(big neutral areas, or scores that disagree): the trailing passes are dropped and the
finisher engine plays both sides until two passes, then the game is scored again from
the finisher's view. In both cases ``substitute_from`` records how many moves the
original players made; the moves after it are the substitute's.

Not done here: starting or closing engines (the caller owns every ``GtpClient``,
substitutes included), handicap stones, time controls (strength comes from each
engine's command line).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from gobuddy.go.coords import BLACK, WHITE, CoordinateError, color_to_str, from_gtp, to_gtp
from gobuddy.go.position import Position
from gobuddy.go.scoring import area_score, ownership, result_string
from training.gtp_client import EngineFailure, EngineTimeout, GtpClient, GtpError

__all__ = ["GameResult", "GameRules", "parse_score", "play_game", "settle"]


@dataclass(frozen=True)
class GameRules:
    """Board, komi and referee limits. ``max_moves``: moves (passes included) after
    which the game is scored as it stands (default ``3 * size * size``);
    ``move_timeout``: seconds an engine may take for one answer; ``cleanup``: play a
    disputed end out (module docstring)."""

    size: int = 9
    komi: float = 7.0
    superko: bool = True
    max_moves: int | None = None
    move_timeout: float = 60.0
    score_timeout: float = 60.0
    cleanup: bool = True

    @property
    def move_cap(self) -> int:
        return self.max_moves if self.max_moves is not None else 3 * self.size * self.size


@dataclass
class GameResult:
    """What happened. ``result`` is SGF-style: ``B+3``, ``W+R`` (resign), ``B+T``
    (time), ``W+F`` (forfeit), ``0`` (jigo) or ``Void``. ``reason`` is one of
    ``score``, ``move_cap``, ``resign``, ``timeout``, ``forfeit``, ``void``,
    ``stopped``. ``margin`` (black minus white, komi included), ``ownership``
    (+1/-1/0 per point, row-major from the top left) and ``dead`` exist only for
    scored games. ``engine_scores`` holds each side's ``final_score`` answer (by
    ``"B"``/``"W"``), ``move_seconds`` each side's ``genmove`` times."""

    moves: list[str]
    result: str
    reason: str
    winner: str | None = None
    margin: float | None = None
    ownership: list[int] | None = None
    dead: list[str] = field(default_factory=list)
    dead_source: str | None = None
    engine_scores: dict[str, str | None] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    move_seconds: dict[str, list[float]] = field(default_factory=lambda: {"B": [], "W": []})
    opening: int = 0
    substitute_from: int | None = None

    def unsettled(self, max_neutral: int = 4) -> bool:
        """True for a scored game whose end looks unfinished: more than ``max_neutral``
        neutral points, or an engine's ``final_score`` that differs from ours."""
        if self.ownership is None:
            return False
        disagree = any(s is not None and parse_score(s) != self.margin for s in self.engine_scores.values())
        return disagree or self.ownership.count(0) > max_neutral


def parse_score(text: str) -> float | None:
    """A GTP ``final_score`` answer (``B+3.5``, ``W+7``, ``0``) -> black's margin, or
    ``None`` when it is not a score (``B+R``, empty, garbage)."""
    text = text.strip().upper()
    if text in ("0", "JIGO", "DRAW"):
        return 0.0
    if len(text) > 2 and text[0] in "BW" and text[1] == "+":
        try:
            value = float(text[2:])
        except ValueError:
            return None
        return value if text[0] == "B" else -value
    return None


class _Loss(Exception):
    """Internal: the game ended early; carries the finished result."""

    def __init__(self, result: str, reason: str, winner: str | None, note: str) -> None:
        super().__init__(note)
        self.result, self.reason, self.winner, self.note = result, reason, winner, note


def _lose(color: int, reason: str, note: str) -> _Loss:
    winner = color_to_str(-color)
    letter = {"timeout": "T", "resign": "R"}.get(reason, "F")
    return _Loss(f"{winner}+{letter}", reason, winner, note)


def _void(note: str) -> _Loss:
    return _Loss("Void", "void", None, note)


def _ask(engine: GtpClient, color: int, command: str, timeout: float) -> str:
    """Send a command whose failure makes ``color`` (the engine's side) lose: a timeout,
    death, or a ``?`` answer, except to ``play``, where ``?`` means the engines disagree
    on the rules (void)."""
    try:
        return engine.command(command, timeout=timeout)
    except GtpError as exc:
        raise (_void(f"rules disagreement: {exc}") if command.startswith("play ")
               else _lose(color, "forfeit", str(exc))) from None
    except EngineTimeout as exc:
        raise _lose(color, "timeout", str(exc)) from None
    except EngineFailure as exc:
        raise _lose(color, "forfeit", str(exc)) from None


def _setup(engine: GtpClient, colour: int, rules: GameRules) -> None:
    for command in (f"boardsize {rules.size}", "clear_board", f"komi {rules.komi:g}"):
        try:
            engine.command(command, timeout=rules.move_timeout)
        except GtpError as exc:
            raise _void(f"setup failed: {exc}") from None
        except EngineFailure as exc:
            raise _lose(colour, "forfeit", f"setup failed: {exc}") from None


def play_game(black: GtpClient, white: GtpClient, rules: GameRules = GameRules(),
              opening: list[str] | tuple[str, ...] = (),
              stop: threading.Event | None = None,
              takeover: Callable[[int], GtpClient | None] | None = None) -> GameResult:
    """Play one game; never raises for engine misbehaviour (it decides the result).

    ``opening``: GTP moves, alternating from black, played on both engines first (they
    must be legal: ``ValueError`` otherwise). ``stop``: when set, the game ends before
    the next move with reason ``stopped`` (the caller should discard it).
    ``takeover(colour)``: called when ``colour`` resigns (once per colour); a client
    it returns replaces that side (``None``: the resignation stands)."""
    size = rules.size
    pos = Position(size, superko=rules.superko)
    engines = {BLACK: black, WHITE: white}
    game = GameResult(moves=[], result="Void", reason="void", opening=len(opening))
    replaced: set[int] = set()
    planned: list[tuple[int, int]] = []
    check = pos.copy()
    for i, vertex in enumerate(opening):
        colour, point = (BLACK if i % 2 == 0 else WHITE), from_gtp(vertex, size)
        why = check.illegal_reason(point, colour)
        if why is not None:
            raise ValueError(f"opening move {i + 1} ({vertex}) is illegal: {why}")
        check.play(point, colour)
        planned.append((colour, point))
    try:
        for colour, engine in engines.items():
            _setup(engine, colour, rules)
        for colour, point in planned:
            vertex = to_gtp(point, size)
            for engine_colour, engine in engines.items():
                _ask(engine, engine_colour, f"play {color_to_str(colour)} {vertex}", rules.move_timeout)
            pos.play(point, colour)
            game.moves.append(vertex)
        if _play_on(pos, game, engines, rules, stop, takeover, replaced, cleanup=False):
            return game
        if rules.cleanup and pos.passes >= 2:
            dispute = _dispute({color_to_str(c): _engine_view(e, pos, rules.score_timeout)
                                for c, e in engines.items()})
            if dispute is not None:
                game.notes.append(f"{dispute} after move {len(game.moves)}: both played on with "
                                  f"kgs-genmove_cleanup until two passes")
                if _play_on(pos, game, engines, rules, stop, takeover, replaced, cleanup=True):
                    return game
    except _Loss as end:
        game.result, game.reason, game.winner = end.result, end.reason, end.winner
        game.notes.append(end.note)
        return game
    _score(game, pos, engines, rules)
    return game


def _dispute(views: dict[str, tuple[str | None, set[int] | None, str | None]]) -> str | None:
    """What the engines disagree on at the end (``_engine_view`` of each side), or ``None``."""
    scores = {side: view[0] for side, view in views.items()}
    margins = [parse_score(text) if text is not None else None for text in scores.values()]
    if None not in margins and margins[0] != margins[1]:
        return f"engines' final_score differ ({scores})"
    lists = [view[1] for view in views.values()]
    if None not in lists and lists[0] != lists[1]:
        return "engines disagree on dead stones"
    return None


def _play_on(pos: Position, game: GameResult, engines: dict[int, GtpClient], rules: GameRules,
             stop: threading.Event | None, takeover: Callable[[int], GtpClient | None] | None,
             replaced: set[int], cleanup: bool) -> bool:
    """Ask the side to move for a move and tell the other, until two passes in a row
    (counted from here) or the move cap; with ``cleanup`` by ``kgs-genmove_cleanup``
    where the engine knows it. Returns True when ``stop`` ended the game (void)."""
    size = rules.size
    passes = 0
    commands: dict[int, str] = {}
    while passes < 2 and len(game.moves) < rules.move_cap:
        if stop is not None and stop.is_set():
            game.result, game.reason = "Void", "stopped"
            return True
        colour = pos.to_play
        side = color_to_str(colour)
        if colour not in commands:
            try:
                known = cleanup and engines[colour].known_command("kgs-genmove_cleanup", timeout=rules.move_timeout)
            except EngineTimeout as exc:
                raise _lose(colour, "timeout", str(exc)) from None
            except EngineFailure as exc:
                raise _lose(colour, "forfeit", str(exc)) from None
            commands[colour] = "kgs-genmove_cleanup" if known else "genmove"
        started = time.perf_counter()
        answer = _ask(engines[colour], colour, f"{commands[colour]} {side}", rules.move_timeout)
        game.move_seconds[side].append(time.perf_counter() - started)
        word = answer.split()[0].lower() if answer.split() else ""
        if word == "resign":
            substitute = None
            if takeover is not None and colour not in replaced:
                substitute = takeover(colour)
            if substitute is None:
                raise _lose(colour, "resign", f"{side} resigned")
            replaced.add(colour)
            if game.substitute_from is None:
                game.substitute_from = len(game.moves)
            game.notes.append(f"{side} ({engines[colour].name}) resigned after {len(game.moves)} "
                              f"moves; {substitute.name} played on for {side}")
            engines[colour] = substitute
            commands.pop(colour, None)
            _setup(substitute, colour, rules)
            _replay(substitute, colour, game.moves, rules)
            continue
        try:
            point = from_gtp(word, size)
        except CoordinateError:
            raise _lose(colour, "forfeit", f"{side} answered {commands[colour]} with {answer!r}") from None
        why = pos.illegal_reason(point, colour)
        if why is not None:
            raise _lose(colour, "forfeit", f"{side} played {to_gtp(point, size)}: illegal ({why})")
        vertex = to_gtp(point, size)
        _ask(engines[-colour], -colour, f"play {side} {vertex}", rules.move_timeout)
        pos.play(point, colour)
        game.moves.append(vertex)
        passes = passes + 1 if point == pos.pass_point else 0
    return False


def _replay(engine: GtpClient, colour: int, moves: list[str], rules: GameRules) -> None:
    for i, played in enumerate(moves):
        _ask(engine, colour, f"play {'B' if i % 2 == 0 else 'W'} {played}", rules.move_timeout)


def settle(game: GameResult, finisher: GtpClient, rules: GameRules = GameRules(),
           stop: threading.Event | None = None) -> GameResult:
    """Play on from the end of a scored ``game`` with ``finisher`` moving for both sides
    until two passes (or the move cap), and score again; returns a new result.

    The trailing passes of ``game`` are dropped first. If the finisher fails (or
    ``stop`` is set) ``game`` is returned unchanged with a note. Not checked: that the
    game needed it (see ``GameResult.unsettled``)."""
    moves = list(game.moves)
    while moves and moves[-1] == "pass":
        moves.pop()
    pos = Position(rules.size, superko=rules.superko)
    for vertex in moves:
        pos.play(from_gtp(vertex, rules.size))
    done = len(moves)
    seconds = {"B": list(game.move_seconds["B"]), "W": list(game.move_seconds["W"])}
    new = GameResult(moves=moves, result=game.result, reason=game.reason, opening=game.opening,
                     notes=list(game.notes), move_seconds=seconds,
                     substitute_from=done if game.substitute_from is None else min(done, game.substitute_from))
    try:
        _setup(finisher, BLACK, rules)
        _replay(finisher, BLACK, moves, rules)
        passes = 0
        while passes < 2 and len(new.moves) < rules.move_cap:
            if stop is not None and stop.is_set():
                raise _void("stopped")
            side = color_to_str(pos.to_play)
            answer = _ask(finisher, pos.to_play, f"genmove {side}", rules.move_timeout)
            point = from_gtp(answer.split()[0], rules.size) if answer.split() else -1
            if not 0 <= point <= pos.pass_point or pos.illegal_reason(point) is not None:
                raise _void(f"finisher answered genmove {side} with {answer!r}")
            pos.play(point)
            passes = passes + 1 if point == pos.pass_point else 0
            new.moves.append(to_gtp(point, rules.size))
    except (_Loss, CoordinateError) as exc:
        game.notes.append(f"settling by {finisher.name} failed: {exc}")
        return game
    new.notes.append(f"{finisher.name} settled the end from move {done} "
                     f"(players' result {game.result}: {game.engine_scores})")
    _score(new, pos, {BLACK: finisher, WHITE: finisher}, rules)
    return new


def _engine_view(engine: GtpClient, pos: Position, timeout: float) -> tuple[str | None, set[int] | None, str | None]:
    """(final_score answer, dead points, problem) from one engine; failures tolerated."""
    answers: list[str | None] = []
    problem = None
    for command in ("final_score", "final_status_list dead"):
        try:
            answers.append(engine.command(command, timeout=timeout))
        except (GtpError, EngineFailure) as exc:
            answers.append(None)
            problem = str(exc)
    score, listing = answers
    if listing is None:
        return score, None, problem
    dead: set[int] = set()
    for word in listing.split():
        try:
            point = from_gtp(word, pos.size)
        except CoordinateError:
            return score, None, f"{engine.name}: bad vertex {word!r} in final_status_list"
        if point == pos.pass_point or pos.board[point] == 0:
            return score, None, f"{engine.name}: final_status_list names empty point {word}"
        dead.add(point)
    return score, dead, problem


def _score(game: GameResult, pos: Position, engines: dict[int, GtpClient], rules: GameRules) -> None:
    views = {color_to_str(c): _engine_view(e, pos, rules.score_timeout) for c, e in engines.items()}
    game.engine_scores = {side: view[0] for side, view in views.items()}
    game.notes += [view[2] for view in views.values() if view[2]]
    margins = [parse_score(s) for s in game.engine_scores.values() if s is not None]
    agreed = margins[0] if margins and all(m == margins[0] for m in margins) else None
    if len(margins) == 2 and agreed is None:
        game.notes.append(f"engines' final_score differ: {game.engine_scores}")
    lists = {side: view[1] for side, view in views.items() if view[1] is not None}
    if not lists:
        dead, game.dead_source = set(), "none"
    elif len(lists) == 2 and lists["B"] == lists["W"]:
        dead, game.dead_source = lists["B"], "agreed"
    else:
        if len(lists) == 2:
            shown = {s: sorted(to_gtp(p, pos.size) for p in d) for s, d in lists.items()}
            game.notes.append(f"engines disagree on dead stones: {shown}")
        matching = [s for s, d in lists.items()
                    if agreed is not None and area_score(pos, rules.komi, d).margin == agreed]
        if matching:
            dead, game.dead_source = lists[matching[0]], f"{matching[0]}-engine"
        elif len(lists) == 2:
            dead, game.dead_source = lists["B"] & lists["W"], "intersection"
        else:
            (side, dead), = lists.items()
            game.dead_source = f"{side}-engine"
    score = area_score(pos, rules.komi, dead)
    game.margin = score.margin
    game.result = result_string(score.margin)
    game.winner = None if score.margin == 0 else ("B" if score.margin > 0 else "W")
    game.reason = "score" if pos.passes >= 2 else "move_cap"
    game.dead = sorted(to_gtp(p, pos.size) for p in dead)
    game.ownership = [int(v) for v in ownership(pos, dead)]
    for side, text in game.engine_scores.items():
        theirs = parse_score(text) if text is not None else None
        if text is not None and theirs != score.margin:
            game.notes.append(f"{side} engine scored {text}, we scored {game.result}")
