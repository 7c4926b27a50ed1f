"""The summary of a match: score, Wilson interval, how games ended, time per move.

Input is the list of per-game entries a match writes to ``games.jsonl`` (one dict per
finished game with ``black``, ``white``, ``winner`` (a player name or ``None``),
``result``, ``reason``, ``seconds`` (per player name, one float per ``genmove``) and
``notes``). ``summarize`` turns them into one JSON-ready dict and ``markdown`` into a
table a person reads.

Counting: a void game (the engines disagreed on the rules, or setup failed) counts
for nobody and is left out of the rate; a jigo counts half a win for each side.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

__all__ = ["markdown", "summarize", "wilson_interval"]

Z95 = 1.959963984540054


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion ``successes / n`` (``(0, 1)`` when n is 0).

    ``successes`` may be fractional (jigo as half a win). Not checked: ``z`` > 0."""
    if n <= 0:
        return 0.0, 1.0
    if not 0 <= successes <= n:
        raise ValueError(f"successes {successes} not within 0..{n}")
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def _percentile(values: list[float], q: float) -> float:
    """Linear-interpolation percentile (numpy's default), ``q`` in 0..100."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * q / 100
    lo, hi = math.floor(k), math.ceil(k)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def _timing(seconds: list[float]) -> dict[str, Any]:
    if not seconds:
        return {"moves": 0, "mean_s": None, "median_s": None, "p95_s": None, "max_s": None}
    return {"moves": len(seconds), "mean_s": sum(seconds) / len(seconds),
            "median_s": _percentile(seconds, 50), "p95_s": _percentile(seconds, 95),
            "max_s": max(seconds)}


def summarize(entries: list[dict[str, Any]], name_a: str, name_b: str,
              config: dict[str, Any] | None = None) -> dict[str, Any]:
    """Wins, losses, jigo and voids for ``name_a`` against ``name_b``, A's win rate with
    its Wilson 95% interval, A's wins by colour, how games ended, and each engine's
    time per move; ``games_played_out`` counts games whose disputed end was played out
    with cleanup moves (``training.gtp_game``). ``config`` is copied in as is."""
    wins = losses = draws = voids = 0
    by_colour = {"black": [0, 0], "white": [0, 0]}  # A's [wins, games] with that colour
    reasons: Counter[str] = Counter()
    seconds: dict[str, list[float]] = {name_a: [], name_b: []}
    flagged = played_out = 0
    for e in entries:
        reasons[e["reason"]] += 1
        played_out += any("kgs-genmove_cleanup" in note for note in e.get("notes", []))
        for name, values in e.get("seconds", {}).items():
            seconds.setdefault(name, []).extend(values)
        flagged += bool(e.get("notes"))
        if e["reason"] == "void":
            voids += 1
            continue
        colour = "black" if e["black"] == name_a else "white"
        by_colour[colour][1] += 1
        if e["winner"] == name_a:
            wins += 1
            by_colour[colour][0] += 1
        elif e["winner"] == name_b:
            losses += 1
        else:
            draws += 1
    decided = wins + losses + draws
    score = wins + 0.5 * draws
    low, high = wilson_interval(score, decided)
    return {
        "engine_a": name_a, "engine_b": name_b, "games": len(entries),
        "a_wins": wins, "a_losses": losses, "jigo": draws, "void": voids,
        "a_win_rate": score / decided if decided else None,
        "a_win_rate_wilson95": [low, high],
        "a_wins_as_black": by_colour["black"], "a_wins_as_white": by_colour["white"],
        "ended_by": dict(sorted(reasons.items())),
        "games_with_notes": flagged,
        "games_played_out": played_out,
        "seconds_per_move": {name: _timing(values) for name, values in seconds.items()},
        "config": config or {},
    }


def _fmt(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def markdown(summary: dict[str, Any]) -> str:
    """A short Markdown report of ``summarize``'s output."""
    a, b = summary["engine_a"], summary["engine_b"]
    low, high = summary["a_win_rate_wilson95"]
    rate = summary["a_win_rate"]
    lines = [
        f"# {a} vs {b}",
        "",
        "| games | A wins | A losses | jigo | void | A win rate | Wilson 95% |",
        "|---|---|---|---|---|---|---|",
        f"| {summary['games']} | {summary['a_wins']} | {summary['a_losses']} | {summary['jigo']} "
        f"| {summary['void']} | {'-' if rate is None else f'{rate:.1%}'} | {low:.1%} – {high:.1%} |",
        "",
        f"A = {a}; as black won {summary['a_wins_as_black'][0]}/{summary['a_wins_as_black'][1]}, "
        f"as white won {summary['a_wins_as_white'][0]}/{summary['a_wins_as_white'][1]}.",
        "",
        "Ended by: " + (", ".join(f"{k} {v}" for k, v in summary["ended_by"].items()) or "-")
        + f"; games with referee notes: {summary['games_with_notes']}; disputed ends played out with "
        f"kgs-genmove_cleanup: {summary.get('games_played_out', 0)}.",
        "",
        "| engine | moves | mean s/move | median | p95 | max |",
        "|---|---|---|---|---|---|",
    ]
    for name, t in summary["seconds_per_move"].items():
        lines.append(f"| {name} | {t['moves']} | {_fmt(t['mean_s'])} | {_fmt(t['median_s'])} "
                     f"| {_fmt(t['p95_s'])} | {_fmt(t['max_s'])} |")
    config = summary.get("config") or {}
    if config:
        lines += ["", "Configuration: " + ", ".join(f"{k}={v}" for k, v in config.items())]
    return "\n".join(lines) + "\n"
