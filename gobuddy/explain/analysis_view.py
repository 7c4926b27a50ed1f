"""The engine's analysis of one position, read from whatever form it comes in.

An analysis is duck-typed: the engine library's ``gobuddy.ai.analysis.Analysis`` (flat
points: each move's ``point``, ``to_play`` a colour), a ``gobuddy.bus.engine_messages.
EngineAnswer`` (attributes) or its JSON dict form as the dashboard stores it (keys), or
any object or mapping with the same names: ``to_play`` ("B"/"W"), ``root`` (``score_lead``, ``winrate``),
``moves`` (each ``move`` as a GTP vertex, ``score_lead``, ``winrate``, ``visits``,
``pv`` of GTP vertices; best first) and ``ownership`` (row-major from the top left,
+ = black, or None). Meanings are those of ``gobuddy.ai.analysis``: score leads and
win rates are for the side to move.

``view(analysis, size)`` turns it into an ``AnalysisView`` with flat points (GTP is
converted here, at the edge). Not checked: that the analysis is of the position it is
used with (the caller matches them, as the store does by position key).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from gobuddy.go.coords import color_from_str, from_gtp


@dataclass(frozen=True)
class Candidate:
    """One analysed move: flat ``point``, its score lead and win rate for the side to
    move, ``visits``, and its line (flat points, the move first)."""

    point: int
    score_lead: float | None
    winrate: float | None
    visits: int
    pv: tuple[int, ...]


@dataclass(frozen=True)
class AnalysisView:
    """An analysis with flat points: ``to_play`` (colour), the root's ``score_lead``
    and ``winrate`` (side to move), ``moves`` best first, ``ownership`` (float array of
    ``size * size``, + = black) or None."""

    to_play: int
    score_lead: float | None
    winrate: float | None
    moves: tuple[Candidate, ...]
    ownership: np.ndarray | None

    def candidate(self, point: int) -> Candidate | None:
        """The analysed move at ``point``, if it was analysed (visited)."""
        return next((c for c in self.moves if c.point == point and c.visits > 0), None)

    @property
    def best(self) -> Candidate | None:
        return self.moves[0] if self.moves else None


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if obj is None:
        return default
    if isinstance(obj, dict) or hasattr(obj, "keys") and hasattr(obj, "__getitem__"):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


def _flat(point: Any, size: int) -> int:
    """A flat point as given, or a GTP vertex read; ``ValueError`` off the board."""
    if isinstance(point, int):
        if not 0 <= point <= size * size:
            raise ValueError(f"point {point} is not on a {size}x{size} board")
        return point
    return from_gtp(point, size)


def view(analysis: Any, size: int) -> AnalysisView:
    """Read ``analysis`` (see the module docstring) for a ``size`` board. Raises
    ``ValueError`` for a vertex or ownership that does not fit the board."""
    root = _get(analysis, "root")
    moves = []
    for info in _get(analysis, "moves", ()) or ():
        pv = tuple(_flat(v, size) for v in (_get(info, "pv", ()) or ()))
        point = _get(info, "point")
        moves.append(Candidate(_flat(_get(info, "move") if point is None else point, size),
                               _number(_get(info, "score_lead")), _number(_get(info, "winrate")),
                               int(_get(info, "visits", 0) or 0), pv))
    own = _get(analysis, "ownership")
    ownership = None
    if own is not None:
        ownership = np.asarray(own, dtype=np.float64).reshape(-1)
        if ownership.size != size * size:
            raise ValueError(f"ownership has {ownership.size} values, the board {size * size} points")
    to_play = _get(analysis, "to_play")
    return AnalysisView(to_play if isinstance(to_play, int) else color_from_str(to_play),
                        _number(_get(root, "score_lead")),
                        _number(_get(root, "winrate")), tuple(moves), ownership)
