"""Calibration of the board's light sensors: per-point empty baselines and stone levels.

The light model (the simulator's version of it is ``edge.simulation.sensor_model``):

- Each light sensor (LDR) under an intersection gives a reading roughly proportional
  to the light reaching it. Under an empty point that is the ambient light; the
  reading of the empty board is the point's *baseline*. Baselines differ from point to
  point (LDR gain, hole depth, where the lamp is) by tens of percent.
- A stone over a point lets through a fraction of that light, its *level*: a black
  stone blocks most of it (about 0.20 of the baseline), a white stone is translucent
  and reflective (about 0.55). Because a point's gain multiplies empty and covered
  readings alike, the ratio ``reading / baseline`` does not depend on the point: one
  black level and one white level serve the whole board. What is left over (stones
  differ a little, stones sit off-centre and let some light past) is absorbed by the
  classifier's margins.
- Some hardware cannot tell the two stone levels apart (or nobody measured them): the
  board then senses occupancy only, and a stone's colour follows the turn order.
  Calibration decides which: colour sensing needs both levels measured, and the
  darkest white reference stone reading at least ``min_gap`` (of the baseline) above
  the brightest black one.

``Calibrator`` builds a ``Calibration`` from frames of the empty board and, where colour
sensing is wanted, frames with reference stones on some points; ``CalibrationStore``
keeps one per board as JSON in a data directory. Redoing a calibration is building a
new one and saving it over the old. The steps a person follows at the board are
``edge.calibration.procedure``.

Not done here: tracking ambient light as it changes during play (the classifier does
that; a reference frame is only corrected for a uniform change of light since the
empty board was measured), and per-point stone levels (one level per colour, see
above).
"""

from __future__ import annotations

import json
import os
import re
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from gobuddy.go.coords import BLACK, WHITE, check_size, color_to_str, to_gtp

FORMAT = 1
FULL_SCALE = 1023
MIN_BASELINE = 40  # an empty point reading less than this is covered or broken
DEFAULT_STONE_LEVEL = 0.55  # assumed (lightest) stone level when none was measured
MAX_STONE_LEVEL = 0.85  # a reference stone reading more than this is not on its point

_BOARD_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class CalibrationError(ValueError):
    """A calibration that cannot be made or read; the message names what was wrong, and
    ``points`` (flat) the points concerned, when there are any."""

    def __init__(self, message: str, points: Iterable[int] = ()) -> None:
        super().__init__(message)
        self.points = tuple(points)


@dataclass(frozen=True)
class Calibration:
    """What the classifier needs to read one board.

    ``baseline``: per flat point, the empty-board reading (0..1023). ``black_level`` and
    ``white_level``: median ratio reading/baseline of the reference stones of each colour
    (``None`` when not measured). ``colour_sensing``: whether the two levels are far
    enough apart to tell colours. ``stone_level``: the level occupancy sensing uses (the
    brighter of the measured levels, else ``DEFAULT_STONE_LEVEL``). ``spread``: the
    largest standard deviation of reference ratios within a colour (0 when unmeasured).
    ``created``: free text the caller may set (a timestamp); not interpreted."""

    size: int
    baseline: tuple[float, ...]
    black_level: float | None = None
    white_level: float | None = None
    colour_sensing: bool = False
    stone_level: float = DEFAULT_STONE_LEVEL
    spread: float = 0.0
    created: str = ""

    def __post_init__(self) -> None:
        check_size(self.size)
        if len(self.baseline) != self.size * self.size:
            raise CalibrationError(
                f"baseline has {len(self.baseline)} values, expected {self.size * self.size}")
        if self.colour_sensing and (self.black_level is None or self.white_level is None):
            raise CalibrationError("colour sensing needs both black_level and white_level")
        if not 0.0 < self.stone_level < 1.0:
            raise CalibrationError(f"stone_level must lie between 0 and 1, got {self.stone_level}")

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> dict:
        """A JSON-ready dict (``format`` included)."""
        return {
            "format": FORMAT, "size": self.size, "baseline": [round(b, 3) for b in self.baseline],
            "black_level": self.black_level, "white_level": self.white_level,
            "colour_sensing": self.colour_sensing, "stone_level": self.stone_level,
            "spread": self.spread, "created": self.created,
        }

    @classmethod
    def from_json(cls, data: dict) -> "Calibration":
        """Inverse of ``to_json``; raises ``CalibrationError`` naming a missing or bad field."""
        if not isinstance(data, dict):
            raise CalibrationError("a calibration must be a JSON object")
        if data.get("format") != FORMAT:
            raise CalibrationError(f"calibration format {data.get('format')!r} is not {FORMAT}")
        try:
            return cls(
                size=int(data["size"]), baseline=tuple(float(b) for b in data["baseline"]),
                black_level=_opt_float(data["black_level"]), white_level=_opt_float(data["white_level"]),
                colour_sensing=bool(data["colour_sensing"]), stone_level=float(data["stone_level"]),
                spread=float(data["spread"]), created=str(data.get("created", "")),
            )
        except KeyError as exc:
            raise CalibrationError(f"calibration field {exc.args[0]!r} is missing") from None
        except (TypeError, ValueError) as exc:
            if isinstance(exc, CalibrationError):
                raise
            raise CalibrationError(f"calibration has a malformed field: {exc}") from None


def _opt_float(value: object) -> float | None:
    return None if value is None else float(value)  # type: ignore[arg-type]


class Calibrator:
    """Collects frames of the empty board and of reference stones; ``finish`` decides.

    Usage: ``add_empty`` one or more frames of the empty board (or one frame the
    firmware averaged), then optionally ``add_stones`` frames with reference stones of
    one colour at known points (a handful per colour is enough), then ``finish``.
    Reference frames are read against the baseline at ``finish`` time, so their order
    does not matter. A reference frame's readings are divided by its light level, the
    median of ``reading / baseline`` over the points that are not its references, so
    a uniform change of light since the empty board does not shift the levels; at
    least half of those points must be empty (other stones may lie there). Not
    checked: light that changed unevenly."""

    def __init__(self, size: int = 9, *, min_gap: float = 0.15) -> None:
        self.size = check_size(size)
        self.min_gap = min_gap
        self._empty: list[list[int]] = []
        self._stones: list[tuple[int, list[int], list[int]]] = []  # (colour, points, readings)

    def _check_frame(self, readings: Sequence[int]) -> list[int]:
        values = [int(v) for v in readings]
        if len(values) != self.size * self.size:
            raise CalibrationError(f"a frame has {len(values)} readings, expected {self.size * self.size}")
        bad = [i for i, v in enumerate(values) if not 0 <= v <= FULL_SCALE]
        if bad:
            raise CalibrationError(f"reading out of range 0..{FULL_SCALE} at {to_gtp(bad[0], self.size)}")
        return values

    def add_empty(self, readings: Sequence[int]) -> None:
        """One frame of the empty board (raw readings, row-major from the top left)."""
        self._empty.append(self._check_frame(readings))

    def add_stones(self, readings: Sequence[int], color: int, points: Iterable[int]) -> None:
        """One frame with reference stones of ``color`` on ``points`` (flat indices)."""
        if color not in (BLACK, WHITE):
            raise CalibrationError(f"{color!r} is not a colour")
        pts = sorted(set(points))
        if not pts or any(not 0 <= p < self.size * self.size for p in pts):
            raise CalibrationError(f"reference points {pts!r} are not points of a {self.size}x{self.size} board")
        self._stones.append((color, pts, self._check_frame(readings)))

    def finish(self, created: str = "", require_colour: bool = False) -> Calibration:
        """The calibration, or ``CalibrationError`` naming dark points or missing stones;
        with ``require_colour``, also naming the reference stones that keep black from
        white (see ``check_apart``) instead of falling back to occupancy sensing."""
        if not self._empty:
            raise CalibrationError("no frame of the empty board was given")
        n = self.size * self.size
        baseline = [sum(frame[p] for frame in self._empty) / len(self._empty) for p in range(n)]
        dark = [p for p in range(n) if baseline[p] < MIN_BASELINE]
        if dark:
            raise CalibrationError(
                f"the empty board reads darker than {MIN_BASELINE} at {', '.join(to_gtp(p, self.size) for p in dark)}: "
                "is something on the board, or a sensor broken?", dark)
        by_point: dict[int, dict[int, float]] = {BLACK: {}, WHITE: {}}
        for color, points, readings in self._stones:
            light = _light(readings, baseline, points)
            measured = {p: readings[p] / baseline[p] / light for p in points}
            missing = [p for p in points if measured[p] > MAX_STONE_LEVEL]
            if missing:
                raise CalibrationError(_missing(color, missing, measured, self.size), missing)
            by_point[color].update(measured)
        if require_colour:
            check_apart(by_point[BLACK], by_point[WHITE], self.min_gap, self.size)
        ratios = {c: list(r.values()) for c, r in by_point.items()}
        levels = {c: (statistics.median(r) if r else None) for c, r in ratios.items()}
        spreads = [statistics.pstdev(r) for r in ratios.values() if len(r) >= 2]
        spread = max(spreads) if spreads else 0.0
        black, white = levels[BLACK], levels[WHITE]
        colour = (black is not None and white is not None
                  and min(ratios[WHITE]) - max(ratios[BLACK]) >= self.min_gap)
        measured = [v for v in (black, white) if v is not None]
        stone_level = max(measured) if len(measured) == 2 else max(measured + [DEFAULT_STONE_LEVEL])
        return Calibration(size=self.size, baseline=tuple(baseline), black_level=black,
                           white_level=white, colour_sensing=colour, stone_level=stone_level,
                           spread=spread, created=created)


def _colour_word(color: int) -> str:
    return "black" if color == BLACK else "white" if color == WHITE else color_to_str(color)


def _light(readings: Sequence[int], baseline: Sequence[float], references: Sequence[int]) -> float:
    """The light level of a reference frame: median ``reading / baseline`` of the other points."""
    skip = set(references)
    others = [readings[q] / baseline[q] for q in range(len(baseline)) if q not in skip]
    return statistics.median(others) if others else 1.0


def _missing(color: int, points: list[int], ratios: dict[int, float], size: int) -> str:
    where = ", ".join(to_gtp(p, size) for p in points)
    reads = ", ".join(f"{ratios[p]:.2f}" for p in points)
    if len(points) == 1:
        return (f"the {_colour_word(color)} reference stone at {where} reads {reads} of the empty "
                "baseline: is it on its point?")
    return (f"the {_colour_word(color)} reference stones at {where} read {reads} of the empty "
            "baseline: are they on their points?")


def check_apart(black: dict[int, float], white: dict[int, float], min_gap: float, size: int) -> None:
    """Raise ``CalibrationError`` unless every white reference ratio lies ``min_gap`` above
    every black one (``black``/``white``: flat point to ratio of the empty baseline).

    The error says that the colours read alike (medians closer than ``min_gap``: the
    hardware cannot tell them), or names the stones in the way: black ones reading
    above, white ones below, the band of ``min_gap`` around the midpoint of the two
    medians (a stone off its point, a shadow)."""
    if not black or not white:
        raise CalibrationError("colour sensing needs reference stones of both colours")
    if min(white.values()) - max(black.values()) >= min_gap:
        return
    mb, mw = statistics.median(black.values()), statistics.median(white.values())
    levels = f"black reads {mb:.2f}, white {mw:.2f} of the empty board"
    if mw - mb < min_gap:
        raise CalibrationError(f"black and white stones read alike ({levels}; colour sensing needs "
                               f"{min_gap:.2f} between them): this board senses occupancy only")
    mid = (mb + mw) / 2
    bad = sorted([(p, "black", r) for p, r in black.items() if r > mid - min_gap / 2]
                 + [(p, "white", r) for p, r in white.items() if r < mid + min_gap / 2])
    named = ", ".join(f"{to_gtp(p, size)} ({word} {r:.2f})" for p, word, r in bad)
    raise CalibrationError(f"black and white stones are not told apart at {named}: {levels}; set those "
                           "stones on their points and keep hands off", [p for p, _, _ in bad])


class CalibrationStore:
    """One calibration per board, as ``<data_dir>/calibration/<board_id>.json``.

    Writes are atomic (a temporary file renamed over the old one). Board ids are
    letters, digits, ``_``, ``.``, ``-`` (so they are safe file names)."""

    def __init__(self, data_dir: str | os.PathLike[str]) -> None:
        self.root = Path(data_dir) / "calibration"

    def path(self, board_id: str) -> Path:
        """Where ``board_id``'s calibration lives; ``CalibrationError`` for an unsafe id."""
        if not _BOARD_ID.match(board_id):
            raise CalibrationError(f"{board_id!r} is not a usable board id")
        return self.root / f"{board_id}.json"

    def load(self, board_id: str) -> Calibration | None:
        """The saved calibration, or ``None`` if the board was never calibrated.

        A file that exists but cannot be read raises ``CalibrationError`` with its path."""
        path = self.path(board_id)
        if not path.exists():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise CalibrationError(f"cannot read {path}: {exc}") from None
        try:
            return Calibration.from_json(data)
        except CalibrationError as exc:
            raise CalibrationError(f"{path}: {exc}") from None

    def save(self, board_id: str, calibration: Calibration) -> Path:
        """Write (or overwrite) ``board_id``'s calibration; returns the file's path."""
        path = self.path(board_id)
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(calibration.to_json(), indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, path)
        return path

    def forget(self, board_id: str) -> bool:
        """Delete ``board_id``'s calibration; True if there was one."""
        path = self.path(board_id)
        if path.exists():
            path.unlink()
            return True
        return False
