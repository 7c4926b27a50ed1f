"""Named problems with the physical board: what differs from the game, in plain words.

A ``Problem`` is a kind (the ``problem_kind`` names of ``schemas/common.schema.json``
plus ``engine_stone_misplaced`` and ``board_mismatch``), the points concerned (flat)
and a message telling the players how to put the board right. ``board_diff`` compares
the board the game expects with a stable sighting; ``diagnose`` names a difference that
is not one new stone, and the single-stone problems (``captures_not_removed``,
``wrong_color``, ``illegal``, ``engine_misplaced``) are built by ``edge.reading.reconcile``,
which knows whose turn it is. ``ProblemRaised``/``ProblemCleared`` are the events, with
GTP vertices (fields as in ``schemas/game_event.schema.json``).

Not here: deciding that a difference is a move or an undo (``edge.reading.reconcile``).
"""

from __future__ import annotations

from dataclasses import dataclass

from edge.sensing.classify import STONE
from gobuddy.go.coords import BLACK, EMPTY, WHITE, to_gtp
from gobuddy.go.game import Played

WRONG_COLOR = "wrong_color"
TWO_STONES = "two_stones"
STONE_LIFTED = "stone_lifted"
STONE_MOVED = "stone_moved"
CAPTURES_NOT_REMOVED = "captures_not_removed"
ILLEGAL_POINT = "illegal_point"
KO = "ko"
UNCLEAR_READING = "unclear_reading"
ENGINE_STONE_MISPLACED = "engine_stone_misplaced"
BOARD_MISMATCH = "board_mismatch"


@dataclass(frozen=True)
class Problem:
    kind: str
    points: tuple[int, ...]
    message: str


@dataclass(frozen=True)
class ProblemRaised:
    """Shown until cleared; ``move_number`` is the number of moves on the board."""

    move_number: int
    kind: str
    points: tuple[str, ...]
    message: str


@dataclass(frozen=True)
class ProblemCleared:
    move_number: int
    kind: str


def raised(problem: Problem, size: int, move_number: int) -> ProblemRaised:
    """The event for ``problem`` (points as GTP vertices)."""
    return ProblemRaised(move_number, problem.kind, tuple(to_gtp(p, size) for p in problem.points),
                         problem.message)


@dataclass(frozen=True)
class BoardDiff:
    """How a stable board differs from the expected stones.

    ``added``: (point, seen class) where the game has no stone; ``removed``: (point,
    expected colour) now empty; ``recoloured``: (point, expected colour, seen colour);
    ``leftover``: points of captured stones still on the board (allowed until the next
    stone is played, so not in ``added``). A leftover point that reads as any stone
    counts as still covered: a hand lifting the stone shades the point it just
    emptied."""

    added: tuple[tuple[int, int], ...]
    removed: tuple[tuple[int, int], ...]
    recoloured: tuple[tuple[int, int, int], ...]
    leftover: tuple[int, ...]

    @property
    def matches(self) -> bool:
        """True when only allowed leftovers differ."""
        return not (self.added or self.removed or self.recoloured)


def board_diff(expected: list[int] | tuple[int, ...], seen: tuple[int, ...],
               leftovers: dict[int, int]) -> BoardDiff:
    """Compare ``seen`` (classes; ``STONE`` matches either colour) with ``expected``
    stones; ``leftovers`` maps captured points not yet seen empty to the colour of the
    stone that was there."""
    added, removed, recoloured, left = [], [], [], []
    for p, (e, s) in enumerate(zip(expected, seen)):
        if e == s:
            continue
        if e == EMPTY:
            if p in leftovers:
                left.append(p)
            else:
                added.append((p, s))
        elif s == EMPTY:
            removed.append((p, e))
        elif s != STONE:
            recoloured.append((p, e, s))
    return BoardDiff(tuple(added), tuple(removed), tuple(recoloured), tuple(left))


# ---------------------------------------------------------------------- words
def colour_word(color: int) -> str:
    return {BLACK: "black", WHITE: "white"}.get(color, "")


def _at(points: list[int] | tuple[int, ...], size: int) -> str:
    return ", ".join(to_gtp(p, size) for p in points)


def _stones(points: list[int] | tuple[int, ...], color: int, size: int, captured: bool = False) -> str:
    """'the black stone at D4' / 'the 3 captured white stones at D4, D5, E5'."""
    word = " ".join(w for w in ("captured" if captured else "", colour_word(color)) if w)
    word = f"{word} " if word else ""
    if len(points) == 1:
        return f"the {word}stone at {_at(points, size)}"
    return f"the {len(points)} {word}stones at {_at(points, size)}"


def _by_colour(pairs: tuple[tuple[int, int], ...], size: int) -> list[str]:
    groups: dict[int, list[int]] = {}
    for p, c in pairs:
        groups.setdefault(c if c in (BLACK, WHITE) else STONE, []).append(p)
    return [_stones(pts, c, size) for c, pts in groups.items()]


def _fixes(diff: BoardDiff, size: int) -> str:
    parts = []
    if diff.added:
        parts.append("take off " + " and ".join(_by_colour(diff.added, size)))
    if diff.removed:
        parts.append("put back " + " and ".join(_by_colour(diff.removed, size)))
    for p, e, _ in diff.recoloured:
        parts.append(f"make the stone at {to_gtp(p, size)} {colour_word(e)}")
    return "; ".join(parts)


# ---------------------------------------------------------------------- single stones
def captures_not_removed(points: tuple[int, ...], color: int, size: int) -> Problem:
    """Captured stones of ``color`` still on the board when the next stone came."""
    return Problem(CAPTURES_NOT_REMOVED, tuple(points),
                   f"remove {_stones(points, color, size, captured=True)}")


def wrong_color(point: int, placed: int, to_play: int, size: int) -> Problem:
    return Problem(WRONG_COLOR, (point,),
                   f"a {colour_word(placed)} stone was placed at {to_gtp(point, size)}, "
                   f"but it is {colour_word(to_play)}'s turn")


def illegal(point: int, color: int, reason: str, size: int) -> Problem:
    """``reason`` as given by ``Position.illegal_reason`` (suicide, ko, superko)."""
    v, who = to_gtp(point, size), colour_word(color)
    if reason == "ko":
        return Problem(KO, (point,), f"{who} may not retake the ko at {v} yet: take the stone back "
                                     "and play elsewhere first")
    if reason == "superko":
        return Problem(KO, (point,), f"{who} may not play {v}: it would repeat an earlier "
                                     "position (superko); take the stone back")
    return Problem(ILLEGAL_POINT, (point,), f"{who} may not play {v}: it would be {reason}; "
                                            "take the stone back")


def engine_misplaced(point: int, expected: int | None, size: int) -> Problem:
    """The engine's stone went to ``point``; ``expected`` ``None``: not chosen yet."""
    v = to_gtp(point, size)
    if expected is None:
        return Problem(ENGINE_STONE_MISPLACED, (point,),
                       f"engine stone placed at {v} before the engine chose its move: "
                       "take it back and wait for the lights")
    e = to_gtp(expected, size)
    return Problem(ENGINE_STONE_MISPLACED, (point, expected),
                   f"engine stone placed at {v}, expected {e}: move it to {e}")


def with_fault_note(problem: Problem, faulty: list[int], size: int) -> Problem:
    """``problem`` with the faulty sensors named (a move there cannot be seen)."""
    if not faulty:
        return problem
    word = "sensor" if len(faulty) == 1 else "sensors"
    return Problem(problem.kind, problem.points,
                   f"{problem.message} (the {word} at {_at(faulty, size)} cannot be read: "
                   "a stone played there is not seen)")


def unclear(points: tuple[int, ...], size: int) -> Problem:
    return Problem(UNCLEAR_READING, tuple(points),
                   f"the board cannot be read clearly at {_at(points, size)}: take hands off "
                   "the board and set any stone there on its point")


# ---------------------------------------------------------------------- the rest
@dataclass(frozen=True)
class Context:
    """What ``diagnose`` needs of the game: ``last_move`` is the last stone move or
    ``None``; ``after_undo``: the board must first be set back to the game (after the
    undo button), so every difference is a mismatch."""

    size: int
    to_play: int
    moves_played: int
    last_move: Played | None
    handicap_points: tuple[int, ...] = ()
    after_undo: bool = False


def diagnose(diff: BoardDiff, ctx: Context) -> Problem:
    """Name a difference that is neither a match nor one new stone (callers handle those
    and undos). Order: undo pending, setup, a moved stone, extra stones, lifted stones,
    wrong colours, anything else (a list of fixes)."""
    size = ctx.size
    added = [p for p, _ in diff.added]
    removed = [p for p, _ in diff.removed]
    involved = tuple(sorted(added + removed + [p for p, _, _ in diff.recoloured]))
    if ctx.after_undo:
        return Problem(BOARD_MISMATCH, involved, f"after the undo, set the board as recorded: {_fixes(diff, size)}")
    if ctx.moves_played == 0 and (diff.removed or diff.recoloured or len(diff.added) > 2):
        handicap = [p for p in removed if p in ctx.handicap_points]
        if handicap and len(handicap) == len(removed) and not diff.added and not diff.recoloured:
            return Problem(BOARD_MISMATCH, tuple(handicap),
                           f"place the black handicap stones at {_at(handicap, size)}")
        return Problem(BOARD_MISMATCH, involved, f"set up the board for the new game: {_fixes(diff, size)}")
    if len(diff.added) == 1 and len(diff.removed) == 1 and not diff.recoloured:
        (dst, seen), (src, color) = diff.added[0], diff.removed[0]
        if seen in (color, STONE):
            text = f"{_stones([src], color, size)} moved to {to_gtp(dst, size)}: put it back on {to_gtp(src, size)}"
            if ctx.last_move is not None and ctx.last_move.point == src and not ctx.last_move.captured:
                text += ", or take it off to take the move back"
            return Problem(STONE_MOVED, (src, dst), text)
    if len(diff.added) >= 2 and not diff.removed and not diff.recoloured:
        mine = [p for p, c in diff.added if c == ctx.to_play]
        theirs = [p for p, c in diff.added if c == -ctx.to_play]
        if len(mine) == 1 and len(theirs) == 1:
            return Problem(TWO_STONES, tuple(added),
                           f"two stones appeared at once: take {_stones(theirs, -ctx.to_play, size)} "
                           f"off until {_stones(mine, ctx.to_play, size)} is recorded")
        return Problem(TWO_STONES, tuple(added),
                       f"{len(added)} stones appeared at once, at {_at(added, size)}: "
                       "take back those that were not played, one move at a time")
    if diff.removed and not diff.added and not diff.recoloured:
        last = ctx.last_move
        if last is not None and removed == [last.point] and last.captured:
            return Problem(STONE_LIFTED, (last.point,),
                           f"{_stones(removed, last.color, size)} was lifted: put it back, or to take "
                           f"the move back also put back {_stones(last.captured, -last.color, size)} "
                           "it captured")
        if len(removed) == 1:
            return Problem(STONE_LIFTED, tuple(removed),
                           f"{_stones(removed, diff.removed[0][1], size)} was lifted: put it back")
        return Problem(STONE_LIFTED, tuple(removed),
                       f"{' and '.join(_by_colour(diff.removed, size))} were lifted: put them back")
    if diff.recoloured and not diff.added and not diff.removed:
        fixes = ", ".join(f"{to_gtp(p, size)} should be {colour_word(e)}" for p, e, _ in diff.recoloured)
        return Problem(WRONG_COLOR, involved, f"a stone has the wrong colour: {fixes}")
    return Problem(BOARD_MISMATCH, involved, f"the board does not match the game: {_fixes(diff, size)}")
