"""How much each move lost, from stored analyses, in classes like KaTrain's; a game report.

Input: the game's moves ``(number, colour, vertex)`` and the stored engine answers by
move count (``answers[n]`` analyses the position after ``n`` moves; 0 is the start), in
the ``engine_answer`` dict form (``gobuddy.ai.analysis``). The loss of move ``n`` by
``c`` compares the engine's view of the position it was played in (``answers[n-1]``)
with its view of the position it made (``answers[n]``), both from ``c``'s side:

| unit     | when                                         | loss of move n                        |
|----------|----------------------------------------------|---------------------------------------|
| points   | every answer used has a root ``score_lead``  | lead(c, before) - lead(c, after)      |
| win rate | otherwise (model without a score head)       | 100 * (winrate(c, before) - winrate(c, after)) |

Classes, worst first (KaTrain's default thresholds in points; in win-rate percentage
points each threshold is doubled, our convention: about two percent per point):

| class      | points lost | win rate lost |
|------------|-------------|---------------|
| blunder    | >= 12       | >= 24         |
| mistake    | >= 6        | >= 12         |
| inaccuracy | >= 3        | >= 6          |
| doubtful   | >= 1.5      | >= 3          |
| okay       | >= 0.5      | >= 1          |
| good       | < 0.5       | < 1           |

Report per player, as KaTrain's: accuracy ``100 * 0.75 ** weighted_loss`` (loss in
points; win-rate losses divided by 2 first), where each move is weighted by the
position's complexity (the prior-weighted loss of the engine's candidates, capped at 1)
raised to at least ``loss / 4`` and 0.05; the top-move match (the move played was the
engine's first choice) and the top-five match (first choice, or among the first five
and losing less than 0.5 point).

Not checked: that the answers belong to this game's positions (the store matches them
by position key) and that the engine's figures are consistent. A move whose position
before or after has no answer, or whose ``before`` answer is for the other colour, gets
no loss and is left out of the report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

CLASSES = ("blunder", "mistake", "inaccuracy", "doubtful", "okay", "good")
POINT_THRESHOLDS = (12.0, 6.0, 3.0, 1.5, 0.5, 0.0)
WINRATE_PER_POINT = 2.0
CLASS_COLOURS = {"blunder": "#72216b", "mistake": "#cc0000", "inaccuracy": "#e16b1a",
                 "doubtful": "#d8b600", "okay": "#abc846", "good": "#1e9600"}
Answer = Mapping[str, Any]


@dataclass(frozen=True)
class MoveReview:
    """One move: ``loss`` (>= 0) in the review's unit, its class, the engine's best
    move in the position it was played from, and black's win rate (and score lead,
    where known) after it. ``loss``/``category`` are None when it could not be judged."""

    number: int
    color: str
    vertex: str
    loss: float | None
    category: str | None
    best: str | None
    top_move: bool | None
    winrate_black_after: float | None
    score_lead_black_after: float | None


@dataclass(frozen=True)
class PlayerReport:
    """A player's moves that could be judged, summarised (see the module docstring)."""

    color: str
    moves: int
    accuracy: float | None
    mean_loss: float | None
    weighted_loss: float | None
    top_move_rate: float | None
    top5_rate: float | None
    histogram: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class GameReview:
    unit: str  # "points" | "win rate"
    moves: list[MoveReview]
    players: dict[str, PlayerReport]

    def mistakes(self, worst: str = "inaccuracy") -> list[MoveReview]:
        """Moves of class ``worst`` or worse, the biggest loss first (ties: earlier)."""
        limit = CLASSES.index(worst)
        found = [m for m in self.moves if m.category is not None and CLASSES.index(m.category) <= limit]
        return sorted(found, key=lambda m: (-(m.loss or 0.0), m.number))


def classify(loss: float, unit: str = "points") -> str:
    """The class of a loss (>= 0) in ``unit``; negative losses count as 0."""
    scale = WINRATE_PER_POINT if unit == "win rate" else 1.0
    for name, threshold in zip(CLASSES, POINT_THRESHOLDS):
        if loss >= threshold * scale:
            return name
    return CLASSES[-1]


def black_lead(answer: Answer) -> float | None:
    """The root score lead from black's side (None without a score head)."""
    lead = answer["root"].get("score_lead")
    if lead is None:
        return None
    return float(lead) if answer["to_play"] == "B" else -float(lead)


def unit_for(answers: Mapping[int, Answer]) -> str:
    """``points`` when every answer has a root score lead, else ``win rate``."""
    if answers and all(a["root"].get("score_lead") is not None for a in answers.values()):
        return "points"
    return "win rate"


def move_loss(before: Answer, after: Answer, color: str, unit: str) -> float:
    """What the move by ``color`` from ``before`` to ``after`` lost, in ``unit`` (may be
    negative: the search found the position better than it thought)."""
    sign = 1.0 if color == "B" else -1.0
    if unit == "points":
        lead_before, lead_after = black_lead(before), black_lead(after)
        if lead_before is None or lead_after is None:
            raise ValueError("a points review needs score leads in both answers")
        return sign * (lead_before - lead_after)
    return 100.0 * sign * (float(before["root"]["winrate_black"]) - float(after["root"]["winrate_black"]))


def candidate_losses(before: Answer, unit: str) -> list[tuple[Mapping[str, Any], float]]:
    """Each candidate of ``before`` with its loss against the first, in ``unit`` (>= 0)."""
    moves = before.get("moves") or []
    if not moves:
        return []
    best = moves[0]
    out = []
    for cand in moves:
        if unit == "points" and best.get("score_lead") is not None and cand.get("score_lead") is not None:
            loss = float(best["score_lead"]) - float(cand["score_lead"])
        else:
            loss = 100.0 * (float(best["winrate"]) - float(cand["winrate"]))
            if unit == "points":
                loss /= WINRATE_PER_POINT
        out.append((cand, max(0.0, loss)))
    return out


def review_game(moves: Sequence[tuple[int, str, str]], answers: Mapping[int, Answer],
                unit: str | None = None) -> GameReview:
    """Judge every move whose positions before and after are analysed; see the module
    docstring. ``unit`` forces ``points`` or ``win rate`` (default: ``unit_for``)."""
    unit = unit or unit_for(answers)
    scale = WINRATE_PER_POINT if unit == "win rate" else 1.0
    reviews: list[MoveReview] = []
    losses: dict[str, list[tuple[float, float]]] = {"B": [], "W": []}  # (loss in points, weight)
    top: dict[str, list[bool]] = {"B": [], "W": []}
    top5: dict[str, list[bool]] = {"B": [], "W": []}
    hist: dict[str, dict[str, int]] = {c: {name: 0 for name in CLASSES} for c in "BW"}
    for number, color, vertex in moves:
        before, after = answers.get(number - 1), answers.get(number)
        wr_after = float(after["root"]["winrate_black"]) if after else None
        lead_after = black_lead(after) if after else None
        if before is None or after is None or before["to_play"] != color:
            best = before["moves"][0]["move"] if before and before.get("moves") else None
            reviews.append(MoveReview(number, color, vertex, None, None, best, None, wr_after, lead_after))
            continue
        loss = max(0.0, move_loss(before, after, color, unit))
        category = classify(loss, unit)
        cands = candidate_losses(before, unit)
        best = cands[0][0]["move"] if cands else None
        is_top = best is not None and best == vertex
        reviews.append(MoveReview(number, color, vertex, loss, category, best, is_top if cands else None,
                                  wr_after, lead_after))
        hist[color][category] += 1
        if cands:
            top[color].append(is_top)
            approved = [c["move"] for c, l in cands if c["order"] == 0 or (l < 0.5 * scale and c["order"] < 5)]
            top5[color].append(vertex in approved)
            priors = sum(float(c["prior"]) for c, _ in cands) or 1e-6
            complexity = min(1.0, sum(l / scale * float(c["prior"]) for c, l in cands) / priors)
        else:
            complexity = 0.0
        in_points = loss / scale
        losses[color].append((in_points, max(0.05, min(1.0, max(complexity, in_points / 4)))))
    players = {c: _player(c, losses[c], top[c], top5[c], hist[c], scale) for c in "BW"}
    return GameReview(unit, reviews, players)


def _player(color: str, losses: list[tuple[float, float]], top: list[bool], top5: list[bool],
            hist: dict[str, int], scale: float) -> PlayerReport:
    if not losses:
        return PlayerReport(color, 0, None, None, None, None, None, hist)
    weight = sum(w for _, w in losses) or 1e-6
    weighted = sum(l * w for l, w in losses) / weight
    mean = sum(l for l, _ in losses) / len(losses)
    return PlayerReport(
        color, len(losses), accuracy=100.0 * 0.75 ** weighted, mean_loss=mean * scale,
        weighted_loss=weighted * scale, top_move_rate=(sum(top) / len(top)) if top else None,
        top5_rate=(sum(top5) / len(top5)) if top5 else None, histogram=hist)
