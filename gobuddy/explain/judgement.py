"""Reasons from the network's judgement: life and death (ownership), the biggest point
(score leads), sente and gote, and the engine's line.

Inputs are ``AnalysisView``s (``gobuddy.explain.analysis_view``): ``before``, the
analysis of the position the move was played in (the mover to play), and ``after``,
the analysis of the position it made (the opponent to play). Either may be None; a
reason that needs one it lacks is not given. An analysis for the wrong side is not
used (``before.to_play`` must be the mover, ``after.to_play`` the opponent).

- ``territory``: for a move that is not the engine's first choice, "the engine
  expects about N points more at E5 than at the move played" (N = the first choice's
  score lead minus the move's: its own candidate line in ``before`` if analysed, else
  minus ``after``'s root lead); for the first choice, "the biggest point" by its
  margin over the best-scoring other analysed candidate. Without score leads, a
  move that is not the first choice is judged the same way in win rate;
- ``life-and-death``: a group whose mean ownership (from its owner's side) goes from
  at least ``FLIP`` to at most ``-FLIP`` between the reference and ``after`` dies (the
  reverse: lives); its points are the sum of the ownership change over the connected
  region that moved the same way, seeded by its stones. The reference is ``before``
  for a move played (what best play would have kept); for a hint, whose ``before``
  already expects it, the caller may give ``baseline``: the analysis of the position
  after the mover passes instead ("if you do not play here, the group at G7 dies");
- ``tempo``: told from the engine's answer in ``after``: an answer within two lines of
  the move (or touching the chains it touched) keeps the move ``sente``; an answer
  elsewhere makes it ``gote``; an answer that passes tells nothing. A heuristic: the engine's answer is local
  also when the move was a mistake that invites it;
- ``engine-line``: the engine's first choice with its line (for a move that is not
  it), and the answer the engine expects with the moves after it.
"""

from __future__ import annotations

import numpy as np

from gobuddy.explain.analysis_view import AnalysisView, Candidate
from gobuddy.explain.played import Played, chains_of, color_word, group_name, stones_word, vertex
from gobuddy.explain.reason import Reason, reason
from gobuddy.go.position import neighbours

FLIP = 0.3  # mean ownership, from the owner's side, beyond which a group counts as alive / dead
REGION = 0.25  # a point moves with the group when its ownership changes at least this much
MIN_POINTS = 1.0  # a score difference below this is not worth a reason
MIN_WINRATE = 0.03  # nor a win-rate difference below this (without score leads)


def about(points: float) -> str:
    """``about 3 points``, ``about 1.5 points``: halves below 10, whole points above."""
    value = round(points) if points >= 10 else round(points * 2) / 2
    return f"about {value:g} point" + ("" if value == 1 else "s")


def _move_score(played: Played, before: AnalysisView, after: AnalysisView | None) -> float | None:
    own = before.candidate(played.move)
    if own is not None and own.score_lead is not None:
        return own.score_lead
    if after is not None and after.score_lead is not None:
        return -after.score_lead
    return None


def _move_winrate(played: Played, before: AnalysisView, after: AnalysisView | None) -> float | None:
    own = before.candidate(played.move)
    if own is not None and own.winrate is not None:
        return own.winrate
    if after is not None and after.winrate is not None:
        return 1.0 - after.winrate
    return None


def territory_reasons(played: Played, before: AnalysisView | None, after: AnalysisView | None) -> list[Reason]:
    """The biggest-point reason (see the module docstring)."""
    if before is None or before.best is None or before.to_play != played.color:
        return []
    size, best = played.size, before.best
    if best.point != played.move:
        move_score = _move_score(played, before, after)
        if best.score_lead is not None and move_score is not None:
            diff = best.score_lead - move_score
            if diff >= MIN_POINTS:
                return [reason("territory", f"the engine expects {about(diff)} more at {vertex(best.point, size)} "
                               "than at the move played", f"{about(diff)} more at {vertex(best.point, size)} "
                               "than at the move played", (best.point, played.move), points=round(diff, 1),
                               good=False)]
            return []
        move_wr = _move_winrate(played, before, after)
        if best.winrate is not None and move_wr is not None and best.winrate - move_wr >= MIN_WINRATE:
            pct = round(100 * (best.winrate - move_wr))
            return [reason("territory", f"the engine's win rate is {pct}% higher at {vertex(best.point, size)} "
                           "than at the move played", f"win rate {pct}% higher at {vertex(best.point, size)} "
                           "than at the move played", (best.point, played.move), good=False)]
        return []
    others = [c for c in before.moves[1:] if c.visits > 0 and c.score_lead is not None]
    second = max(others, key=lambda c: c.score_lead) if others else None
    if second is not None and best.score_lead is not None and best.score_lead - second.score_lead >= MIN_POINTS:
        diff = best.score_lead - second.score_lead
        return [reason("territory", f"the biggest point: the engine expects {about(diff)} more here than at "
                       f"{vertex(second.point, size)}, its next choice", f"the biggest point, {about(diff)} more "
                       f"than at {vertex(second.point, size)}", (played.move, second.point),
                       points=round(diff, 1), good=True)]
    return []


def life_and_death_reasons(played: Played, before: AnalysisView | None,
                           after: AnalysisView | None) -> list[Reason]:
    """Groups that die or live by the move (see the module docstring): ``before`` is
    the reference, the analysis of the position before the move or, for a hint, of
    the position after the mover passes instead (either side to play)."""
    if (before is None or after is None or before.ownership is None or after.ownership is None
            or after.to_play != played.opponent):
        return []
    old, new = before.ownership, after.ownership
    delta = new - old
    size, board = played.size, played.after.board
    nbrs = neighbours(size)
    out: list[Reason] = []
    done: set[int] = set()
    for color in (played.opponent, played.color):
        for c in chains_of(played.after, color):
            if c.stones[0] in done:
                continue
            idx = [p for p in c.stones if p != played.move]  # the move's point was empty before
            if not idx:
                continue
            was, now = color * float(np.mean(old[idx])), color * float(np.mean(new[idx]))
            dies = was >= FLIP and now <= -FLIP
            lives = was <= -FLIP and now >= FLIP
            if not (dies or lives):
                continue
            sign = -color if dies else color
            region, frontier = set(idx), list(idx)
            while frontier:
                p = frontier.pop()
                for q in nbrs[p]:
                    if q not in region and delta[q] * sign >= REGION:
                        region.add(q)
                        frontier.append(q)
            stones = sorted(p for p in region if board[p] == color and p != played.move)
            done.update(stones)
            points = float(np.sum(np.abs(delta[sorted(region)])))
            name = group_name(stones, played.move, size)
            frm, to = (color_word(color), color_word(-color)) if dies else (color_word(-color), color_word(color))
            verb = "dies" if dies else "lives"
            good = (color == played.opponent) if dies else (color == played.color)
            out.append(reason("life-and-death", f"{name} {verb} (ownership moves from {frm} to {to}, {about(points)})",
                              f"{name} {verb} ({stones_word(len(stones))}, {about(points)})",
                              tuple(stones), len(stones), points=round(points, 1), good=good))
    return out


def tempo_reasons(played: Played, after: AnalysisView | None) -> list[Reason]:
    """Sente or gote, from the engine's answer (see the module docstring)."""
    if after is None or after.best is None or after.to_play != played.opponent or played.is_pass:
        return []
    size, answer, them = played.size, after.best.point, color_word(played.opponent)
    if answer == played.after.pass_point:
        return []  # the game is over for the engine: no tempo to tell
    if _local(played, answer):
        return [reason("tempo", f"sente: {them} answers at {vertex(answer, size)}",
                       f"sente ({them} answers at {vertex(answer, size)})", (played.move, answer), good=True)]
    return [reason("tempo", f"gote: {them} can play elsewhere, at {vertex(answer, size)}",
                   f"gote ({them} plays elsewhere, at {vertex(answer, size)})", (played.move, answer), good=None)]


def _local(played: Played, answer: int) -> bool:
    size = played.size
    (r, c), (ar, ac) = divmod(played.move, size), divmod(answer, size)
    if max(abs(r - ar), abs(c - ac)) <= 2:
        return True
    touched = set()
    for q in neighbours(size)[played.move]:
        if played.after.board[q] != 0:
            touched.update(played.after.chain_at(q)[0])
    return any(answer in neighbours(size)[s] for s in touched)


def _line_words(line: tuple[int, ...], first: int, size: int) -> str:
    words, color = [], first
    for p in line:
        words.append(f"{color_word(color)} {vertex(p, size)}")
        color = -color
    return ", ".join(words)


def engine_line_reasons(played: Played, before: AnalysisView | None, after: AnalysisView | None,
                        length: int = 4) -> list[Reason]:
    """The engine's first choice and line, and its expected answer (see the module docstring)."""
    size, out = played.size, []
    if before is not None and before.best is not None and before.to_play == played.color \
            and before.best.point != played.move:
        best = before.best
        line = best.pv[:length] or (best.point,)
        out.append(reason("engine-line", f"the engine prefers {vertex(best.point, size)}: "
                          f"{_line_words(line, played.color, size)}",
                          f"prefers {vertex(best.point, size)}: {' '.join(vertex(p, size) for p in line)}",
                          line, good=False))
    if after is not None and after.best is not None and after.to_play == played.opponent:
        reply: Candidate = after.best
        line = reply.pv[:length] or (reply.point,)
        out.append(reason("engine-line", f"the engine's answer: {_line_words(line, played.opponent, size)}",
                          f"answer {' '.join(vertex(p, size) for p in line)}", line, good=None, bonus=-1.0))
    return out
