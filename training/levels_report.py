"""models/LEVELS.md and its plot, from a fitted ladder (``training.levels``)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any

from training.levels_fit import Ladder

__all__ = ["record", "write_report"]

SOURCES = """\
## From Elo to ranks: the mapping, its sources and how far to trust it

- **Anchor: GNU Go 3.8 at level 10 = 8 kyu.** In KaTrain's issue on rank-calibrated
  AIs a contributor tuned the policy bots against GNU Go 3.8 at level 10 taken as an
  8 kyu opponent (<https://github.com/sanderland/katrain/issues/44>: "gnugo 3.8, which
  is 8 kyu"; KaTrain's own ranks were later calibrated against OGS players,
  <https://github.com/sanderland/katrain/issues/74>). That is a 19x19 figure from
  server play, not an official rating: GNU Go never held a firm KGS
  rank (the KGS computer tournament report of March 2008,
  <http://weddslist.com/kgs/past/36/index.html>, shows "GNU 2d" from 0 rated games and
  calls it meaningless). Read it as 8 kyu plus or minus about 3 grades.
- **Elo per grade: the EGF GoR scale.** Sensei's Library, "EGF Rating System"
  (<https://senseis.xmp.net/?GoR>): 20 kyu = GoR 100, 100 GoR a grade, 1 dan = 2100;
  the weaker player's win expectancy is `1 / (1 + exp(D / a))` with `a` from 200 at
  20 kyu down to 70 at 7 dan (`a = 200 - (GoR - 100) / 20`). In Elo that is about 87
  points a grade at 20 kyu, 124 at 8 kyu and 174 at 1 dan; below 20 kyu the EGF gives
  no figures and `a` is held at 200 (about 87 Elo a grade, an extrapolation).
- **9x9 is not 19x19.** The EGF figures come from 19x19 games. On small boards one
  handicap stone covers several grades (Wikipedia, "Go handicaps", small board
  handicaps: one 9x9 stone is about 6 grades; Sensei's Library, "Handicap for smaller
  board sizes": 4.5 to 7 grades), and nobody has published how even-game win rates per
  grade change on 9x9. So the ranks below say where a level stands *if* 9x9 results
  follow the 19x19 scale around an 8 kyu GNU Go. Treat every estimate as plus or
  minus 3 grades or more near GNU Go, and as a rough order of size far from it.
- **Two readings of the weak end.** If the 19x19 scale holds on 9x9, the weak levels
  are closer together than their names say (the table's estimates), and a true
  beginner will find even "30 kyu" hard. If a grade is worth fewer Elo on 9x9 than on
  19x19, as the small-board handicap ratios above suggest (fewer moves give the
  stronger player fewer chances to pull ahead), the same Elo gaps span more grades and
  the names are closer to the truth. The weakest level cannot be made much weaker
  within the rules it keeps (it already plays a uniformly random sensible move near
  the last ones); only games against rated human beginners can settle the names.
- **Intervals.** The Elo intervals are 95% bootstrap percentiles over the games
  (matches resampled within themselves), relative to GNU Go level 10. One virtual draw
  on each step between adjacent levels keeps the fit finite when a pair of adjacent
  levels never lost to each other; such a gap is closer to a lower bound. Lopsided
  matches against GNU Go carry no prior (they may say "far apart", not how far). The rank range in the table comes from
  the Elo interval alone; add the anchor's own uncertainty on top.
"""

OTHER_SIZE = """\
- **On {size}x{size}** every caveat above holds as it does on 9x9, with the same anchor
  (GNU Go level 10 = 8 kyu, the 19x19 figure) and the same scale: nobody has
  published a rank scale for even games on {size}x{size} either. A rank here is
  comparable with a rank on the 9x9 report only as far as the anchor is.
"""


def record(scores: list[float]) -> str:
    """Wins-losses(-jigo) of a list of scores (1, 0.5, 0)."""
    w, d = sum(1 for s in scores if s == 1.0), sum(1 for s in scores if s == 0.5)
    text = f"{w}-{len(scores) - w - d}"
    return text + (f"-{d}" if d else "")


def _plot(path: Path, ladder: Ladder, rows: list[tuple[str, str]], size: int) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(rows) + 1.2))
    for y, (label, key) in enumerate(rows):
        elo = ladder.elo[key]
        lo, hi = ladder.low.get(key, elo), ladder.high.get(key, elo)
        colour = "tab:gray" if key.startswith("gnugo") else "tab:blue"
        ax.errorbar([elo], [y], xerr=[[max(0.0, elo - lo)], [max(0.0, hi - elo)]], fmt="o", color=colour, capsize=3)
    ax.set_yticks(range(len(rows)), [label for label, _ in rows])
    ax.axvline(0.0, color="tab:gray", lw=0.8, ls=":")
    ax.set_xlabel("Elo (GNU Go 3.8 level 10 = 0), 95% bootstrap interval")
    ax.set_title(f"Opponent levels on {size}x{size} (python -m training.levels)")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _grade_gor(name: str) -> float | None:
    """GoR of a level named ``"N kyu"`` / ``"N dan"``, else None."""
    parts = name.split()
    if len(parts) != 2 or not parts[0].isdigit() or parts[1] not in ("kyu", "dan"):
        return None
    n = int(parts[0])
    return 2100.0 - 100.0 * n if parts[1] == "kyu" else 2000.0 + 100.0 * n


def _name_check(rows: list[tuple[str, str]], ladder: Ladder, anchor_gor: float,
                rank_of: Callable[[float, float], str]) -> list[str]:
    """A paragraph naming the levels whose estimated rank is more than 3 grades from their name."""
    off = []
    for label, key in rows:
        target = _grade_gor(label)
        if target is None:
            continue
        estimate = _grade_gor(rank_of(ladder.elo[key], anchor_gor))
        if estimate is not None and abs(estimate - target) > 300:
            off.append(f"{label} (estimated {rank_of(ladder.elo[key], anchor_gor)})")
    if not off:
        return ["**Names:** every level's estimated rank is within 3 grades of its name.", ""]
    return ["**Names against estimates:** the names are the design targets. More than 3 grades from "
            "the estimate on this scale: " + "; ".join(off) + ". See the mapping below for why the scale is "
            "least sure there.", ""]


def write_report(path: Path, ladder: Ladder, scores: dict[tuple[str, str], list[float]], level_names: list[str],
                 level_id: Callable[[str], str], anchor: str, anchor_gor: float,
                 rank_of: Callable[[float, float], str], settings: dict[str, Any], ordered: bool,
                 model: str = "") -> None:
    """Write the table (markdown) to ``path`` and the plot to ``path`` with ``.png``;
    ``model`` is the sentence naming the model the levels played (none: left out)."""
    size = settings.get("size", 9)
    rows: list[tuple[str, str]] = [(name, level_id(name)) for name in level_names if level_id(name) in ladder.elo]
    engines = sorted((p for p in ladder.elo if p.startswith("gnugo-")), key=lambda p: int(p.split("-")[1]))
    rows += [(f"GNU Go 3.8 level {p.split('-')[1]}", p) for p in engines]
    total = sum(len(s) for (a, b), s in scores.items() if a < b)
    lines = ["# Opponent levels: calibration", "",
             f"Written by `python -m training.levels` on {dt.date.today().isoformat()} from the games in "
             f"`{Path(settings['out']).parent.name}/{Path(settings['out']).name}/` ({total} games; {size}x{size}, komi 7, area scoring, colours alternating, 2 random "
             "opening moves per pair of games). Elo: Bradley-Terry maximum likelihood over all decided "
             f"games, {anchor} = 0; 95% bootstrap interval ({settings['samples']} refits).", "",
             *([model, ""] if model else []),
             "| level | games | Elo (95% interval) | results (wins-losses[-jigo]) against | estimated rank (range) |",
             "|---|---|---|---|---|"]
    for label, key in rows:
        opponents = sorted(((b, s) for (a, b), s in scores.items() if a == key), key=lambda item: ladder.elo.get(item[0], 0))
        games = sum(len(s) for _, s in opponents)
        results = ", ".join(f"{b.removeprefix('L-').replace('-kyu', 'k')} {record(s)}" for b, s in opponents)
        elo, lo, hi = ladder.elo[key], ladder.low.get(key), ladder.high.get(key)
        interval = f" ({lo:+.0f} to {hi:+.0f})" if lo is not None and hi is not None else ""
        if not anchor.startswith("gnugo"):  # no GNU Go games yet: no ranks
            rank, spread = "-", ""
        else:
            rank = rank_of(elo, anchor_gor)
            spread = f" ({rank_of(lo, anchor_gor)} to {rank_of(hi, anchor_gor)})" if lo is not None and hi is not None else ""
        if key == anchor:
            rank, spread = rank + " (the anchor)", ""
        lines.append(f"| {label} | {games} | {elo:+.0f}{interval} | {results} | {rank}{spread} |")
    share = ladder.ordered_share
    lines += ["", "Opponents in the results column: `30k` is the level \"30 kyu\", `gnugo-10` GNU Go level 10.", "",
              "**Order:** " + ("the levels are strictly ordered by their Elo" if ordered else
                               "the levels are NOT strictly ordered: retune `gobuddy/ai/levels.py`")
              + (f"; {share:.0%} of the bootstrap refits keep that order." if share is not None else "."), ""]
    if _plot(path.with_suffix(".png"), ladder, rows, size):
        lines += [f"![the ladder]({path.with_suffix('.png').name})", ""]
    if anchor.startswith("gnugo"):
        lines += _name_check(rows, ladder, anchor_gor, rank_of)
    lines += [SOURCES if size == 9 else SOURCES + OTHER_SIZE.format(size=size), "## How the levels play", "",
              "See `gobuddy/ai/levels.py` and `gobuddy/ai/weak_move.py`. Policy levels sample the network's raw "
              "policy (one evaluation a move) among the `breadth` best sensible moves, weighted by "
              "`policy ** (1 / temperature)` times `local` for points within two lines of the last two moves, "
              "and with probability `mistake` uniformly among them (a careless move of realistic size); the "
              "weakest may also put their own chains in atari. Search levels run the MCTS search with a fixed "
              "number of visits (the Python search, with its pipeline); full is the default player of "
              "`python -m engine_worker.gtp` (0.9 s a move, here with one onnxruntime thread; before 2026-11-27 "
              "the Python search up to 4,000 visits, since then the compiled search up to 8,000). Every level below full answers a plain atari when saving works (read with "
              "the rules engine, ladders included) and never fills its own eye; policy levels keep off the "
              "first line early, pass after the opponent's pass when the network says they win (or gives "
              "pass at least 5%), and never resign.", "",
              "| level | breadth | temperature | local | mistake | own ataris | visits |", "|---|---|---|---|---|---|---|"]
    from gobuddy.ai.levels import LEVELS

    for level in LEVELS:
        st = level.style
        if st is not None:
            lines.append(f"| {level.name} | {st.breadth} | {st.temperature:g} | {st.local:g} | {st.mistake:g} | "
                         f"{'yes' if st.self_atari else 'no'} | - (policy) |")
        else:
            lines.append(f"| {level.name} | - | - | - | - | - | {level.visits or 'default (0.9 s)'} |")
    option = "" if size == 9 else f" --size {size}"
    lines += ["",
              "## Run", "", "```sh", f"nice python -m training.levels{option}            # resumable: plays only what is missing",
              f"python -m training.levels{option} --report-only    # refit and rewrite this file", "```", "",
              *(["The games of 2026-11-26 (fourteenth session: r12's int8 twin, pinned; 2-core project machine "
                 "shared with niced 13x13 self-play, run niced) took about 25 minutes of wall time, most of it in "
                 "GNU Go's moves and the full level's 0.9 s moves. The calibration before it (2026-11-25/26, r5's "
                 "float model, 434 games, `data/levels-r5-float/`) took about 55.", ""] if size == 9 else []),
              "Settings: " + ", ".join(f"{k}={v}" for k, v in sorted(settings.items())
                                       if k not in ("report", "out", "report_only", "no_progress", "level_model")) + "."]
    path.write_text("\n".join(lines) + "\n")
