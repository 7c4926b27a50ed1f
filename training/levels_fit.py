"""The ladder of ``training.levels``: a Bradley-Terry fit of game results to Elo, its
bootstrap intervals, and the scale from Elo to human ranks.

**Fit.** Player ``i`` beats ``j`` with probability ``1 / (1 + 10 ** ((r_j - r_i) / 400))``
(Elo's logistic scale). ``fit`` maximises the likelihood of all games with Hunter's MM
iteration ("MM algorithms for generalized Bradley-Terry models", Ann. Stat. 2004); a
jigo counts half a win each way. Every pair of ``prior_pairs`` (default: every pair that
met) also gets ``prior_draws`` virtual drawn games (as Rémi Coulom's BayesElo does with
its default prior of two virtual draws): a shutout then gives a large but finite gap
instead of an infinite one, so treat the gap of a one-sided match as a lower bound.
``training.levels`` puts the prior on adjacent levels only (a prior on their steps), so
that GNU Go's lopsided matches against far weaker or stronger levels do not pull them
towards it. Ratings are shifted so that the
``anchor`` player is at ``anchor_elo``. Players must form one connected graph of
matches (``ValueError`` otherwise).

**Intervals.** ``bootstrap`` refits on resampled games: within each pairing, its games
drawn with replacement (so every match keeps its size), ``samples`` times; the 2.5th
and 97.5th percentiles of each player's rating are its 95% interval, and
``ordered_share`` is the share of refits in which a given order is strictly kept.

**Ranks.** ``rank_of`` turns an Elo difference from the anchor into a rank with the
European Go Federation's GoR scale: 20 kyu = GoR 100, each rank 100 GoR up to 1 dan =
2100, and a win expectancy of ``1 / (1 + exp(D / a))`` for a GoR gap ``D`` with ``a =
200 - (GoR - 100) / 20`` (200 at 20 kyu, 70 at 7 dan; Sensei's Library, "EGF Rating
System" / GoR). So one rank near GoR g is worth ``400 * 100 / (a(g) * ln 10)`` Elo
(87 at 20 kyu, 124 at 8 kyu, 174 at 1 dan). Below 20 kyu the EGF scale has no
figures; ``a`` is held at 200 there (an extrapolation). It is a 19x19 scale read on
9x9 games: see models/LEVELS.md for what that means for its accuracy.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

__all__ = ["Game", "Ladder", "bootstrap", "elo_difference", "elo_expectation", "fit", "gor_of", "rank_name", "rank_of"]

ELO = 400.0 / math.log(10.0)  # Elo points per natural-log unit of strength


@dataclass(frozen=True)
class Game:
    """One decided game: ``a`` against ``b``, ``score`` for ``a`` (1, 0.5 or 0)."""

    a: str
    b: str
    score: float


@dataclass(frozen=True)
class Ladder:
    """Ratings (Elo) by player; ``low``/``high``: 95% bootstrap interval (empty when
    not bootstrapped); ``ordered_share``: share of refits keeping ``order`` strictly."""

    elo: dict[str, float]
    low: dict[str, float]
    high: dict[str, float]
    order: tuple[str, ...] = ()
    ordered_share: float | None = None


def elo_expectation(diff: float) -> float:
    """Expected score of a player ``diff`` Elo stronger."""
    return 1.0 / (1.0 + 10.0 ** (-diff / 400.0))


def elo_difference(score: float) -> float:
    """The Elo difference whose expected score is ``score`` (the inverse of
    ``elo_expectation``); ``score`` strictly between 0 and 1, else ``ValueError``."""
    if not 0.0 < score < 1.0:
        raise ValueError(f"an Elo difference needs a score strictly between 0 and 1, got {score}")
    return 400.0 * math.log10(score / (1.0 - score))


def _check_connected(players: list[str], games: list[Game]) -> None:
    links: dict[str, set[str]] = defaultdict(set)
    for g in games:
        links[g.a].add(g.b)
        links[g.b].add(g.a)
    seen, todo = {players[0]}, [players[0]]
    while todo:
        for q in links[todo.pop()]:
            if q not in seen:
                seen.add(q)
                todo.append(q)
    missing = [p for p in players if p not in seen]
    if missing:
        raise ValueError(f"players {missing} are not connected to {players[0]} by any chain of games")


def fit(games: list[Game], anchor: str, anchor_elo: float = 0.0, prior_draws: float = 1.0,
        iterations: int = 5000, tolerance: float = 1e-10,
        prior_pairs: list[tuple[str, str]] | None = None) -> dict[str, float]:
    """Maximum-likelihood Elo ratings of every player in ``games`` (see module doc)."""
    players = sorted({g.a for g in games} | {g.b for g in games})
    if anchor not in players:
        raise ValueError(f"the anchor {anchor!r} played no game")
    _check_connected(players, games)
    index = {p: i for i, p in enumerate(players)}
    n = len(players)
    wins = np.zeros(n)
    met = np.zeros((n, n))
    for g in games:
        i, j = index[g.a], index[g.b]
        wins[i] += g.score
        wins[j] += 1.0 - g.score
        met[i, j] += 1.0
        met[j, i] += 1.0
    if prior_pairs is None:
        pairs = met > 0
    else:
        pairs = np.zeros((n, n), dtype=bool)
        for a, b in prior_pairs:
            if a in index and b in index:
                pairs[index[a], index[b]] = pairs[index[b], index[a]] = True
    met = met + prior_draws * pairs
    wins = wins + 0.5 * prior_draws * pairs.sum(axis=1)
    gamma = np.ones(n)
    for _ in range(iterations):
        denom = (met / (gamma[:, None] + gamma[None, :])).sum(axis=1)
        new = wins / denom
        new /= math.exp(np.log(new).mean())
        done = np.max(np.abs(np.log(new) - np.log(gamma))) < tolerance
        gamma = new
        if done:
            break
    elo = np.log(gamma) * ELO
    shift = anchor_elo - elo[index[anchor]]
    return {p: float(elo[index[p]] + shift) for p in players}


def bootstrap(games: list[Game], anchor: str, anchor_elo: float = 0.0, samples: int = 300, seed: int = 0,
              order: tuple[str, ...] = (), prior_draws: float = 1.0,
              prior_pairs: list[tuple[str, str]] | None = None) -> Ladder:
    """``fit`` plus 95% percentile intervals from ``samples`` refits of resampled games
    (module doc); ``order``: players expected weakest first, for ``ordered_share``."""
    point = fit(games, anchor, anchor_elo, prior_draws, prior_pairs=prior_pairs)
    by_pair: dict[tuple[str, str], list[Game]] = defaultdict(list)
    for g in games:
        by_pair[tuple(sorted((g.a, g.b)))].append(g)  # type: ignore[arg-type]
    rng = random.Random(seed)
    draws: dict[str, list[float]] = defaultdict(list)
    kept = 0
    for _ in range(samples):
        sample = [rng.choice(group) for group in by_pair.values() for _ in group]
        ratings = fit(sample, anchor, anchor_elo, prior_draws, iterations=2000, tolerance=1e-8, prior_pairs=prior_pairs)
        for p, r in ratings.items():
            draws[p].append(r)
        if order and all(ratings[x] < ratings[y] for x, y in zip(order, order[1:])):
            kept += 1
    low = {p: float(np.percentile(v, 2.5)) for p, v in draws.items()}
    high = {p: float(np.percentile(v, 97.5)) for p, v in draws.items()}
    return Ladder(point, low, high, tuple(order), kept / samples if order and samples else None)


def _a(gor: float) -> float:
    return min(200.0, max(70.0, 200.0 - (gor - 100.0) / 20.0))


def gor_of(elo_diff: float, anchor_gor: float, step: float = 1.0) -> float:
    """The GoR of a player ``elo_diff`` Elo above one at ``anchor_gor``: the Elo gap
    integrated over the EGF scale, where d(GoR)/d(Elo) = a(GoR) * ln 10 / 400."""
    gor, left = anchor_gor, elo_diff
    sign = 1.0 if left >= 0 else -1.0
    while abs(left) > 1e-9:
        d = min(step, abs(left))
        gor += sign * d * _a(gor) * math.log(10.0) / 400.0
        left -= sign * d
    return gor


def rank_name(gor: float) -> str:
    """GoR -> a rank to the nearest grade: ``"8 kyu"``, ``"1 dan"`` (GoR 2100 = 1 dan,
    2000 = 1 kyu, 100 per grade, continued below 20 kyu)."""
    grade = round((gor - 2100.0) / 100.0)
    return f"{grade + 1} dan" if grade >= 0 else f"{-grade} kyu"


def rank_of(elo_diff: float, anchor_rank_gor: float) -> str:
    """The rank of a player ``elo_diff`` Elo above an anchor at GoR ``anchor_rank_gor``."""
    return rank_name(gor_of(elo_diff, anchor_rank_gor))
