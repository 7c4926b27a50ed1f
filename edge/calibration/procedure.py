"""The calibration a person does at the board, step by step, guided by its LEDs.

``CalibrationProcedure`` is the state machine behind the agent's calibration; it does no
I/O. The agent feeds it the firmware's averaged scans (``CALDATA``), TURN DONE presses
and, in the last step, classified frames; it reads back the board commands to send
(``take_due``: a ``CAL``; ``led``: the LED pattern), the ``prompt`` (what the board
waits for: the agent publishes it in its status and logs it) and, once made, the
calibration to store and use (``ready``).

| step (``Prompt.step``) | the LEDs | the person | then |
|---|---|---|---|
| ``empty_board`` | off | keeps the board empty | the firmware averages the empty board |
| ``black_stones`` | blink row 7 (A7..J7) | lays a black stone on each point, presses TURN DONE | measured |
| ``white_stones`` | blink row 3 (A3..J3) | lays white stones there (black may stay), TURN DONE | measured, checked |
| ``clear_board`` | blink stones still on | takes the stones off | over when the board reads empty |

(Rows on 9x9: ``reference_points``.) A measurement is the firmware's average of
``scans`` scans (``CAL``), started ``settle_s`` after TURN DONE so the hand is gone.
Occupancy sensing (``colour=False``) has only the first step: the empty baseline, with
stones read at the assumed level. With colour sensing the calibration is ``ready`` when
the white stones pass the check, before ``clear_board``, which reads the board with it
(TURN DONE there ends the procedure at once).

When a step fails its prompt says why (``problem``), the LEDs blink the points concerned
(all LEDs blink when there are none), and the step waits: the empty board is measured
again after ``3 * retry_s``; a stone step after the next TURN DONE. Black and white
reading too close together sends the person back to ``black_stones`` (either colour may
be at fault). Holding TURN DONE (``on_hold``) in a stone step gives up colour: the
procedure ends with ``previous`` (the calibration in use before) or, when there was none,
the empty baseline alone (occupancy sensing); in the first step it ends with ``previous``
(if any: else the board has nothing to be read with). Not checked here: that the board
was empty for the first step (only a dark point can tell).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Sequence

from edge.link.board_view import blink_command
from edge.calibration.levels import Calibration, CalibrationError, Calibrator
from edge.sensing.classify import Sighting
from edge.sensing.stability import StabilityConfig, Stabiliser
from gobuddy.go.coords import BLACK, EMPTY, WHITE, check_size, to_gtp

EMPTY_BOARD, BLACK_STONES, WHITE_STONES, CLEAR_BOARD = "empty_board", "black_stones", "white_stones", "clear_board"
_STEP = {BLACK: BLACK_STONES, WHITE: WHITE_STONES}
_WORD = {BLACK: "black", WHITE: "white"}
GIVE_UP = "hold TURN DONE to go on without colour sensing"


@dataclass(frozen=True)
class Prompt:
    """What the board waits for: ``step`` (see the table above), ``message``: what to do,
    for people; the ``points`` (flat) the LEDs blink; ``problem``: what went wrong when
    the step failed, else empty; ``waiting``: False while the board measures (nothing
    to do but keep hands off)."""

    step: str
    message: str
    points: tuple[int, ...] = ()
    problem: str = ""
    waiting: bool = True


def reference_points(size: int) -> dict[int, tuple[int, ...]]:
    """Where the reference stones go: black on the third line from the top (row 7 on
    9x9), white on the third line from the bottom (row 3); the edge lines below 6x6."""
    row = 2 if check_size(size) >= 6 else 0
    return {BLACK: tuple(row * size + c for c in range(size)),
            WHITE: tuple((size - 1 - row) * size + c for c in range(size))}


class CalibrationProcedure:
    """One run of the calibration (see the module docstring). Times are seconds on any
    monotonic clock; ``scans`` is the ``CAL`` argument (1..64)."""

    def __init__(self, size: int, *, colour: bool, scans: int = 32, settle_s: float = 0.5,
                 retry_s: float = 2.0, previous: Calibration | None = None, min_gap: float = 0.15,
                 stability: StabilityConfig = StabilityConfig()) -> None:
        if not 1 <= scans <= 64:
            raise ValueError(f"scans must be 1..64 (the firmware's CAL), got {scans}")
        self.size = check_size(size)
        self.colour, self.scans, self.settle_s, self.retry_s = colour, scans, settle_s, retry_s
        self.previous, self.min_gap = previous, min_gap
        self.references = reference_points(size)
        self.prompt: Prompt | None = None
        self.ready: Calibration | None = None
        self.finished = False
        self._stabiliser = Stabiliser(stability)
        self._empty: tuple[int, ...] | None = None
        self._stones: dict[int, tuple[int, ...]] = {}
        self._measure_at: float | None = None
        self._measuring = False

    # ---- what the agent reads ------------------------------------------------------------

    @property
    def step(self) -> str | None:
        return self.prompt.step if self.prompt else None

    def led(self) -> str:
        """The LED command for the current prompt."""
        prompt = self.prompt
        if prompt is None:
            return "LED OFF"
        if prompt.points:
            return blink_command([to_gtp(p, self.size) for p in prompt.points])
        return "LED PROBLEM" if prompt.problem else "LED OFF"

    def take_due(self, now: float) -> str | None:
        """The ``CAL`` command to send now, if a measurement is due (then outstanding)."""
        if self._measuring or self._measure_at is None or now < self._measure_at:
            return None
        self._measuring, self._measure_at = True, None
        return f"CAL {self.scans}"

    # ---- what happens --------------------------------------------------------------------

    def start(self, now: float) -> None:
        """Begin with the empty board, measured at once."""
        self._ask(EMPTY_BOARD, "measuring the empty board: keep it clear", waiting=False)
        self._measure_at = now

    def on_failed(self, now: float) -> None:
        """The ``CAL`` was refused or lost (the board rebooted): measure again later."""
        if self._measuring:
            self._measuring, self._measure_at = False, now + self.retry_s

    def on_caldata(self, readings: Sequence[int], now: float) -> None:
        """The firmware's average for the outstanding ``CAL`` (ignored if none is)."""
        if not self._measuring or self.prompt is None:
            return
        self._measuring = False
        frame = tuple(int(v) for v in readings)
        if self.step == EMPTY_BOARD:
            self._on_empty(frame, now)
        elif self.step in (BLACK_STONES, WHITE_STONES):
            self._on_stones(BLACK if self.step == BLACK_STONES else WHITE, frame)

    def on_done(self, now: float) -> None:
        """TURN DONE pressed (short): measure this step's stones, or end the clearing."""
        colour = {BLACK_STONES: BLACK, WHITE_STONES: WHITE}.get(self.step or "")
        if colour is not None and not self._measuring and self._measure_at is None:
            self._ask(_STEP[colour], f"measuring the {_WORD[colour]} stones: keep hands off the board",
                      self.references[colour], waiting=False)
            self._measure_at = now + self.settle_s
        elif self.step == CLEAR_BOARD:
            self._end()

    def on_hold(self, now: float) -> None:
        """TURN DONE held: in a stone step, go on without colour sensing; in the first step,
        keep ``previous`` (if any); while clearing, end."""
        if self.step in (BLACK_STONES, WHITE_STONES):
            self.ready = self.previous or self._calibration(())
            self._end()
        elif self.step == EMPTY_BOARD and self.previous is not None:
            self.ready = self.previous
            self._end()
        elif self.step == CLEAR_BOARD:
            self._end()

    def on_sighting(self, sighting: Sighting) -> None:
        """A frame read with the new calibration: in ``clear_board``, blink the stones still
        on the board, and end once it holds empty."""
        if self.step != CLEAR_BOARD:
            return
        stable = self._stabiliser.push(sighting)
        if stable is None or stable.lasting:
            return
        stones = tuple(p for p, v in enumerate(stable.board) if v != EMPTY)
        if not stones:
            self._end()
        else:
            self._ask(CLEAR_BOARD, f"calibrated for colour sensing: take the stones off {_where(stones, self.size)}",
                      stones)

    # ---- inside --------------------------------------------------------------------------

    def _on_empty(self, frame: tuple[int, ...], now: float) -> None:
        self._empty = frame
        try:
            cal = self._calibration(())
        except CalibrationError as exc:
            keep = "; or hold TURN DONE to keep the calibration in use" if self.previous is not None else ""
            self._ask(EMPTY_BOARD, f"clear the board: measuring it again in {3 * self.retry_s:g} s{keep}",
                      exc.points, problem=str(exc))
            self._measure_at = now + 3 * self.retry_s
            return
        if not self.colour:
            self.ready = cal
            self._end()
            return
        self._ask_for(BLACK)

    def _on_stones(self, colour: int, frame: tuple[int, ...]) -> None:
        self._stones[colour] = frame
        try:
            self._calibration((colour,))  # every stone on its point?
        except CalibrationError as exc:
            del self._stones[colour]
            self._ask_for(colour, exc)
            return
        if colour == BLACK:
            self._ask_for(WHITE)
            return
        try:
            cal = self._calibration((BLACK, WHITE))  # and apart from the black ones?
        except CalibrationError as exc:
            self._stones.clear()
            self._ask_for(BLACK, exc, again=True)
            return
        self.ready = cal
        self._stabiliser.reset()
        self._ask(CLEAR_BOARD, "calibrated for colour sensing: take the stones off the board",
                  self.references[BLACK] + self.references[WHITE])

    def _calibration(self, colours: tuple[int, ...]) -> Calibration:
        assert self._empty is not None
        calibrator = Calibrator(self.size, min_gap=self.min_gap)
        calibrator.add_empty(self._empty)
        for colour in colours:
            calibrator.add_stones(self._stones[colour], colour, self.references[colour])
        created = datetime.now(timezone.utc).isoformat(timespec="seconds")
        return calibrator.finish(created=created, require_colour=BLACK in colours and WHITE in colours)

    def _ask_for(self, colour: int, error: CalibrationError | None = None, again: bool = False) -> None:
        """Ask for this colour's stones; after ``error``, with what went wrong, blinking the
        points it names (all LEDs when it names none)."""
        refs = self.references[colour]
        text = (f"lay a {_WORD[colour]} stone on each point of row {to_gtp(refs[0], self.size)[1:]} "
                f"({_where(refs, self.size, ' to ')}), then press TURN DONE")
        if colour == WHITE:
            text += "; the black stones may stay"
        if error is None:
            self._ask(_STEP[colour], text, refs)
            return
        if again:
            text = f"measure both colours again: {text}, then the white ones"
        self._ask(_STEP[colour], f"{text}; or {GIVE_UP}", error.points, problem=str(error))

    def _ask(self, step: str, message: str, points: Sequence[int] = (), problem: str = "",
             waiting: bool = True) -> None:
        self.prompt = Prompt(step, message, tuple(points), problem, waiting)

    def _end(self) -> None:
        self.finished = True
        self.prompt = None
        self._measure_at, self._measuring = None, False


def _where(points: Sequence[int], size: int, joiner: str = "") -> str:
    """``A7 to J7`` (a run, with ``joiner``), else the points listed."""
    if joiner and len(points) > 2:
        return f"{to_gtp(points[0], size)}{joiner}{to_gtp(points[-1], size)}"
    return ", ".join(to_gtp(p, size) for p in points)
