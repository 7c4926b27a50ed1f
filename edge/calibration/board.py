"""One board's calibration inside the edge agent: the stored one, and redoing it.

``BoardCalibration`` holds the board's ``Calibration`` and the ``Classifier`` made from
it, loaded from the ``CalibrationStore`` at start. ``tick`` starts an
``edge.calibration.procedure`` run when the board is connected and there is no
calibration, or one was asked for (``calibrate_on_start``; ``on_done`` with TURN DONE
held while the board reads empty), and sends the procedure's ``CAL`` commands through
``send`` (the serial link's ``command``). While it runs (``active``) the agent feeds it
the board's ``CALDATA``, TURN DONE and frames, shows ``led()``, and reads no frame
into the game. A calibration it makes is stored, logged and used at once; a stored
one is used as it is (colour sensing if it measured both colours apart).

After every change the agent should see (a new prompt, classifier or LED pattern, the
end of a run) it calls ``on_change``. Thread safety: the agent calls in under its lock;
the only call from another thread, a failed ``CAL``, takes ``lock``.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Callable, Sequence

from edge.calibration.levels import Calibration, CalibrationError, CalibrationStore
from edge.calibration.procedure import CLEAR_BOARD, CalibrationProcedure, Prompt
from edge.sensing.classify import Classifier, Frame, Sighting


class BoardCalibration:
    """See the module docstring. ``colour``: runs also calibrate black and white reference
    stones (``--color-sensing``); ``scans``, ``settle_s``, ``retry_s`` as in
    ``CalibrationProcedure``; ``clock``: the time a failed ``CAL`` is noticed at (the
    clock of the ``now`` the agent passes)."""

    def __init__(self, board_id: str, data_dir: Path, send: Callable[[str], Future], on_change: Callable[[], None],
                 lock: threading.RLock, log: logging.Logger, *, colour: bool = False, forced: bool = False,
                 scans: int = 32, settle_s: float = 0.5, retry_s: float = 2.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.board_id, self.store = board_id, CalibrationStore(data_dir)
        self.send, self.on_change, self.lock, self.log = send, on_change, lock, log
        self.colour, self.scans, self.settle_s, self.retry_s = colour, scans, settle_s, retry_s
        self.forced, self.clock = forced, clock
        self.calibration: Calibration | None = None
        self.classifier: Classifier | None = None
        self.procedure: CalibrationProcedure | None = None
        self.prompt: Prompt | None = None
        try:
            cal = self.store.load(board_id)
        except CalibrationError as exc:
            self.log.error("stored calibration unusable, will calibrate again: %s", exc)
            return
        if cal is not None:
            self.use(cal)
            if colour and not cal.colour_sensing:
                self.log.warning("the stored calibration senses occupancy only: hold TURN DONE on the empty "
                                 "board to calibrate for colour sensing")

    @property
    def active(self) -> bool:
        return self.procedure is not None

    def use(self, cal: Calibration) -> None:
        """Read the board with ``cal`` from now on (a fresh classifier)."""
        self.calibration, self.classifier = cal, Classifier(cal)

    def led(self) -> str:
        """The running procedure's LED command (``LED OFF`` when none runs)."""
        return self.procedure.led() if self.procedure is not None else "LED OFF"

    def status(self) -> dict[str, Any]:
        """Status facts: ``calibrated``, ``sensing`` (color/occupancy), and while running the
        ``calibration`` step, ``calibration_message`` (what to do) and, after a failed step,
        ``calibration_problem`` (what went wrong); ``None`` values: no such fact."""
        cal, prompt = self.calibration, self.prompt
        return {"calibrated": self.classifier is not None,
                "sensing": None if cal is None else "color" if cal.colour_sensing else "occupancy",
                "calibration": prompt.step if prompt else None,
                "calibration_message": prompt.message[:255] if prompt else None,
                "calibration_problem": prompt.problem[:255] if prompt and prompt.problem else None}

    # ---- the agent's inputs ------------------------------------------------------------------

    def tick(self, now: float, connected: bool, size: int) -> None:
        """Start a run when one is due and the board is connected; send a due ``CAL``."""
        if self.procedure is None:
            if connected and (self.classifier is None or self.forced):
                self.forced = False
                self.procedure = CalibrationProcedure(size, colour=self.colour, scans=self.scans,
                                                      settle_s=self.settle_s, retry_s=self.retry_s,
                                                      previous=self.calibration)
                self.procedure.start(now)
                self._follow()
            return
        command = self.procedure.take_due(now)
        if command is not None:
            self.send(command).add_done_callback(self._sent)

    def on_done(self, held: bool, now: float, sighting: Sighting | None, anyway: bool = False) -> bool:
        """TURN DONE released: a step of the run; else, when ``held``, a new run if the
        board reads empty in ``sighting`` or ``anyway`` (the calibration in use does not
        match the board, so its reading proves nothing); refused and logged otherwise.
        False when the press was not for the calibration (short, nothing running)."""
        if self.procedure is not None:
            (self.procedure.on_hold if held else self.procedure.on_done)(now)
            self._follow()
            return True
        if not held:
            return False
        if anyway:
            self.log.info("recalibrating: the board did not match its calibration")
            self.forced = True
        elif self.classifier is not None and (sighting is None or any(sighting.board) or sighting.uncertain):
            self.log.warning("recalibration refused: clear the board first (it must read empty)")
        else:
            self.forced = True
        return True

    def on_caldata(self, readings: Sequence[int], now: float) -> None:
        if self.procedure is not None:
            self.procedure.on_caldata(readings, now)
            self._follow()

    def on_link_reset(self, now: float) -> None:
        """The board (re)connected or rebooted: a ``CAL`` running then is lost."""
        if self.procedure is not None:
            self.procedure.on_failed(now)

    def on_frame(self, frame: Frame) -> None:
        """A frame during a run: read with the new calibration while the board is cleared."""
        if self.procedure is not None and self.procedure.step == CLEAR_BOARD and self.classifier is not None:
            self.procedure.on_sighting(self.classifier.classify(frame))
            self._follow()

    # ---- inside ------------------------------------------------------------------------------

    def _sent(self, future: Future) -> None:
        if future.exception() is not None:
            with self.lock:
                self.log.warning("CAL failed: %s", future.exception())
                if self.procedure is not None:
                    self.procedure.on_failed(self.clock())

    def _follow(self) -> None:
        """Take what the run decided: store and use a new calibration, log a new prompt,
        forget the run when it is over; then tell the agent (only if any of that happened)."""
        proc = self.procedure
        assert proc is not None
        cal, proc.ready = proc.ready, None
        if cal is None and proc.prompt == self.prompt and not proc.finished:
            return  # nothing new
        if cal is not None and cal is self.calibration:  # kept (colour given up): read afresh
            self.use(cal)
        elif cal is not None:  # stored first, so that a calibration in use is one on disk (or logged unsaved)
            refs = " and reference stones" if cal.black_level is not None and cal.white_level is not None else ""
            sensing = (f"colour sensing: black {cal.black_level:.2f}, white {cal.white_level:.2f}"
                       if cal.colour_sensing else "occupancy sensing")
            try:
                self.store.save(self.board_id, cal)
                self.log.info("calibrated (empty board%s, %s) and saved", refs, sensing)
            except (OSError, CalibrationError) as exc:  # read the board with it all the same
                self.log.error("calibrated (empty board%s, %s) but not saved: %s", refs, sensing, exc)
            self.use(cal)
        if proc.prompt != self.prompt:
            self.prompt = proc.prompt
            if proc.prompt is not None and proc.prompt.problem:
                self.log.warning("calibration, %s: %s Next: %s", proc.prompt.step, proc.prompt.problem,
                                 proc.prompt.message)
            elif proc.prompt is not None:
                self.log.info("calibration, %s: %s", proc.prompt.step, proc.prompt.message)
        if proc.finished:
            self.procedure = None
            sensing = "colour" if self.calibration is not None and self.calibration.colour_sensing else "occupancy"
            self.log.info("calibration over: %s sensing", sensing)
        self.on_change()
