"""The teacher's notes of a game (``teaching_notes``): the moves it called mistakes,
taken back and kept as variations, or kept by the learner.

Notes come from the ``teaching`` game events the recorder ingests (a physical board's
teacher and the Play page's send them when the learner decides), from an SGF import
(``read_back``), or directly (``Store.note_teaching``): nothing here requires the
game's row to exist.
``variations_of`` gives the taken-back moves in the shape of ``sgf_io``'s variations
(move count -> lines), each commented as ``gobuddy.go.game.TakenBack.comment`` says, so
the SGF export writes them as variations and ``Game.from_record`` reads them back;
``kept_comment`` is the comment of a kept mistake's move. ``read_back`` finds both in
an imported game's comments and variations (the SGF import stores them as notes again).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from dashboard.store.models import TeachingNote
from gobuddy.go.coords import color_from_str, from_gtp, to_gtp
from gobuddy.go.game import TakenBack, taken_back_of

DECISIONS = ("taken_back", "kept")
KEPT = "Kept after the teacher's warning"
_KEPT = re.compile(r"^" + re.escape(KEPT) + r"(?:: loses (-?\d+(?:\.\d+)?) points?)?(?:[:;] better ([A-HJ-Z]\d{1,2}|pass))?$")


@dataclass(frozen=True)
class NoteView:
    """One note: move ``move_number`` (``color`` at ``vertex``), the ``decision``
    (taken_back | kept), the judgement's losses, the ``better`` move and ``level``."""

    game_id: str
    move_number: int
    color: str
    vertex: str
    decision: str
    points_lost: float | None
    winrate_lost: float | None
    better: str | None
    level: str | None
    noted_at: datetime


def add_note(session: Session, game_id: str, move_number: int, color: str, vertex: str, decision: str, *,
             points_lost: float | None = None, winrate_lost: float | None = None, better: str | None = None,
             level: str | None = None, now: datetime | None = None) -> None:
    """Keep a note; ``ValueError`` for a decision, colour or move number the table refuses."""
    if decision not in DECISIONS:
        raise ValueError(f"decision {decision!r} is not one of {DECISIONS}")
    if color not in ("B", "W") or move_number < 1:
        raise ValueError(f"a note is of a move (number >= 1, colour B or W), not {move_number} {color!r}")
    session.add(TeachingNote(game_id=game_id, move_number=move_number, color=color, vertex=vertex,
                             decision=decision, points_lost=points_lost, winrate_lost=winrate_lost, better=better,
                             level=level, noted_at=now or datetime.now(timezone.utc)))


def notes_for_game(session: Session, game_id: str) -> list[NoteView]:
    """The notes of a game, by move number, then in the order written."""
    rows = session.scalars(select(TeachingNote).where(TeachingNote.game_id == game_id)
                           .order_by(TeachingNote.move_number, TeachingNote.id)).all()
    return [NoteView(r.game_id, r.move_number, r.color, r.vertex, r.decision, r.points_lost, r.winrate_lost,
                     r.better, r.level, r.noted_at) for r in rows]


def taken_back(note: NoteView, size: int) -> TakenBack:
    """A taken-back note as the game record's ``TakenBack``."""
    return TakenBack(note.move_number, color_from_str(note.color), from_gtp(note.vertex, size), note.points_lost,
                     from_gtp(note.better, size) if note.better else None)


def variations_of(notes: list[NoteView], size: int) -> dict[int, list[list[tuple[str, str, str]]]]:
    """The taken-back notes as SGF export variations: move count before the move ->
    one-move lines ``(colour, vertex, comment)``."""
    out: dict[int, list[list[tuple[str, str, str]]]] = {}
    for note in notes:
        if note.decision == "taken_back":
            out.setdefault(note.move_number - 1, []).append(
                [(note.color, note.vertex, taken_back(note, size).comment(size))])
    return out


def kept_comment(note: NoteView) -> str:
    """The comment of a kept mistake's move: ``Kept after the teacher's warning: loses 6.5 points; better C3``."""
    parts = [KEPT]
    if note.points_lost is not None:
        lost = f"{note.points_lost:g}"
        parts.append(f": loses {lost} point{'' if lost == '1' else 's'}")
    if note.better:
        parts.append(f"{';' if note.points_lost is not None else ':'} better {note.better}")
    return "".join(parts)


def read_back(comments: dict[str, str], variations: dict[str, list], moves: list[tuple[str, str]],
              size: int) -> tuple[list[dict[str, Any]], dict[str, str], dict[str, list]]:
    """The teaching notes an imported game's ``comments`` (move count -> text) and
    ``variations`` (move count -> lines of ``[colour, vertex, comment]``) hold, as
    ``add_note`` keywords without the game, and the comments and variations without
    them. ``moves``: the main line's ``(colour, vertex)``. A taken-back move is a
    one-move variation commented as ``TakenBack.comment``; a kept one a paragraph of its
    move's comment as ``kept_comment``."""
    notes: list[dict[str, Any]] = []
    rest_variations: dict[str, list] = {}
    for n, lines in variations.items():
        for line in lines:
            color, vertex, comment = (list(line[0]) + [None])[:3] if len(line) == 1 else (None, None, None)
            taken = taken_back_of(comment, int(n) + 1, (color_from_str(color), from_gtp(vertex, size)), size) \
                if color else None
            if taken is None:
                rest_variations.setdefault(n, []).append(line)
                continue
            notes.append(dict(move_number=int(n) + 1, color=color, vertex=vertex, decision="taken_back",
                              points_lost=taken.points_lost,
                              better=None if taken.better is None else to_gtp(taken.better, size)))
    rest_comments: dict[str, str] = {}
    for n, text in comments.items():
        kept = []
        for part in text.split("\n\n"):
            found = _KEPT.match(part.strip())
            if found and 0 < int(n) <= len(moves):
                color, vertex = moves[int(n) - 1]
                notes.append(dict(move_number=int(n), color=color, vertex=vertex, decision="kept",
                                  points_lost=float(found.group(1)) if found.group(1) else None,
                                  better=found.group(2)))
            else:
                kept.append(part)
        if kept:
            rest_comments[n] = "\n\n".join(kept)
    notes.sort(key=lambda note: note["move_number"])
    return notes, rest_comments, rest_variations
