"""Why, on the Replay page: the verdict on the move played from a position, and the
reasons for and against it and for the engine's choice (``dashboard.views.reasons``,
the explainer with the stored analyses), ranked; the first reason of each mistake for
the mistakes list, and its points for the browser's board (``mistake_points``).

Explanations are cached by position and analysis (``reasons``), so a step that shows
a position seen before explains nothing again. Not here: drawing them (``reasons.show_reasons``).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from dashboard.mistakes import CLASSES, GameReview, MoveReview
from dashboard.store.games import GameDetail
from dashboard.views.reasons import answer_tag, hint_reasons, move_reasons, where_vertices
from gobuddy.explain import Reason
from gobuddy.go.coords import color_from_str, from_gtp
from gobuddy.go.game import Game as GoGame
from gobuddy.go.game import Ruleset
from gobuddy.go.position import Position

MISTAKES = CLASSES[:CLASSES.index("inaccuracy") + 1]  # the classes whose reasons are shown


def position_at(detail: GameDetail, n: int) -> Position:
    g = detail.game
    return GoGame.from_gtp(g.size, Ruleset(g.rules, g.komi), g.to_play, detail.setup,
                           [(m.color, m.vertex) for m in detail.moves[:n]]).position


def verdict(move: MoveReview | None, unit: str) -> str:
    """One line about the move played from this position."""
    if move is None:
        return ""
    played = f"Next: move {move.number}, {'black' if move.color == 'B' else 'white'} {move.vertex}"
    if move.loss is None:
        return played + (f" · the engine preferred {move.best}" if move.best and move.best != move.vertex else "")
    unit_text = "points" if unit == "points" else "% win rate"
    best = "" if move.top_move else (f", the engine preferred {move.best}" if move.best else "")
    return f"{played}: lost {move.loss:.1f} {unit_text} ({move.category}){best}"


def is_mistake(move: MoveReview | None) -> bool:
    """An inaccuracy or worse: its reasons are shown."""
    return move is not None and move.category in MISTAKES


def played_reasons(detail: GameDetail, answers: Mapping[int, Any], move: MoveReview,
                   position: Position | Callable[[], Position] | None = None) -> list[Reason]:
    """The reasons for and against ``move`` (of the review), ranked: ``explain_move`` in
    the position it was played in (``position`` or what it makes, else replayed, when
    not cached) with the stored analyses of that position and of the one it made."""
    g, n = detail.game, move.number - 1
    before, after = answers.get(n), answers.get(move.number)
    return move_reasons(position if position is not None else (lambda: position_at(detail, n)),
                        from_gtp(move.vertex, g.size), color_from_str(move.color), before, after,
                        key=(g.id, move.number, move.vertex, answer_tag(before), answer_tag(after)))


def best_reasons(detail: GameDetail, answers: Mapping[int, Any], n: int, position: Position | Any,
                 answer: Mapping[str, Any] | None, tried: Sequence[tuple[str, str]] = ()) -> list[Reason]:
    """The reasons for the engine's first choice in ``answer`` (of the position after
    ``n`` moves and ``tried``): ``explain_hint``, with the analysis after it where the
    game went on with that very move."""
    if not answer or not answer.get("moves"):
        return []
    best = answer["moves"][0]["move"]
    played = detail.moves[n].vertex if not tried and n < len(detail.moves) else None
    after = answers.get(n + 1) if best == played else None
    return hint_reasons(position, answer, after, key=(detail.game.id, n, tuple(tried), answer_tag(answer),
                                                      answer_tag(after)))


def mistakes_why(detail: GameDetail, answers: Mapping[int, Any], review: GameReview,
                 game: GoGame) -> dict[int, list[Reason]]:
    """Move number -> the first reason about each listed mistake and the first for the
    engine's choice instead (the mistakes list's lines); ``game`` gives the positions,
    made only for the explanations not kept yet."""
    out = {}
    for m in review.mistakes("inaccuracy")[:40]:
        n = m.number - 1
        out[m.number] = (played_reasons(detail, answers, m, lambda n=n: game.position_at(n))[:1]
                         + best_reasons(detail, answers, n, lambda n=n: game.position_at(n), answers.get(n))[:1])
    return out


def mistake_points(detail: GameDetail, answers: Mapping[int, Any], review: GameReview,
                   game: GoGame) -> dict[int, list[str]]:
    """Move count n -> the points of the first reason why move n+1 was a mistake (the
    browser's board squares them, as ``the_board`` does)."""
    out = {}
    for m in review.mistakes("inaccuracy"):
        why = played_reasons(detail, answers, m, lambda n=m.number - 1: game.position_at(n))
        if why:
            out[m.number - 1] = where_vertices(why[0], detail.game.size)
    return out


def article(category: str) -> str:
    return ("an " if category[:1] in "aeiou" else "a ") + category
