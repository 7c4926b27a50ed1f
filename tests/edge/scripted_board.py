"""A person at the board, as the reconciler sees it: classified boards in simulated time.

``ScriptedBoard`` holds the physical board (classes per point) and feeds a ``Reconciler``
25 sightings a second. Steps are short strings, several joined by ``;``:

| step                 | meaning                                                        |
|----------------------|----------------------------------------------------------------|
| ``X D4 E5``          | put black stones (``O`` white, ``#`` a stone of unknown colour) |
| ``- D4``             | take stones off                                                |
| ``pass`` / ``undo`` / ``end`` | press the button                                      |
| ``mask D4``          | D4's sensor fails: it reads what it read then (``unmask D4``)   |
| ``wait 1.5``         | let time pass (seconds)                                        |
| ``dark 1.5``         | no frames for 1.5 s (a reboot): the next actions are seen after |
| ``engine D4``        | the engine answers D4 (or ``pass``) for the current position   |
| ``hint D4``          | a hint for the current position                                |
| ``mistake C3 6.5``   | the teacher calls the last move a mistake: C3 better, 6.5 points lost (``-``: no better point) |
| ``done``             | TURN DONE pressed: the mistake shown is kept                   |
| ``dead C4 D4``       | the count shows C4 and D4 dead (``count_first``)               |
| ``accept`` / ``resume`` | the players accept the count shown / go back to playing     |
| ``hand D4 D5 0.8``   | a hand makes D4 and D5 read uncertain for 0.8 s                |
| ``hand O E5 / D5 2`` | ... while E5 reads as a white stone (a shadow's phantom)       |
| ``flash O E5 0.2``   | E5 reads as a white stone for 0.2 s, clearly, then empty again |

After the last action of a step the board is held still for ``settle`` seconds, and
the events of the whole step come back described as short strings (``describe``); the
events themselves are kept in ``events``.
"""

from __future__ import annotations

from edge.sensing.classify import STONE, Sighting
from edge import game as board_game
from edge.game import GameSettings
from edge.reading.problems import ProblemCleared, ProblemRaised
from edge.reading.reconcile import LedPattern, ReconcileConfig, Reconciler
from edge.end_count import CountChanged, CountStarted
from edge.teacher import Decided, Mistake
from gobuddy.go.coords import BLACK, EMPTY, WHITE, color_to_str, from_gtp, pass_move, to_gtp
from gobuddy.go.game import Ended, Played, Undone

CLASSES = {"X": BLACK, "O": WHITE, "#": STONE, ".": EMPTY}


def describe(events: list, leds: bool = False, size: int = 9) -> list[str]:
    """Events as short strings: ``move B D4 x D5``, ``pass W``, ``undo W C3``,
    ``problem two_stones E5 F5``, ``cleared two_stones``, ``led blink D5``, ``end B+R``,
``count`` / ``count dead C4 D4`` (a count started / the players changed it),
    ``taken_back B A1`` / ``kept B A1`` (the learner's decision on a mistake)."""
    out = []
    for e in events:
        if isinstance(e, Played) and e.point == size * size:
            out.append(f"pass {color_to_str(e.color)}")
        elif isinstance(e, Played):
            taken = " ".join(to_gtp(p, size) for p in e.captured)
            out.append(f"move {color_to_str(e.color)} {to_gtp(e.point, size)}" + (f" x {taken}" if taken else ""))
        elif isinstance(e, Undone):
            out.append(f"undo {color_to_str(e.played.color)} {to_gtp(e.played.point, size)}")
        elif isinstance(e, Ended):
            out.append(f"end {e.result}")
        elif isinstance(e, ProblemRaised):
            out.append(f"problem {e.kind} {' '.join(e.points)}".strip())
        elif isinstance(e, ProblemCleared):
            out.append(f"cleared {e.kind}")
        elif isinstance(e, CountStarted):
            out.append("count")
        elif isinstance(e, CountChanged):
            out.append(f"count dead {' '.join(to_gtp(p, size) for p in e.dead)}".strip())
        elif isinstance(e, Decided):
            out.append(f"{e.verdict} {color_to_str(e.mistake.color)} {to_gtp(e.mistake.point, size)}")
        elif isinstance(e, LedPattern):
            if leds:
                out.append(f"led {e.mode} {' '.join(to_gtp(p, size) for p in e.points)}".strip())
        else:
            raise AssertionError(f"unexpected event {e!r}")
    return out


def board_from_ascii(text: str) -> list[int]:
    """Rows of ``X``/``O``/``#``/``.``, top row first, spaces ignored."""
    rows = ["".join(line.split()) for line in text.strip().splitlines() if line.strip()]
    return [CLASSES[ch] for row in rows for ch in row]


class ScriptedBoard:
    """A game (``moves`` already played, GTP, colours alternating) and a person at its
    board. The physical board starts as the game's position, or ``physical`` (ASCII)."""

    RATE = 25.0

    def __init__(self, moves: str = "", settings: GameSettings = GameSettings(),
                 config: ReconcileConfig = ReconcileConfig(), physical: str | None = None,
                 occupancy: bool = False, settle: float = 0.6) -> None:
        self.game = settings.new_game()
        size = self.game.size
        for vertex in moves.split():
            point = from_gtp(vertex, size)
            if point == pass_move(size):
                board_game.pass_move(self.game)
            else:
                board_game.play(self.game, point)
        self.rec = Reconciler(self.game, config=config)
        self.occupancy = occupancy
        self.board = board_from_ascii(physical) if physical else [self._class(v) for v in self.game.position.board]
        self.held: dict[int, int] = {}  # masked points and the class they keep reading
        self._dark = False  # no frames until the step ends (a reboot)
        self.t = 0.0
        self.settle = settle
        self.first = describe(self._hold(1.0), size=self.game.size)  # the first second's events (usually none)

    def _class(self, color: int) -> int:
        return STONE if self.occupancy and color != EMPTY else color

    def _frame(self, board: list[int], uncertain: tuple[int, ...] = ()) -> list:
        self.t += 1.0 / self.RATE
        seen = tuple(self.held.get(p, v) for p, v in enumerate(board))
        masked = tuple(sorted(self.held))
        return self.rec.observe(Sighting(self.t, seen, tuple(sorted(set(uncertain) - set(masked))), None, masked))

    def _hold(self, seconds: float, board: list[int] | None = None, uncertain: tuple[int, ...] = ()) -> list:
        events: list = []
        for _ in range(max(1, round(seconds * self.RATE))):
            events += self._frame(self.board if board is None else board, uncertain)
        return events

    def _points(self, words: list[str]) -> list[int]:
        return [from_gtp(w, self.game.size) for w in words]

    def step(self, script: str, leds: bool = False) -> list[str]:
        """Run ``script`` (see the module docstring); the step's events, described."""
        events: list = []
        for action in (a.strip() for a in script.split(";")):
            words = action.split()
            head, rest = words[0], words[1:]
            if head in CLASSES:
                for p in self._points(rest):
                    self.board[p] = self._class(CLASSES[head])
                events += [] if self._dark else self._frame(self.board)
            elif head == "-":
                for p in self._points(rest):
                    self.board[p] = EMPTY
                events += [] if self._dark else self._frame(self.board)
            elif head in ("pass", "undo", "end"):
                events += self.rec.press("end_game" if head == "end" else head, self.t)
            elif head == "mask":
                self.held.update({p: self.board[p] for p in self._points(rest)})
            elif head == "unmask":
                for p in self._points(rest):
                    self.held.pop(p, None)
            elif head == "wait":
                events += self._hold(float(rest[0]))
            elif head == "dark":
                self.t += float(rest[0])
                self._dark = True
            elif head == "engine":
                events += self.rec.expect_engine_move(from_gtp(rest[0], self.game.size), self.game.move_number)
            elif head == "mistake":
                last = self.game.played[-1]
                better = None if rest[0] == "-" else from_gtp(rest[0], self.game.size)
                events += self.rec.show_mistake(Mistake(last.number, last.color, last.point, better, float(rest[1]),
                                                        0.2, "25 kyu"))
            elif head == "done":
                events += self.rec.keep()
            elif head == "dead":
                events += self.rec.show_dead(self._points(rest))
            elif head == "accept":
                events += self.rec.accept_count(self.rec.count_dead)
            elif head == "resume":
                events += self.rec.resume_play()
            elif head == "hint":
                events += self.rec.show_hint(from_gtp(rest[0], self.game.size), self.game.move_number)
            elif head in ("hand", "flash"):
                events += self._hand(head, rest)
            else:
                raise ValueError(f"unknown step {action!r}")
        self._dark = False
        events += self._hold(self.settle)
        self.events = events
        return describe(events, leds, self.game.size)

    def _hand(self, head: str, words: list[str]) -> list:
        seconds = float(words[-1])
        words = words[:-1]
        seen = list(self.board)
        if words and words[0] in CLASSES:
            cls = self._class(CLASSES[words[0]])
            phantom, _, shaded = " ".join(words[1:]).partition("/")
            for p in self._points(phantom.split()):
                seen[p] = cls
            words = shaded.split()
        uncertain = tuple(self._points(words)) if head == "hand" else ()
        return self._hold(seconds, seen, uncertain)
