"""The words of the SGF export's comments: the review of a move (its loss, class, the
engine's best move, the win rate and score after it), the start position's, and why a
mistake was one, in plain words (``gobuddy.explain`` with the stored analyses before
and after the move: at most ``MAX_REASONS`` sentences, then the first reasons for the
engine's choice, all cut to ``MAX_WHY`` characters). An explanation that fails is
logged and left out. Where they go is ``dashboard.store.sgf_io``.
"""

from __future__ import annotations

import logging
from typing import Any, Mapping, Sequence

from dashboard.mistakes import MoveReview, black_lead
from dashboard.store.games import GameDetail
from gobuddy.explain import Reason, as_comment, explain_hint, explain_move
from gobuddy.go.coords import color_from_str, from_gtp
from gobuddy.go.game import Game as GoGame
from gobuddy.go.game import Ruleset
from gobuddy.go.record import GameError

log = logging.getLogger("dashboard.sgf_io")

MAX_REASONS = 3
MAX_WHY = 600


def mistakes_why(detail: GameDetail, moves: Sequence[MoveReview], answers: Mapping[int, Any]) -> dict[int, str]:
    """Move number -> why the move (each of ``moves``) was bad, in plain words
    (``why_comment``), from a position replayed once for all of them; a move whose
    explanation fails is logged and left out."""
    wanted = {m.number: m for m in moves}
    if not wanted:
        return {}
    g = detail.game
    try:
        game = GoGame.from_gtp(g.size, Ruleset(g.rules, g.komi), g.to_play, detail.setup,
                               [(m.color, m.vertex) for m in detail.moves[:max(wanted)]])
    except GameError:
        log.exception("game %s cannot be replayed: its SGF has no reasons", g.id)
        return {}
    out = {}
    for n, pos in game.positions():
        move = wanted.get(n + 1)
        if move is None:
            continue
        before, after = answers.get(n), answers.get(move.number)
        try:
            reasons = explain_move(pos, from_gtp(move.vertex, g.size), color_from_str(move.color), before, after)
            hint = explain_hint(pos, before) if before is not None and move.best != move.vertex else []
        except Exception:  # an explanation must never break an export
            log.exception("explaining move %d of game %s failed: its comment has no reasons", move.number, g.id)
            continue
        text = why_comment(reasons, hint, move.best)
        if text:
            out[move.number] = text
    return out


def why_comment(reasons: Sequence[Reason], hint: Sequence[Reason], best: str | None) -> str:
    """The reasons for and against a move (at most ``MAX_REASONS``), then the first two
    for the engine's choice ``best`` on one line; at most ``MAX_WHY`` characters."""
    text = as_comment(list(reasons[:MAX_REASONS]))
    if hint and best:
        text = "\n".join(t for t in (text, f"Best {best}: " + " ".join(as_comment(list(hint[:2])).splitlines())) if t)
    return text if len(text) <= MAX_WHY else text[:MAX_WHY - 1].rstrip() + "…"


def joined(first: str | None, second: str) -> str | None:
    """Two comments as one, a blank line between (``None`` when both are empty)."""
    return "\n\n".join(t for t in (first, second) if t) or None


def position_comment(answer: Mapping[str, Any]) -> str:
    """The start position's comment: black's win rate, score lead and the best move."""
    text = f"Win rate B {100 * float(answer['root']['winrate_black']):.1f}%"
    lead = black_lead(answer)
    if lead is not None:
        text += f" · score {'B' if lead >= 0 else 'W'}+{abs(lead):.1f}"
    best = (answer.get("moves") or [{}])[0].get("move")
    return text + (f" · best {best}" if best else "")


def move_comment(move: MoveReview, unit: str) -> str:
    """The comment of one move's node (see the module docstring); "" if nothing is known."""
    parts = []
    if move.loss is not None:
        amount = f"{move.loss:.1f} points" if unit == "points" else f"{move.loss:.1f}% win rate"
        parts.append(f"Loss {amount} ({move.category})")
    if move.best:
        parts.append(f"best {move.best}" + (" (played)" if move.best == move.vertex else ""))
    if move.winrate_black_after is not None:
        parts.append(f"win rate B {100 * move.winrate_black_after:.1f}%")
    if move.score_lead_black_after is not None:
        lead = move.score_lead_black_after
        parts.append(f"score {'B' if lead >= 0 else 'W'}+{abs(lead):.1f}")
    text = " · ".join(parts)
    return text[:1].upper() + text[1:]
