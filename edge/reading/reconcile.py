"""From stable boards to moves, undos and named problems; and what the LEDs show.

``Reconciler`` holds a ``Game`` and reads the board through a ``Classifier`` and a
``Stabiliser`` (``edge.sensing.classify``). Each stable, clear board is compared with the stones
the game expects:

- it matches (captured stones still lying on the board are allowed until the next
  stone is placed; their points blink): nothing to do, any problem is cleared;
- it shows one new stone of the side to move on a legal point, with every captured
  stone taken off: the move is played (``Played``, with its captures);
- it shows an earlier position of the game, at most ``max_undo_moves`` moves back
  (counting stones, not passes): those moves are taken back (``Undone`` each);
- anything else is a named problem (``edge.reading.problems``), raised once and cleared when the
  board is put right. Nothing is ever guessed: a board that is not exactly one of the
  above changes no record.

Two to four new stones in turn order (colour sensing), each legal in turn, are as
many moves when the board showed each ``two_moves_apart_s`` before the next (hands
kept the board from settling in between), or when nobody saw the board meanwhile (a
gap in the frames: a reboot, a link down; the colours give the order); any other
order is a problem as ever.

A board with uncertain points (a hand over it, a stone half off its point) is never
used; if it lasts ``lasting_s`` it becomes an ``unclear_reading`` problem. A new stone
on a corner point must stay ``corner_wait_s`` before it counts: a hand resting
diagonally off a corner can shade that one point like a stone while its two neighbours
stay bright, so there the board cannot tell and only time does (1-1 points are rarely
played). A waiting corner stone that stays is played first even if another stone
appears or the pass button is pressed meanwhile (the pass waits for it).

Faulty sensors (``Sighting.masked``, ``edge.sensing.faults``) are read around: such a
point counts as holding what the game has there. A move on it cannot be seen, so it
is played only when the rules tell it from the rest of the board (colour sensing): the
stones it captured went, or the next stones follow it in turn order (the other
colour's first) and that point is the only place the side to move can have played;
otherwise the problem names the faulty point, and the board is read again when a mask
ends. Not done: telling such a move under occupancy sensing (colours follow the turn
order, so the next stone is read as the missing move). A captured stone never seen
gone, when the frames stopped after its capture, may be its side's stone played again
there: it is read so only when that puts the new stones in turn order.

Buttons: pass, undo and end change the game once the board has settled
(``edge.reading.button_presses``); with ``count_first`` the end (END, or the second
pass) waits for the count of dead stones (``edge.reading.count_stops``: meanwhile a
stone lifted toggles its group dead or alive; nothing read is a move). Against the
engine, ``expect_engine_move`` gives the point where the engine's stone must go (its LED
lights); a stone elsewhere is ``engine_stone_misplaced``. ``show_hint`` lights a hint for
the position it was computed for, and ``show_reason`` instead blinks the group its
reason is about (all three: ``edge.reading.engine_advice``). ``show_mistake`` blinks the
teacher's mistake until the learner takes it back (the board set back, or UNDO) or keeps
it (``keep``, or play goes on): ``edge.reading.teacher_stops``. What each point did and
what masks hide is kept by ``edge.reading.point_memory``; the LEDs' pattern is
``edge.reading.led_pattern`` (``LedPattern``, ``LED_OFF`` re-exported here).

Every call returns a list of events in order: the game's (``Played``, ``Undone``, ``Ended`` of
``gobuddy.go.game``, made by ``edge.game``), the problems'
(``edge.reading.problems``), the learner's decisions (``Decided``, ``edge.teacher``), and a
``LedPattern`` whenever what the LEDs should show changes.
Time comes from frame timestamps only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Union

from edge.reading.button_presses import ButtonPresses
from edge.sensing.classify import STONE, BoardInput, ButtonPress, Classifier, Sighting
from edge.reading.led_pattern import LED_OFF, LedPattern, led_pattern
from edge.reading.point_memory import PointMemory
from edge.sensing.stability import StabilityConfig, Stabiliser, StableBoard
from edge.reading.unseen_moves import masked_move_candidates, moves_in_order
from edge import game as board_game
from edge.end_count import CountChanged, CountStarted
from edge.reading.count_groups import CountGroups
from edge.reading.count_stops import CountStops
from edge.reading.engine_advice import EngineAdvice
from edge.reading.teacher_stops import TeacherStops
from edge.teacher import Decided, Mistake
from edge.reading.problems import (BoardDiff, Context, Problem, ProblemCleared, ProblemRaised, board_diff,
                           captures_not_removed, diagnose, engine_misplaced, illegal, raised, unclear,
                           with_fault_note, wrong_color)
from gobuddy.go.coords import EMPTY, pass_move
from gobuddy.go.game import Ended, Game, Played, Undone


Event = Union[Played, Undone, Ended, ProblemRaised, ProblemCleared, Decided, LedPattern, CountStarted, CountChanged]


@dataclass(frozen=True)
class ReconcileConfig:
    """``stability`` of the board reading; ``max_undo_moves``: how many stone moves back
    a restored earlier position may reach (2 lets a player take back their move and
    the engine's reply at once); ``corner_wait_s``: how long a new stone on a corner
    point must stay before it counts (0: no wait); ``button_wait_s``: the longest a
    button press waits for the board to settle; ``end_wait_s`` the same for the end
    button; ``two_moves_apart_s``: how much earlier the side to move's stone must have
    appeared than the other side's for the two to be read as two moves in turn;
    ``mask_wait_s``: how long a difference nothing explains waits for a point masked
    that recently (a glint, not yet a fault) before it is a problem."""

    stability: StabilityConfig = field(default_factory=StabilityConfig)
    max_undo_moves: int = 2
    corner_wait_s: float = 1.0
    button_wait_s: float = 2.0
    end_wait_s: float = 3.0
    two_moves_apart_s: float = 0.2
    mask_wait_s: float = 1.0


class Reconciler(ButtonPresses, EngineAdvice, TeacherStops, CountStops):
    """Turns one board's frames and button presses into game events and LED patterns.

    ``classifier`` is needed only for ``feed``/``run`` with frames (``observe`` takes
    sightings). Not checked: that frames come in time order from one board."""

    def __init__(self, game: Game, classifier: Classifier | None = None,
                 config: ReconcileConfig = ReconcileConfig()) -> None:
        self.game = game
        self.classifier = classifier
        self.config = config
        self.stabiliser = Stabiliser(config.stability)
        self.problem: Problem | None = None
        self.stable: tuple[int, ...] | None = None  # the last clear stable board
        self._now = 0.0  # time of the latest sighting
        self._corner: tuple[int, int, float] | None = None  # waiting (point, class, since)
        self._queued: list[tuple[str, float]] = []  # button presses waiting for the board
        self.pending: tuple[int, ...] = ()  # captured stones still on the board
        self.led = LED_OFF
        self._after_undo = False
        self._engine_move: int | None = None
        self._hint: int | None = None
        self._reason: tuple[int, ...] = ()  # what the lit hint's reason is about (edge.engine_answers)
        self.mistake: Mistake | None = None  # the teacher's call waiting for the learner
        self.count_first = False  # END and the second pass start a count (edge.end_count)
        self.counting: tuple[int, ...] | None = None  # a count under way: the dead stones to blink
        self.count_groups: CountGroups | None = None  # its groups and the players' toggles
        self._gone: tuple[int, set[int]] = (0, set())  # (stone move number, captures seen gone)
        self.points = PointMemory()  # when each point changed, what masks hide
        self._unsure = False  # the latest sighting had uncertain points
        self._after_gap = False  # frames stopped for a while since the last stable board

    # ------------------------------------------------------------------ inputs
    def run(self, inputs: Iterable[BoardInput]) -> list[Event]:
        """``feed`` every input; all the events in order."""
        events: list[Event] = []
        for item in inputs:
            events.extend(self.feed(item))
        return events

    def feed(self, item: BoardInput) -> list[Event]:
        """One frame (classified here) or button press."""
        if isinstance(item, ButtonPress):
            return self.press(item.button, item.t)
        if self.classifier is None:
            raise ValueError("this Reconciler has no classifier: pass sightings to observe()")
        return self.observe(self.classifier.classify(item))

    def observe(self, sighting: Sighting) -> list[Event]:
        """One classified frame."""
        before, self._now = self._now, sighting.t
        gap = bool(before) and sighting.t - before > self.config.stability.max_gap_s
        self._after_gap |= gap
        self._unsure = bool(sighting.uncertain)
        unmasked = self.points.update(sighting, self.game.position.board, gap)
        corner = self._corner
        stable = None if sighting.blind else self.stabiliser.push(sighting)
        if self.game.ended:
            return []
        if self.counting is not None:  # the players look at the count: read for their choices, never a move
            if stable is not None and not stable.lasting:
                self.stable = stable.board
                return self.count_board(self.points.read(stable.board, self.game.position.board))
            return []
        events: list[Event] = []
        if stable is not None:
            events = self._on_stable(stable)
        elif corner is not None and before < corner[2] + self.config.corner_wait_s <= sighting.t:
            events = self._evaluate()
        elif self.points.mask_aged(before, sighting.t, self.config.mask_wait_s):
            events = self._evaluate()  # a mask grew old: what waited for it is named now
        elif unmasked and self.problem is not None:
            events = self._evaluate()  # fewer points to read around: the problem may resolve
        return self._with_led(events + self._release_presses(sighting.t))

    def end(self, dead: tuple[int, ...] = (), result: str | None = None) -> list[Event]:
        """Finish the game by counting (see ``Game.end``); the board is no longer read."""
        return self._with_led([board_game.end(self.game, dead, result)])

    def resign(self, color: int) -> list[Event]:
        return self._with_led([board_game.resign(self.game, color)])

    # ------------------------------------------------------------------ deciding
    def _on_stable(self, stable: StableBoard) -> list[Event]:
        if stable.lasting:
            return self._settle(unclear(stable.uncertain, self.game.size))
        self.stable = stable.board
        events = self._evaluate()
        self._after_gap = False
        return events

    def _evaluate(self) -> list[Event]:
        raw, game = self.stable, self.game
        if raw is None or game.ended:
            return []
        board = self.points.read(raw, game.position.board)
        if self._corner is not None and raw[self._corner[0]] != self._corner[1]:  # a masked point keeps its class
            self._corner = None  # the waiting corner stone is gone (or changed): forget it
        diff = board_diff(game.position.board, board, self._leftovers(board))
        self.pending = diff.leftover
        if diff.matches:
            self._after_undo = False
            return self._settle(None)
        if self._after_undo:
            return self._settle(diagnose(diff, self._context()))
        if diff.removed:
            back = self._undo_depth(board)
            if back:
                events = self._settle(None)
                for _ in range(back):
                    events.extend(self._undo_one())
                self._forget_requests()
                self.pending = ()
                return events
        again = self._replayed(diff, board)
        if again is not None:
            return self._play(again[0]) + self._evaluate()
        if len(diff.added) == 1 and not diff.recoloured and self._only_own_captures_gone(diff):
            return self._new_stone(diff, board)
        corner = self._corner
        if (corner is not None and corner[:2] in diff.added and not diff.recoloured
                and all(p in self._captured_by(corner[0]) for p, _ in diff.removed)):
            # The waiting corner stone came first: once it has stayed, play it, then the rest.
            if self._now - corner[2] < self.config.corner_wait_s:
                return []
            events = self._new_stone(BoardDiff((corner[:2],), (), (), diff.leftover), board)
            last = self.game.last_stone_move()
            return events + self._evaluate() if last is not None and last.point == corner[0] else events
        slack = 0.0 if self._after_gap else self.config.two_moves_apart_s
        order = moves_in_order(diff, game.position, self.points.since, slack)
        if order is not None:
            return self._play(order[0]) + self._evaluate()
        if self.points.masked:
            return self._masked_move(diff, diagnose(diff, self._context()))
        return self._settle(diagnose(diff, self._context()))

    def _replayed(self, diff: BoardDiff, board: tuple[int, ...]) -> list[int] | None:
        """New stones in turn order that start with captured stones still on their points,
        read as played again by their side (taken off and put back while nobody saw: the
        frames stopped after the capturing stone came); ``None`` if none fit."""
        last = self.game.last_stone_move()
        gap_end = self.points.gap_end
        if (not diff.leftover or not diff.added or gap_end is None or last is None
                or gap_end < self.points.since[last.point]):
            return None
        again = tuple((p, board[p]) for p in diff.leftover)
        slack = 0.0 if self._after_gap else self.config.two_moves_apart_s
        return moves_in_order(BoardDiff(again + diff.added, diff.removed, (), ()), self.game.position,
                              self.points.since, slack)

    def _masked_move(self, diff: BoardDiff, problem: Problem) -> list[Event]:
        """A difference that a move on a masked point explains, and nothing else does: play
        it (and the rest on the next evaluation); otherwise ``problem``, naming the points."""
        game = self.game
        slack = 0.0 if self._after_gap else self.config.two_moves_apart_s
        candidates = masked_move_candidates(diff, game.position, self.points.masked, self.points.since, slack)
        if len(candidates) == 1:
            return self._play(candidates[0]) + self._evaluate()
        if self.points.recent_empty_mask(self._now, self.config.mask_wait_s, game.position.board):
            return []  # a glint may hide a stone that explains it all: read the board when it ends
        return self._settle(with_fault_note(problem, sorted(self.points.masked), game.size))

    def _leftovers(self, board: tuple[int, ...]) -> dict[int, int]:
        """Captured stones of the last stone move that may still lie on the board: those
        not yet seen gone (a point seen empty is free again: a stone there is new)."""
        last = self.game.last_stone_move()
        if last is None:
            return {}
        if self._gone[0] != last.number:
            self._gone = (last.number, set())
        gone = self._gone[1]
        gone.update(p for p in last.captured if board[p] == EMPTY)
        return {p: -last.color for p in last.captured if p not in gone}

    def _only_own_captures_gone(self, diff: BoardDiff) -> bool:
        """True if every stone missing from the board is one the new stone captures (so
        the players took the captures off before the board settled)."""
        if not diff.removed:
            return True
        point, seen = diff.added[0]
        if seen not in (self.game.to_play, STONE):
            return False
        captured = self._captured_by(point)
        return all(p in captured for p, _ in diff.removed)

    def _captured_by(self, point: int) -> set[int]:
        """The stones a move of the side to move at ``point`` would capture (none if it
        is illegal)."""
        pos = self.game.position
        if pos.illegal_reason(point) is not None:
            return set()
        return set(pos.copy().play(point))

    def _new_stone(self, diff: BoardDiff, board: tuple[int, ...]) -> list[Event]:
        game, size = self.game, self.game.size
        pos = game.position
        point, seen = diff.added[0]
        color = pos.to_play if seen == STONE else seen
        if diff.leftover:
            last = game.last_stone_move()
            assert last is not None
            return self._settle(captures_not_removed(diff.leftover, -last.color, size))
        if color != pos.to_play:
            problem = wrong_color(point, color, pos.to_play, size)
            return self._masked_move(diff, problem) if self.points.masked else self._settle(problem)
        if game.is_engine_turn() and point != self._engine_move:
            return self._settle(engine_misplaced(point, self._engine_move, size))
        reason = pos.illegal_reason(point)
        if reason is not None:
            return self._settle(illegal(point, pos.to_play, reason, size))
        if self.config.corner_wait_s > 0 and _is_corner(point, size):
            if self._corner is None or self._corner[:2] != (point, seen):
                self._corner = (point, seen, self._now)
            if self._now - self._corner[2] < self.config.corner_wait_s:
                return []
        self._corner = None
        events = self._play(point)
        self.pending = tuple(self._leftovers(board))
        return events

    def _undo_depth(self, board: tuple[int, ...]) -> int:
        """How many moves to take back so the game shows ``board`` (0: none within reach)."""
        game = self.game
        moves = game.moves
        passed = pass_move(game.size)
        stones = 0
        for j in range(len(moves) - 1, -1, -1):
            if moves[j][1] != passed:
                stones += 1
                if stones > self.config.max_undo_moves:
                    return 0
            if _same(board, game.board_after(j), self.points.masked):
                return len(moves) - j
        return 0

    def _context(self) -> Context:
        game = self.game
        return Context(game.size, game.to_play, game.move_number, game.last_stone_move(),
                       game.setup_black, self._after_undo)

    def _settle(self, problem: Problem | None) -> list[Event]:
        """Make ``problem`` the current one (``None``: all is well); events for the change."""
        old = self.problem
        if problem == old:
            return []
        events: list[Event] = []
        n = self.game.move_number
        if old is not None:
            events.append(ProblemCleared(n, old.kind))
        if problem is not None:
            events.append(raised(problem, self.game.size, n))
        self.problem = problem
        return events

    def _play(self, point: int) -> list[Event]:
        """Play ``point`` for the side to move (the board shows it): any problem cleared,
        the engine's requests forgotten."""
        events = self._settle(None)
        events.append(board_game.play(self.game, point))
        self._forget_requests()
        return events

    def _forget_requests(self) -> None:
        self._engine_move = None
        self._hint = None
        self._reason = ()

    # ------------------------------------------------------------------ LEDs
    def led_pattern(self) -> LedPattern:
        """What the LEDs should show now (``edge.reading.led_pattern``: problem > captures to
        remove > the engine's point > a hint > off)."""
        return led_pattern(self.game, self.problem, self.pending, self._engine_move, self._hint,
                           self._mistake_points(), self.counting, self._reason)

    def _with_led(self, events: list[Event]) -> list[Event]:
        self._kept_by_play(events)
        led = self.led_pattern()
        if led != self.led:
            self.led = led
            events.append(led)
        return events


def _is_corner(point: int, size: int) -> bool:
    r, c = divmod(point, size)
    return r in (0, size - 1) and c in (0, size - 1)


def _same(board: tuple[int, ...], stones: tuple[int, ...], masked: frozenset[int] = frozenset()) -> bool:
    """``board`` (classes) shows exactly ``stones`` (``STONE`` matches either colour),
    the ``masked`` points aside."""
    for p, (s, e) in enumerate(zip(board, stones)):
        if s != e and (s != STONE or e == EMPTY) and p not in masked:
            return False
    return True


__all__ = ["Reconciler", "ReconcileConfig", "LedPattern", "LED_OFF", "Event"]
