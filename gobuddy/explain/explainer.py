"""Explain a move: every reader's reasons, ranked.

``explain_move(position, move, color, before, after)`` is the one entry point the GTP
command, the dashboard (hints on Live and Play, mistakes in Replay) and the SGF
comments call. The rules part (captures, ataris, ladders, snapbacks, connections,
cuts, ko) needs no network; the judgement part (life and death, the biggest point,
sente/gote, the engine's line) is added when analyses are given:

- ``before``: the analysis of ``position`` with ``color`` to play (a hint's own
  analysis; for a move played, the analysis of the position it was played in);
- ``after``: the analysis of the position the move made (the opponent to play);
- ``baseline`` (for a hint): the analysis of the position after ``color`` passes
  instead, so that life and death say what the move changes against not playing it.

All three are duck-typed (``gobuddy.explain.analysis_view``). The engine's line is a
reason only when nothing simpler applies (no reason other than tempo); tempo is told
only for a move that no reason counts against (after a loss the opponent's answer
punishes, and says nothing of sente).
"""

from __future__ import annotations

from typing import Any

from gobuddy.explain.analysis_view import AnalysisView, view
from gobuddy.explain.captures import capture_reasons
from gobuddy.explain.connections import connection_reasons
from gobuddy.explain.judgement import (
    engine_line_reasons, life_and_death_reasons, tempo_reasons, territory_reasons)
from gobuddy.explain.ko import ko_reasons
from gobuddy.explain.played import Played
from gobuddy.explain.reason import Reason, rank
from gobuddy.explain.threats import threat_reasons
from gobuddy.go.position import Position

DEFAULT_LIMIT = 5


def rules_reasons(played: Played) -> list[Reason]:
    """What the rules alone say about the move (unranked)."""
    found = capture_reasons(played) + threat_reasons(played) + ko_reasons(played) + connection_reasons(played)
    # Taking a ko is a capture of one stone, filling one saves one stone: say it once, as ko.
    if any(r.kind == "ko" and r.detail.startswith("takes") for r in found):
        found = [r for r in found if not (r.kind == "capture" and r.stones == 1 and r.good)]
    if any(r.kind == "ko" and r.detail.startswith("fills") for r in found):
        found = [r for r in found if not (r.kind == "save" and r.stones == 1)]
    return found


def explain_played(played: Played, before: AnalysisView | None = None, after: AnalysisView | None = None,
                   limit: int | None = DEFAULT_LIMIT, baseline: AnalysisView | None = None) -> list[Reason]:
    """The ranked reasons of a move already played on a copy (see ``explain_move``)."""
    found = rules_reasons(played)
    reference = baseline
    if reference is None and before is not None and before.to_play == played.color:
        reference = before
    found += life_and_death_reasons(played, reference, after)
    found += territory_reasons(played, before, after)
    if all(r.good is not False for r in found):  # after a loss the answer punishes; it tells no tempo
        found += tempo_reasons(played, after)
    if all(r.kind == "tempo" for r in found):
        found += engine_line_reasons(played, before, after)
    return rank(found, limit)


def _view(analysis: Any, size: int) -> AnalysisView | None:
    return view(analysis, size) if analysis is not None else None


def explain_move(position: Position, move: int, color: int | None = None, before: Any = None,
                 after: Any = None, limit: int | None = DEFAULT_LIMIT, baseline: Any = None) -> list[Reason]:
    """The reasons for (and against) ``color`` (default: the side to move) playing
    ``move`` (a flat point or pass) in ``position``, heaviest first, at most ``limit``.

    ``baseline``: for a hint, the analysis of the position after ``color`` passes
    instead; life and death are then told against it ("if you do not play here ...")
    rather than against ``before``. ``position`` is not changed. Raises
    ``IllegalMove`` for an illegal move and ``ValueError`` for an analysis that does
    not fit the board."""
    played = Played.of(position, move, color)
    size = position.size
    return explain_played(played, _view(before, size), _view(after, size), limit, _view(baseline, size))


def explain_hint(position: Position, before: Any, after: Any = None, baseline: Any = None,
                 limit: int | None = DEFAULT_LIMIT) -> list[Reason]:
    """The reasons for the engine's first choice in ``before`` (an analysis of
    ``position``, its side to move); ``after``: the analysis of the position after that
    move, ``baseline``: after a pass instead, if there are such. An analysis without
    moves gives no reasons."""
    seen = view(before, position.size)
    if seen.best is None:
        return []
    return explain_played(Played.of(position, seen.best.point, seen.to_play), seen,
                          _view(after, position.size), limit, _view(baseline, position.size))
