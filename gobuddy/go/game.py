"""A game, defined once: its ruleset, its linear record, the position derived from it,
the position's hash, and the fold of its event stream.

Every part that keeps a game (the edge agent, the GTP front end, the worker's request
decoding, the recorder's ingest, the live view, the Play page) keeps a ``Game``; none
replays moves into a position by hand.

| concept            | here                                                          |
|--------------------|---------------------------------------------------------------|
| ruleset            | ``Ruleset``: name (ko rule and scoring follow it), komi       |
| record             | ``Game.moves``: ``(colour, flat point or pass)`` after a start |
|                    | of setup stones and a side to move                            |
| position           | ``Game.position``, derived; ``position_at(n)`` replays        |
| one error          | ``GameError``: names the move (0 = the setup)                 |
| position hash      | ``position_hash``: 16 hex digits, what engine answers carry   |
| events             | ``Played`` (a move or a pass), ``Undone``, ``Ended``: what a  |
|                    | change of the game is, in the game's own terms                |
| event fold         | ``Game.apply``: one game event (``move``, ``pass``, ``undo``,  |
|                    | ``game_ended``) in its wire terms (``"B"``, ``"D4"``)          |
| players            | ``engine_color``: the side the engine plays (or neither)      |
| taken-back moves   | ``Game.take_back``: undo the last move, keep it (with its      |
|                    | point loss and the better move) in ``Game.variations``; a      |
|                    | ``GameRecord`` holds each as a commented variation             |

Points are flat and colours ``BLACK``/``WHITE`` (``gobuddy.go.coords``); GTP vertices
and ``"B"``/``"W"`` appear only in the constructors and the fold that read the wire.

Not checked: that colours alternate (GTP and SGF allow two moves of one colour; the
fold names who should have played when asked to, ``strict_turns``), time, and whether
the game is over before a move (the ``result`` is recorded, not enforced: the caller
decides whether an ended game takes moves).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Iterable, Iterator, Sequence

from gobuddy.go.coords import (BLACK, WHITE, CoordinateError, check_size, color_from_str, color_to_str,
                               from_gtp, to_gtp)
from gobuddy.go.handicap import fixed_handicap_points
from gobuddy.go.position import Position
from gobuddy.go.record import GameError, GameRecord, Node
from gobuddy.go.scoring import area_score

Move = tuple[int, int]  # (colour, flat point or pass)
RESIGN = -1  # what a player choosing a move returns to resign (never a point of the board)

# Rulesets whose ko rule is the simple one (no immediate recapture) and that count
# territory; every other ruleset name plays positional superko and counts area.
SIMPLE_KO_RULES = frozenset({"japanese", "korean"})


@dataclass(frozen=True)
class Ruleset:
    """The rules a game is played under: ``name`` as the wire and SGF ``RU`` spell it
    (``chinese``, ``aga``, ``japanese``...) and ``komi``. The ko rule and the scoring
    follow from the name (``simple_ko`` asks for the simple ko rule under any name). Not checked: that the name is one we know (unknown names
    play positional superko and area scoring, the strictest reading)."""

    name: str = "chinese"
    komi: float = 7.0
    simple_ko: bool = False  # the simple ko rule whatever the name (GNU Go's way of playing)

    @property
    def superko(self) -> bool:
        """Positional superko (else the simple ko rule)."""
        return not self.simple_ko and self.name not in SIMPLE_KO_RULES

    @property
    def scoring(self) -> str:
        """``"area"`` or ``"territory"``."""
        return "territory" if self.name in SIMPLE_KO_RULES else "area"


def position_hash(pos: Position) -> str:
    """The position's key (stones, side to move, simple-ko point: ``Position.key``) as 16
    lower-case hex digits: the ``position_key.hash`` engine answers carry."""
    return format(pos.key() & 0xFFFFFFFFFFFFFFFF, "016x")


@dataclass(frozen=True)
class Played:
    """One move of the record: ``number`` (1-based), ``color``, ``point`` (pass is
    ``size * size``) and the points it ``captured``."""

    number: int
    color: int
    point: int
    captured: tuple[int, ...] = ()


@dataclass(frozen=True)
class TakenBack:
    """A move taken back after the teacher called it a mistake (``Game.take_back``):
    ``number`` the move number it had, ``color``, ``point``, ``points_lost`` (``None``:
    not known) and ``better`` the engine's choice there (a point, or ``None``)."""

    number: int
    color: int
    point: int
    points_lost: float | None = None
    better: int | None = None

    def comment(self, size: int) -> str:
        """The SGF comment of its variation: ``Taken back: loses 6.5 points; better C3``."""
        parts = ["Taken back"]
        if self.points_lost is not None:
            lost = f"{self.points_lost:g}"
            parts.append(f": loses {lost} point{'' if lost == '1' else 's'}")
        if self.better is not None:
            parts.append(f"{';' if self.points_lost is not None else ':'} better {to_gtp(self.better, size)}")
        return "".join(parts)


_TAKEN_BACK = re.compile(r"^Taken back(?:: loses (-?\d+(?:\.\d+)?) points?)?(?:[:;] better ([A-HJ-Z]\d{1,2}|pass))?\s*$")


@dataclass(frozen=True)
class Undone:
    """Move ``played`` was taken back (``Game.undo``)."""

    played: Played


@dataclass(frozen=True)
class Ended:
    """The game ended after ``move_number`` moves: ``result`` SGF-style (``B+3.5``,
    ``W+R``, ``0``, ``Void``), ``reason`` ``score``, ``resignation`` or ``abandoned``;
    ``dead``: the stones a count lifted (flat points, sorted), None when no count."""

    move_number: int
    result: str
    reason: str
    dead: tuple[int, ...] | None = None


GameEvent = Played | Undone | Ended


def taken_back_of(comment: str | None, number: int, move: Move, size: int) -> TakenBack | None:
    """The ``TakenBack`` a variation's comment (``TakenBack.comment``) says, or ``None``
    when the comment is not one (its first line decides)."""
    if not comment:
        return None
    match = _TAKEN_BACK.match(comment.splitlines()[0])
    if match is None:
        return None
    lost, better = match.groups()
    try:
        better_point = from_gtp(better, size) if better else None
    except CoordinateError:
        better_point = None
    return TakenBack(number, move[0], move[1], float(lost) if lost is not None else None, better_point)


@dataclass
class Game:
    """A game: start (setup stones, side to move), moves, and the derived position.

    Build with ``Game(size, ruleset)`` and ``setup``/``handicap``, or ``from_gtp`` from
    the wire. ``position`` is derived (kept up to date while playing, rebuilt on undo):
    read it, never change it. ``result`` is the SGF-style result once known.
    ``variations``: the moves taken back with ``take_back`` (not part of the record's
    line; ``undo`` keeps none)."""

    size: int = 9
    ruleset: Ruleset = field(default_factory=Ruleset)
    setup_black: tuple[int, ...] = ()
    setup_white: tuple[int, ...] = ()
    first_to_play: int = BLACK
    handicap: int = 0
    result: str | None = None
    engine_color: int | None = None  # the side the engine plays; None: people play both

    def __post_init__(self) -> None:
        check_size(self.size)
        self._played: list[Played] = []
        self._boards: list[tuple[int, ...]] = []
        self.variations: list[TakenBack] = []
        self.position = self._start()
        self._boards.append(tuple(self.position.board))

    # ------------------------------------------------------------------ building
    @classmethod
    def with_handicap(cls, size: int, ruleset: Ruleset, stones: int) -> "Game":
        """Fixed handicap (GTP placement) of ``stones`` (0, or 2 and up: white first);
        ``HandicapError`` for a number the size does not take."""
        if stones == 0:
            return cls(size, ruleset)
        return cls(size, ruleset, setup_black=tuple(fixed_handicap_points(size, stones)), first_to_play=WHITE,
                   handicap=stones)

    @classmethod
    def from_gtp(cls, size: int, ruleset: Ruleset, to_play: str, setup: Iterable[tuple[str, str]] = (),
                 moves: Iterable[tuple[str, str]] = (), *, handicap: int = 0,
                 strict_turns: bool = False) -> "Game":
        """A game from wire terms: ``setup`` as ``(colour, vertex)``, ``to_play`` the side
        to move before move 1, ``moves`` as ``(colour, vertex or "pass")``. Raises
        ``GameError`` naming the setup stone or the move (a vertex off the board, a point
        set twice, a chain without liberties, an illegal move, and with
        ``strict_turns`` a move out of turn)."""
        black, white = [], []
        seen: set[int] = set()
        for index, (color, vertex) in enumerate(setup):
            point = _point(vertex, size, f"setup stone {index + 1}", 0, index)
            if point == size * size:
                raise GameError(f"setup stone {index + 1}: 'pass' is not a point", 0, index)
            if point in seen:
                raise GameError(f"setup stone {index + 1}: {vertex} is set twice", 0, index)
            seen.add(point)
            (black if _color(color, 0, index) == BLACK else white).append(point)
        game = cls(size, ruleset, tuple(black), tuple(white), _color(to_play, 0), handicap)
        for color, vertex in moves:
            game.play_gtp(color, vertex, strict_turns=strict_turns)
        return game

    @classmethod
    def from_position(cls, size: int, ruleset: Ruleset, setup: Iterable[tuple[str, str]],
                      moves: Sequence[tuple[str, str]], to_play: str | None = None) -> "Game":
        """A game from a position on the wire (an engine request's, a board state's):
        ``to_play`` is the side to move after ``moves`` (``None``: as they leave it; a
        change clears a simple-ko point), the first move's colour moved first.
        ``GameError`` as ``from_gtp``."""
        game = cls.from_gtp(size, ruleset, moves[0][0] if moves else to_play or "B", setup, moves)
        if to_play is not None:
            game.set_to_play(color_from_str(to_play))
        return game

    # ------------------------------------------------------------------ reading
    @property
    def komi(self) -> float:
        return self.ruleset.komi

    @property
    def superko(self) -> bool:
        return self.ruleset.superko

    @property
    def moves(self) -> list[Move]:
        """The record: ``(colour, point)`` in order (a new list)."""
        return [(m.color, m.point) for m in self._played]

    @property
    def played(self) -> tuple[Played, ...]:
        """The moves with their numbers and captures."""
        return tuple(self._played)

    @property
    def move_number(self) -> int:
        """Moves played, passes included."""
        return len(self._played)

    @property
    def to_play(self) -> int:
        return self.position.to_play

    @property
    def pass_point(self) -> int:
        return self.size * self.size

    def hash(self) -> str:
        """``position_hash`` of the current position."""
        return position_hash(self.position)

    @property
    def ended(self) -> bool:
        """A result is recorded."""
        return self.result is not None

    def is_engine_turn(self) -> bool:
        """The engine plays the side to move (never once the game ended)."""
        return self.result is None and self.engine_color == self.position.to_play

    def is_empty(self) -> bool:
        """No stones set up and no moves yet."""
        return not (self._played or self.setup_black or self.setup_white)

    def board_after(self, moves: int) -> tuple[int, ...]:
        """The stones (flat: ``BLACK``/``WHITE``/``EMPTY``) after the first ``moves``."""
        if not 0 <= moves <= len(self._played):
            raise ValueError(f"the game has {len(self._played)} moves, not {moves}")
        return self._boards[moves]

    def position_at(self, moves: int | None = None) -> Position:
        """A fresh position after the first ``moves`` moves (all by default), replayed."""
        count = len(self._played) if moves is None else moves
        if not 0 <= count <= len(self._played):
            raise ValueError(f"the game has {len(self._played)} moves, not {count}")
        return next(pos for n, pos in self.positions() if n == count)  # a fresh one: the replay stops there

    def positions(self) -> Iterator[tuple[int, Position]]:
        """``(n, position after n moves)`` for n = 0 .. ``move_number``. One position
        object is played on in place and yielded each time: copy it to keep it."""
        pos = self._start()
        yield 0, pos
        for m in self._played:
            pos.play(m.point, m.color, check=False)
            yield m.number, pos

    def last_stone_move(self) -> Played | None:
        """The latest move that was not a pass, or ``None``."""
        return next((m for m in reversed(self._played) if m.point != self.pass_point), None)

    def both_passed(self) -> bool:
        """The last two moves were passes (time to count)."""
        p = self._played
        return len(p) >= 2 and p[-1].point == p[-2].point == self.pass_point

    def gtp_moves(self) -> list[tuple[str, str]]:
        """The record in wire terms: ``("B"|"W", vertex or "pass")``."""
        return [(color_to_str(m.color), to_gtp(m.point, self.size)) for m in self._played]

    def gtp_setup(self) -> list[tuple[str, str]]:
        """The setup stones in wire terms, black first."""
        return ([("B", to_gtp(p, self.size)) for p in self.setup_black]
                + [("W", to_gtp(p, self.size)) for p in self.setup_white])

    # ------------------------------------------------------------------ records
    def record(self, **info: object) -> GameRecord:
        """The game as a ``GameRecord`` (setup in the root, the moves as its main line,
        each taken-back move a variation of one move commented ``TakenBack.comment``);
        ``info`` adds ``GameInfo`` fields (players, date...)."""
        fields = {"rules": self.ruleset.name, "handicap": self.handicap, "result": self.result, **info}
        record = GameRecord.from_moves(self.size, self.komi, self.moves, self.setup_black, self.setup_white,
                                       **fields)
        line = record.main_line()
        for taken in self.variations:  # each its own variation, after the main line's move
            if taken.number - 1 < len(line):
                line[taken.number - 1].add_child(Node(move=(taken.color, taken.point),
                                                      comment=taken.comment(self.size)))
        return record

    @classmethod
    def from_record(cls, record: GameRecord, until: int | None = None,
                    ruleset: Ruleset | None = None) -> tuple["Game", list[str]]:
        """The game of ``record``'s main line, stopped before move number ``until``
        (1-based; ``None``: all), and notes on what was repaired.

        Setup after the root becomes the start (``GameRecord.linear_line``: the moves
        before it are dropped). A move that only repeats an earlier position is played
        all the same, with a note (the record's own rules may allow it). ``ruleset``
        replaces the one the record names (a GTP engine keeps its own ko rule). Variations
        off the main line whose comment says ``Taken back...`` (``TakenBack.comment``)
        become ``variations``; other variations are not read. Raises ``GameError`` naming
        any other illegal move or an impossible setup."""
        info = record.info
        target, count = record.root, 0
        for node in record.main_line():
            count += node.move is not None
            if until is not None and count >= until:
                break
            target = node
        line = record.linear_line(target)
        taken = _taken_back_in(record)
        ruleset = ruleset or Ruleset(info.rules or "chinese", info.komi)
        game = cls(info.size, ruleset, tuple(line.setup_black), tuple(line.setup_white), line.to_play,
                   info.handicap)
        game.result = info.result if until is None else None
        game.variations = [replace(t, number=t.number - line.dropped) for t in taken
                           if t.number > line.dropped and (until is None or t.number < until)]
        repeats: list[str] = []
        for number, (color, point) in enumerate(line.moves, start=line.dropped + 1):
            why = game.position.illegal_reason(point, color)
            if why == "superko":
                repeats.append(str(number))
                game._force(color, point)
            elif why is not None:
                raise GameError(f"move {number} ({color_to_str(color)} {to_gtp(point, game.size)}) is illegal: "
                                f"{why}", number)
            else:
                game.play(point, color)
        notes = list(line.notes)
        if len(repeats) == 1:
            notes.append(f"move {repeats[0]} repeats an earlier position (positional superko): played all the same")
        elif repeats:
            more = f" and {len(repeats) - 5} more" if len(repeats) > 5 else ""
            notes.append(f"moves {', '.join(repeats[:5])}{more} repeat an earlier position "
                         "(positional superko): played all the same")
        return game, notes

    # ------------------------------------------------------------------ changing
    def play(self, point: int, color: int | None = None) -> tuple[int, ...]:
        """Play (or pass, ``point == size * size``) for ``color`` (default: the side to
        move); return the captured points, sorted. Raises ``GameError`` naming the move
        (off the board, occupied, suicide, ko, superko); the game is then unchanged."""
        number = len(self._played) + 1
        color = self.position.to_play if color is None else color
        if color not in (BLACK, WHITE):
            raise GameError(f"move {number}: {color!r} is not a colour", number)
        if not isinstance(point, int) or not 0 <= point <= self.pass_point:
            raise GameError(f"move {number}: {point!r} is not a point of a {self.size}x{self.size} board", number)
        why = self.position.illegal_reason(point, color)
        if why is not None:
            raise GameError(f"move {number} ({color_to_str(color)} {to_gtp(point, self.size)}) is illegal: {why}",
                            number)
        return self._force(color, point)

    def play_gtp(self, color: str, vertex: str, *, strict_turns: bool = False) -> tuple[int, ...]:
        """``play`` from wire terms (``"B"``, ``"D4"`` or ``"pass"``); with
        ``strict_turns`` a move out of turn is a ``GameError`` too."""
        number = len(self._played) + 1
        c = _color(color, number)
        point = _point(vertex, self.size, f"move {number}", number)
        if strict_turns and c != self.position.to_play:
            raise GameError(f"move {number}: {color} played {vertex} but "
                            f"{color_to_str(self.position.to_play)} was to play", number)
        return self.play(point, c)

    def _force(self, color: int, point: int) -> tuple[int, ...]:
        """Record a move without asking the rules (``play`` asked them; ``from_record``
        plays a move the ko rule forbids that its record allowed); the captured points."""
        captured = tuple(sorted(self.position.play(point, color, check=False)))
        self._played.append(Played(len(self._played) + 1, color, point, captured))
        self._boards.append(tuple(self.position.board))
        return captured

    def undo(self) -> Played:
        """Take back the last move and return it (``GameError`` if there is none)."""
        if not self._played:
            raise GameError("there is no move to undo", 0)
        last = self._played.pop()
        self._boards.pop()
        self.position = self.position_at()
        return last

    def take_back(self, points_lost: float | None = None, better: int | None = None) -> TakenBack:
        """Undo the last move, as ``undo``, and keep it in ``variations`` with what the
        teacher said of it (``points_lost``, the ``better`` point); return the kept one
        (``GameError`` if there is no move)."""
        last = self.undo()
        taken = TakenBack(last.number, last.color, last.point, points_lost, better)
        self.variations.append(taken)
        return taken

    def finish(self, result: str, reason: str = "score") -> Ended:
        """Record ``result`` (SGF style) for the given ``reason``; ``GameError`` if the game
        already ended. Not checked: that the result is a well-formed one."""
        if self.result is not None:
            raise GameError(f"the game is over ({self.result})", len(self._played))
        self.result = result
        return Ended(len(self._played), result, reason)

    def count(self, dead: Iterable[int] = ()) -> Ended:
        """Finish by an area count with komi, the ``dead`` stones (flat points) lifted
        first; ``ValueError`` for a dead point that is empty or off the board. Not
        checked: that both players passed."""
        points = tuple(sorted(set(dead)))
        ended = self.finish(area_score(self.position, self.komi, points).result)
        return replace(ended, dead=points)

    def resign(self, color: int) -> Ended:
        """``color`` resigns: the other side wins (``B+R``/``W+R``)."""
        return self.finish(f"{color_to_str(-color)}+R", "resignation")

    def set_to_play(self, color: int) -> None:
        """Make ``color`` the side to move now (a wire state may say so after a move;
        this clears a simple-ko point). Not recorded as a move."""
        if color != self.position.to_play:
            self.position.set_to_play(color)

    # ------------------------------------------------------------------ the event fold
    def apply(self, kind: str, color: str | None = None, vertex: str | None = None,
              move_number: int | None = None, result: str | None = None) -> bool:
        """Fold one game event (wire terms) into the game; True when the record changed.

        ``move``/``pass``: ``color`` plays ``vertex`` (``"pass"`` for a pass) as move
        ``move_number`` (when given, it must be the next one); ``undo``: takes back the
        last move, which must be ``color`` at ``vertex`` (and ``move_number``, when
        given); ``game_ended``: records ``result``. Any other kind (problems, notes) does
        not touch the record. Raises ``GameError`` naming the move for an event that does
        not fit the game so far; the game is then unchanged."""
        if kind in ("move", "pass"):
            number = len(self._played) + 1
            if move_number is not None and move_number != number:
                raise GameError(f"{kind} of {color} {vertex or 'pass'} is numbered {move_number}, "
                                f"but the next move is {number}", move_number)
            self.play_gtp(color or "", "pass" if kind == "pass" else (vertex or ""))
            return True
        if kind == "undo":
            last = self._played[-1] if self._played else None
            if last is None:
                raise GameError(f"undo of {color} {vertex}: there is no move to undo", move_number or 0)
            vertex = "pass" if (vertex or "").lower() == "pass" else (vertex or "").upper()
            said = (color, vertex, move_number if move_number is not None else last.number)
            held = (color_to_str(last.color), to_gtp(last.point, self.size), last.number)
            if said != held:
                raise GameError(f"undo of move {said[2]} ({said[0]} {said[1]}), but the last move is "
                                f"{held[2]} ({held[0]} {held[1]})", said[2])
            self.undo()
            return True
        if kind == "game_ended":
            self.result = result
            return True
        return False

    # ------------------------------------------------------------------ inside
    def _start(self) -> Position:
        pos = Position(self.size, superko=self.ruleset.superko, to_play=self.first_to_play)
        for points, color in ((self.setup_black, BLACK), (self.setup_white, WHITE)):
            for p in points:
                if not isinstance(p, int) or not 0 <= p < self.size * self.size:
                    raise GameError(f"setup: {p!r} is not a point of a {self.size}x{self.size} board", 0)
                if pos.board[p] != 0:
                    raise GameError(f"setup: {to_gtp(p, self.size)} is set twice", 0)
                pos.place(p, color)
        try:
            pos.check_no_dead_chains()
        except ValueError as exc:
            raise GameError(f"setup: {exc}", 0) from None
        pos.seen = {pos.hash}  # the superko history starts from the finished setup
        return pos


def _taken_back_in(record: GameRecord) -> list[TakenBack]:
    """The taken-back moves of ``record``: variations off its main line whose first node
    says so (``TakenBack.comment``), numbered as the main line's moves."""
    found: list[TakenBack] = []
    count = 0
    for node in record.main_line():
        count += node.move is not None
        for child in node.children[1:]:
            taken = taken_back_of(child.comment, count + 1, child.move, record.info.size) if child.move else None
            if taken is not None:
                found.append(taken)
    return found


def _color(text: str, number: int, setup_index: int | None = None) -> int:
    try:
        return color_from_str(text)
    except CoordinateError as exc:
        where = f"move {number}" if number else "setup"
        raise GameError(f"{where}: {exc}", number, setup_index) from None


def _point(vertex: str, size: int, what: str, number: int, setup_index: int | None = None) -> int:
    try:
        return from_gtp(vertex, size)
    except CoordinateError as exc:
        raise GameError(f"{what}: {exc}", number, setup_index) from None
