"""A player's estimated rank, with an interval: from results against calibrated engine
levels when the size's calibration report (``models/LEVELS.md`` for 9x9,
``models/LEVELS-13x13.md`` for 13x13: ``levels_file``) gives them Elo ratings, else from
move quality. Each board size gets its own estimate from its own games (``estimates``).

**From move quality** (the default until calibrated levels exist): the mean point loss
per move over the player's last ``RECENT`` reviewed games, mapped to a rank by
``LOSS_TO_RANK`` (linear between rows). The interval maps the mean +- 1.96 standard
errors (the per-game means' spread) the same way. The table is an assumption, not a
measurement: it follows what reviews with KataGo on 19x19 commonly report (strong amateur
dans lose about half a point a move, single-digit kyu players one to two, beginners four
and more; the thread "Strength as error distribution", lifein19x19.com, 2019, models
strength this way), while on 9x9 with our smaller network the figures are noisier. It
is shown as an estimate and is replaced as soon as levels are calibrated.

**From calibrated levels**: ``models/LEVELS.md`` (``python -m training.levels [--size N]``) holds a
markdown table with a ``level`` column, an Elo column and an "estimated rank" column.
The player's rating is the maximum-likelihood Elo of their results against those
levels (logistic, 400 points a factor of ten; draws count half), with a 95 % interval
from the likelihood's curvature, and a rating becomes a rank by interpolating between
the rows' estimated ranks (the levels' names where the table gives none). Fewer than
``MIN_GAMES`` such games, or a file without that table: move quality.

Rank numbers: ``k kyu`` is ``-k``, ``d dan`` is ``d - 1`` (so 1 kyu -> 1 dan is one step).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

from dashboard.ladder import MAIN_SIZE

RECENT = 20
MIN_GAMES = 5
LEVELS_FILE = Path(__file__).resolve().parents[1] / "models" / "LEVELS.md"


def levels_file(size: int) -> Path:
    """The calibration report of the levels on ``size`` (``training.levels --size``):
    ``models/LEVELS.md`` for 9x9, ``models/LEVELS-NxN.md`` for another size."""
    return LEVELS_FILE if size == 9 else LEVELS_FILE.with_name(f"LEVELS-{size}x{size}.md")

# mean point loss per move -> rank number (weakest last); the assumption above
LOSS_TO_RANK = ((0.3, 4.0), (0.6, 0.0), (1.0, -5.0), (1.5, -10.0), (2.2, -15.0), (3.0, -20.0), (4.0, -25.0),
                (5.5, -30.0))


@dataclass(frozen=True)
class RankEstimate:
    rank: str
    low: str  # the weaker end of the interval
    high: str
    basis: str  # how it was made, in words
    games: int


def rank_name(value: float) -> str:
    """A rank number as words: -14.6 -> "15 kyu", 0.2 -> "1 dan" (clamped to 30 kyu .. 9 dan)."""
    value = max(-30.0, min(8.0, value))
    r = round(value)
    return f"{-r} kyu" if r < 0 else f"{r + 1} dan"


def rank_value(name: str) -> float | None:
    """``"15 kyu"`` -> -15, ``"1 dan"`` -> 0; None for a name that is not a rank ("full")."""
    m = re.fullmatch(r"\s*(\d+)\s*(kyu|k|dan|d)\s*", name.lower())
    if not m:
        return None
    n = int(m.group(1))
    return -float(n) if m.group(2).startswith("k") else float(n - 1)


def interpolated(table: Sequence[tuple[float, float]], x: float) -> float:
    """The (x, y) rows of ``table`` (x ascending) read linearly between rows, flat beyond
    its ends (where two rows share an x, the later one)."""
    if x <= table[0][0]:
        return table[0][1]
    for (x0, y0), (x1, y1) in zip(table, table[1:]):
        if x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0) if x1 > x0 else y1
    return table[-1][1]


def loss_to_rank(loss: float) -> float:
    """``LOSS_TO_RANK`` read linearly between rows (flat beyond its ends)."""
    return interpolated(LOSS_TO_RANK, loss)


def from_move_quality(losses: Sequence[float]) -> RankEstimate | None:
    """The estimate from per-game mean point losses, newest last (the last ``RECENT``)."""
    recent = [x for x in losses if x is not None][-RECENT:]
    if not recent:
        return None
    mean = sum(recent) / len(recent)
    sd = math.sqrt(sum((x - mean) ** 2 for x in recent) / (len(recent) - 1)) if len(recent) > 1 else mean
    half = 1.96 * sd / math.sqrt(len(recent))
    return RankEstimate(rank_name(loss_to_rank(mean)), rank_name(loss_to_rank(mean + half)),
                        rank_name(loss_to_rank(max(0.0, mean - half))),
                        f"mean point loss {mean:.2f} a move over the last {len(recent)} reviewed game(s), "
                        "mapped by an assumed table (see dashboard/rank_estimate.py)", len(recent))


def level_rows(path: Path = LEVELS_FILE) -> list[dict[str, str]]:
    """The rows of the first markdown table of ``path`` with a ``level`` and an Elo column,
    each as lower-cased header -> cell (markdown ``*`` and backticks stripped). Empty when
    the file or such a table is missing."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    rows: list[dict[str, str]] = []
    header: list[str] | None = None
    for line in lines:
        if not line.strip().startswith("|"):
            if rows:
                break
            header = None
            continue
        cells = [c.strip().strip("`*").strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = [c.lower() for c in cells]
            if "level" not in header or not any("elo" in h for h in header):
                header = []
            continue
        if header and not set("".join(cells)) <= set("-: "):
            rows.append(dict(zip(header, cells)))
    return rows


def estimated_rank_cell(row: dict[str, str]) -> str:
    """A level row's "estimated rank" cell ("" when the table has none)."""
    return next((cell for h, cell in row.items() if "rank" in h), "")


def read_levels(path: Path = LEVELS_FILE) -> dict[str, tuple[float, float | None]]:
    """Level name -> (Elo, rank number) from ``level_rows``: the first number of the Elo
    cell (``+120 (+60 to +190)``) and the first rank of the "estimated rank" cell
    (``training.levels`` writes it, GNU Go's rows included), else the level's own name when
    that is a rank, else None."""
    out: dict[str, tuple[float, float | None]] = {}
    for row in level_rows(path):
        level = row["level"]
        elo = next(cell for h, cell in row.items() if "elo" in h)
        found = re.search(r"\d+\s*(?:kyu|dan)", estimated_rank_cell(row))
        number = re.search(r"[-+]?\d+(\.\d+)?", elo)
        if number:
            out[level] = (float(number.group()), rank_value(found.group()) if found else rank_value(level))
    return out


def from_results(results: Sequence[tuple[str, str]], levels: dict[str, tuple[float, float | None]],
                 source: str = "models/LEVELS.md") -> RankEstimate | None:
    """The estimate from (engine level, win|loss|draw) results and the levels' (Elo, rank),
    read from ``source`` (named in the basis)."""
    games = [(levels[lv][0], {"win": 1.0, "loss": 0.0, "draw": 0.5}[o]) for lv, o in results if lv in levels]
    anchors = sorted((elo, rank) for elo, rank in levels.values() if rank is not None)  # Elo -> rank number
    if len(games) < MIN_GAMES or len(anchors) < 2:
        return None

    def expected(r: float, opp: float) -> float:
        return 1.0 / (1.0 + 10 ** ((opp - r) / 400.0))

    # the games grouped by opponent (a handful of levels): (opponent Elo, games, score)
    grouped: dict[float, list[float]] = {}
    for o, s in games:
        tally = grouped.setdefault(o, [0.0, 0.0])
        tally[0] += 1
        tally[1] += s
    by_opponent = [(o, n, score) for o, (n, score) in grouped.items()]

    def loglik(r: float) -> float:
        return sum(score * math.log(max(1e-12, expected(r, o))) + (n - score) * math.log(max(1e-12, 1 - expected(r, o)))
                   for o, n, score in by_opponent)

    lo_bound, hi_bound = min(grouped) - 800, max(grouped) + 800
    best = max((lo_bound + i * (hi_bound - lo_bound) / 400 for i in range(401)), key=loglik)
    info = sum(n * expected(best, o) * (1 - expected(best, o)) for o, n, _ in by_opponent) * (math.log(10) / 400) ** 2
    half = 1.96 / math.sqrt(info) if info > 0 else 400.0

    def to_rank(elo: float) -> str:
        return rank_name(interpolated(anchors, elo))  # type: ignore[arg-type]

    return RankEstimate(to_rank(best), to_rank(best - half), to_rank(best + half),
                        f"Elo {best:.0f} ± {half:.0f} from {len(games)} game(s) against the calibrated levels "
                        f"of {source}", len(games))


def estimates(losses: Sequence[float], results: Mapping[int, Sequence[tuple[str, str]]],
              levels_of: Callable[[int], dict[str, tuple[float, float | None]]] | None = None
              ) -> list[tuple[int | None, RankEstimate]]:
    """The estimates of a player who played on several board sizes: one a size from its
    results (engine level, outcome) against that size's calibrated levels (``levels_of``,
    default ``read_levels(levels_file(size))``), the main size (9x9) first, then by
    size; when no size has
    enough of them, the move-quality estimate alone (size ``None``); empty when neither.

    The sizes are not pooled: each size's Elo scale is anchored at GNU Go level 10 on that
    size, and only the reports' rank columns relate them."""
    read = levels_of or (lambda size: read_levels(levels_file(size)))
    found: list[tuple[int | None, RankEstimate]] = []
    for size in sorted(results, key=lambda n: (n != MAIN_SIZE, n)):
        path = levels_file(size)
        est = from_results(results[size], read(size), f"{path.parent.name}/{path.name}")
        if est is not None:
            found.append((size, est))
    if not found:
        quality = from_move_quality(losses)
        if quality is not None:
            found.append((None, quality))
    return found
