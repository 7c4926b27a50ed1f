"""Stored games <-> ``GameRecord`` and SGF: export with the engine's view, import.

Export (``export_sgf``) writes the main line exactly as stored (setup stones, moves,
passes) with the game's info; ``with_analysis`` adds the review of the Replay page
(``dashboard.mistakes``, from the stored analyses) to each node, as the comment (C)
and the standard move annotations:

    Loss 3.2 points (inaccuracy) · best D4 · win rate B 54.3% · score B+2.5

what the move lost (in points where the model has a score head, else in percent of
win rate) and its class, the engine's best move in the position it was played from
(``best D4 (played)`` when it was that move), black's win rate and score lead after
it; parts whose analysis is missing are left out. A blunder is marked ``BM[2]``, a
mistake ``BM[1]``, an inaccuracy ``DO[]`` (Sabaki and CGoban show these; GNU Go
skips them). The comment of an inaccuracy or worse goes on with why, in plain words
(``gobuddy.explain``, from the analyses before and after the move; at most
``MAX_REASONS`` sentences, then the first reasons for the engine's choice instead, all
cut to ``MAX_WHY`` characters; the comments' words are ``dashboard.store.sgf_comments``):

    The engine expects about 13 points more at G5 than at the move played.
    Best G5: Captures 3 stones at D5 E5 F5.

An explanation that fails is logged and left out; the rest of the comment stays.

``variations`` (move count -> lines of ``(colour, vertex[, comment])``) are written as
branches from the position after that many moves, after the main line;
the first node of each says ``Variation (not played)`` (a line from the last position
is, in SGF, where the main line goes on), unless it is a taken-back move.

The teacher's notes (``teaching_notes``) go in too: a move taken back is a variation of
one move commented ``Taken back: loses 6.5 points; better C3`` (as
``gobuddy.go.game.Game.record`` writes it, so ``Game.from_record`` reads it back), and
a mistake the learner kept says ``Kept after the teacher's warning: loses ...`` in its
move's comment. Import reads both back into the game's teaching notes
(``teaching_notes.read_back``), so a file exported and imported again exports the same.

The final count (``Game.dead``, the stones it lifted) is written as territory marks,
``TB``/``TW``, in the last node of the main line; import reads the dead stones back
from them (``dashboard.store.sgf_territory``).

Import (``import_sgf_file``) is all-or-nothing: every
game of the file is read (leniently: ``gobuddy.go.sgf.read_sgf`` repairs what
real-world files get wrong, and each repair comes back as a warning naming the game,
line and column) and replayed with full legality before anything is written, and any
problem that cannot be repaired raises ``SgfImportError`` naming the game and what is
wrong. What is kept: the main line, the setup before the first move (setup in nodes
after the root, as problem files have it, is folded into the start position, with a
warning), PL, game info, and in the game's ``extra``: the comments of the main line
(``comments``: move count -> text) and its variations (``variations``: move count ->
lines of ``[colour, vertex, comment]``, each from the position after that many moves;
a variation with setup stones or an illegal move is left out, with a warning), at most
``MAX_VARIATION_MOVES`` moves and ``MAX_COMMENT`` characters a comment. Export writes
them back (a stored comment before the review's). Not
supported (an error naming the move): setup stones after a move, since a stored game
is its start position and one list of moves. A game's id is derived from its
content, so importing the same file twice stores it once.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Mapping, Sequence

from sqlalchemy import delete
from sqlalchemy.orm import Session

from dashboard.mistakes import review_game
from dashboard.store.analyses import analyses_for_game
from dashboard.store.games import get_game
from dashboard.store.models import Game, Move, SetupStone, TeachingNote
from dashboard.store.sgf_comments import joined, mistakes_why, move_comment, position_comment
from dashboard.store.sgf_territory import dead_from_marks, territory_marks
from dashboard.store.teaching_notes import kept_comment, notes_for_game, read_back, variations_of
from gobuddy.go.coords import BLACK, WHITE, color_from_str, color_to_str, from_gtp, to_gtp
from gobuddy.go.game import Game as GoGame
from gobuddy.go.game import Ruleset
from gobuddy.go.position import Position
from gobuddy.go.record import GameError, GameRecord, Node
from gobuddy.go.sgf import dump_sgf, read_sgf

log = logging.getLogger("dashboard.sgf_io")
INFO_EXTRA = ("black_rank", "white_rank", "date", "place", "event")
LIMITS = {"black": 64, "white": 64, "result": 16, "rules": 16, "name": 200}
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
SGF_RULES = {"new-zealand": "nz"}  # our name -> gobuddy.go.sgf's (which writes RU[NZ])
STORE_RULES = {v: k for k, v in SGF_RULES.items()}


class SgfImportError(ValueError):
    """An SGF file that cannot be imported; nothing of it was stored."""


@dataclass(frozen=True)
class SgfImport:
    """An imported file: the stored games' ids in file order, and what was repaired
    to read it (one line each, naming the game when the file holds several)."""

    ids: list[str]
    warnings: list[str]


def game_record(session: Session, game_id: str) -> GameRecord:
    """The stored game as a ``GameRecord`` (one main line). Raises ``UnknownGame``, or
    ``GameError`` if moves are still missing (a record cannot have holes)."""
    detail = get_game(session, game_id)
    g = detail.game
    if detail.missing_moves:
        raise GameError(f"game {game_id!r} is missing moves {list(detail.missing_moves)}; "
                          "it has no complete record yet", detail.missing_moves[0])
    extra = detail.extra
    info: dict[str, Any] = {k: extra.get(k, "") for k in INFO_EXTRA}
    info["date"] = info["date"] or g.started_at.date().isoformat()
    record = GameRecord.from_moves(
        g.size, g.komi,
        [(color_from_str(m.color), from_gtp(m.vertex, g.size)) for m in detail.moves],
        setup_black=[from_gtp(v, g.size) for c, v in detail.setup if c == "B"],
        setup_white=[from_gtp(v, g.size) for c, v in detail.setup if c == "W"],
        rules=SGF_RULES.get(g.rules, g.rules), handicap=g.handicap, black=g.black or "", white=g.white or "", result=g.result,
        game_name=g.name or "", extra={k: list(v) for k, v in extra.get("sgf", {}).items()}, **info)
    first = color_from_str(g.to_play)
    if first != (WHITE if g.handicap >= 2 else BLACK):
        record.root.to_play = first
    return record


VARIATION = "Variation (not played)"
TAKEN_BACK = "Taken back"
MAX_VARIATION_MOVES = 5000
MAX_COMMENT = 4000
MARKS = {"blunder": ("BM", "2"), "mistake": ("BM", "1"), "inaccuracy": ("DO", "")}
Line = Sequence[tuple[str, ...]]


def export_sgf(session: Session, game_id: str, with_analysis: bool = True, model: str | None = None,
               variations: Mapping[int, Sequence[Line]] | None = None) -> str:
    """SGF text of a stored game; with the review as comments and marks when
    ``with_analysis`` (from ``model``, or the deepest analysis of any model), and
    ``variations`` as branches (see the module docstring). Raises ``ValueError`` for a
    variation that starts past the end of the game or names a point off the board."""
    record = game_record(session, game_id)
    nodes = record.main_line()
    detail = get_game(session, game_id)
    dead = session.get(Game, game_id).dead  # type: ignore[union-attr]  # get_game found it
    extra = detail.extra or {}
    kept = {int(n): text for n, text in (extra.get("comments") or {}).items()}
    for n, text in kept.items():
        if 0 <= n < len(nodes):
            nodes[n].comment = text
    notes = notes_for_game(session, game_id)
    for note in notes:
        if note.decision == "kept" and 0 < note.move_number < len(nodes):
            nodes[note.move_number].comment = joined(nodes[note.move_number].comment, kept_comment(note))
    if with_analysis:
        found = analyses_for_game(session, game_id, model)
        answers = {n: a.answer for n, a in found.items()}
        moves = [(i, color_to_str(node.move[0]), to_gtp(node.move[1], record.info.size))
                 for i, node in enumerate(nodes[1:], start=1) if node.move]
        review = review_game(moves, answers)
        start = answers.get(0)
        if start is not None:
            nodes[0].comment = joined(nodes[0].comment, position_comment(start))
        why = mistakes_why(detail, [m for m in review.moves if m.category in MARKS], answers)
        for move in review.moves:
            node = nodes[move.number]
            node.comment = joined(node.comment, move_comment(move, review.unit))
            if why.get(move.number):
                node.comment = "\n".join(t for t in (node.comment, why[move.number]) if t)
            if move.category in MARKS:
                name, value = MARKS[move.category]
                node.properties[name] = [value]
    every: dict[int, list[Line]] = {}
    for n, lines in (extra.get("variations") or {}).items():
        every.setdefault(int(n), []).extend([tuple(m) for m in line] for line in lines)
    for n, lines in (variations or {}).items():
        every.setdefault(n, []).extend(lines)
    for n, lines in sorted(every.items()):
        if not 0 <= n < len(nodes):
            raise ValueError(f"a variation from move {n}: the game has {len(nodes) - 1} moves")
        for line in lines:
            node = nodes[n]
            for index, (color, vertex, *comment) in enumerate(line):
                said = [c for c in comment[:1] if c]
                move = (color_from_str(color), from_gtp(vertex, record.info.size))
                if index == 0 and said and said[0].startswith(TAKEN_BACK):  # its own, even where the game went on
                    node = node.add_child(Node(move=move, comment=said[0]))
                    continue
                known = len(node.children)
                node = record.add_move(node, *move)
                if node.parent is not None and len(node.parent.children) == known:
                    continue  # there already: the main line, or a line given twice
                first = [VARIATION] if index == 0 and not (said and said[0].startswith(VARIATION)) else []
                node.comment = " · ".join(first + said) or None
    if dead is not None and len(nodes) > 1:  # the count: territory in the last node
        marks = territory_marks(record.position_at(nodes[-1]), dead)
        nodes[-1].properties.update({name: points for name, points in marks.items() if points})
    for n, lines in variations_of(notes, record.info.size).items():
        for (color, vertex, comment), in lines:
            if 0 <= n < len(nodes):  # its own, even where the game went on with the same move
                nodes[n].add_child(Node(move=(color_from_str(color), from_gtp(vertex, record.info.size)),
                                        comment=comment))
    return dump_sgf(record)


def import_sgf_file(session: Session, data: bytes | str, now: datetime | None = None) -> SgfImport:
    """Store every game of an SGF file; return their ids in file order and the repairs
    made to read it. A game already imported keeps its id (and is restored if it had
    been deleted). Raises ``SgfImportError`` and writes nothing if any game cannot be
    imported."""
    try:
        read = read_sgf(data)
    except ValueError as exc:  # SgfError, and any other value the reader could not take
        raise SgfImportError(f"not a valid SGF file: {exc}") from None
    records = read.records
    if not records:
        raise SgfImportError("the file holds no game")
    now = now or datetime.now(timezone.utc)
    warnings = [str(w) for w in read.warnings]
    games = []
    for index, record in enumerate(records, start=1):
        where = f"game {index} of {len(records)}" if len(records) > 1 else "the game"
        try:
            game, setup, moves, notes = _game_rows(record, now)
        except (GameError, ValueError) as exc:
            raise SgfImportError(f"{where}: {exc}") from None
        games.append((game, setup, moves))
        warnings += [f"{where}: {note}" if len(records) > 1 else note for note in notes]
    ids: list[str] = []
    for game, setup, moves in games:
        if game.id not in ids:
            ids.append(game.id)
            _store(session, game, setup, moves)
    return SgfImport(ids, warnings)


def _store(session: Session, game: Game, setup: list[SetupStone], moves: list[Move | TeachingNote]) -> None:
    old = session.get(Game, game.id)
    if old is not None and old.deleted_at is None:
        return
    if old is not None:
        for table in (Move, SetupStone, TeachingNote):
            session.execute(delete(table).where(table.game_id == game.id))
        session.delete(old)
        session.flush()
    session.add(game)
    session.flush()
    session.add_all(setup + moves)


def _game_rows(record: GameRecord, now: datetime) -> tuple[Game, list[SetupStone], list[Move | TeachingNote],
                                                           list[str]]:
    """The rows of one game (its setup; its moves, then its teaching notes) and notes on
    what was folded into its start position."""
    info, size, root = record.info, record.info.size, record.root
    if root.move is not None:
        raise GameError("a move in the root node is not supported", 1)
    line = record.linear_line()
    if line.dropped:
        raise GameError(f"setup stones after move {line.dropped} are not supported (a stored game is a start "
                          "position and its moves)", line.dropped)
    first = line.to_play
    setup = [("B", to_gtp(p, size)) for p in line.setup_black] + [("W", to_gtp(p, size)) for p in line.setup_white]
    rules = STORE_RULES.get(info.rules, info.rules)
    game = GoGame.from_gtp(size, Ruleset(rules, info.komi), color_to_str(first), setup)
    start = game.position_at(0)
    moves = []
    for number, (color, point) in enumerate(line.moves, start=1):
        c, v = color_to_str(color), to_gtp(point, size)
        moves.append((number, c, v, sorted(to_gtp(p, size) for p in game.play_gtp(c, v))))
    last = record.main_line()[-1]
    fields = dict(black=info.black or None, white=info.white or None, result=info.result, rules=rules,
                  name=info.game_name or None)
    dead = dead_from_marks(game.position, last.properties) if moves and last.move is not None else None
    for field, limit in LIMITS.items():
        if fields[field] is not None and len(fields[field]) > limit:  # type: ignore[arg-type]
            raise ValueError(f"{field} {fields[field]!r} is longer than {limit} characters")
    extra: dict[str, Any] = {k: getattr(info, k) for k in INFO_EXTRA if getattr(info, k)}
    if info.extra:
        extra["sgf"] = {k: list(v) for k, v in info.extra.items()}
    comments, variations, kept_notes = kept_tree(record, start)
    taught, comments, variations = read_back(comments, variations, [m[1:3] for m in moves], size)
    if comments:
        extra["comments"] = comments
    if variations:
        extra["variations"] = variations
    content = [size, float(info.komi), rules, info.handicap, color_to_str(first), setup,
               [m[:3] for m in moves], fields["black"], fields["white"], fields["result"]]
    digest = hashlib.sha256(json.dumps(content).encode()).hexdigest()[:24]
    game = Game(id=f"sgf-{digest}", board_id=None, source="sgf", size=size, komi=float(info.komi),
                handicap=info.handicap, to_play=color_to_str(first), mode="imported",
                started_at=_started(info.date, now), ended_at=None, end_reason=None, extra=extra or None,
                deleted_at=None, dead=dead, **fields)
    return (game, [SetupStone(game_id=game.id, color=c, vertex=v) for c, v in setup],
            [Move(game_id=game.id, move_number=n, color=c, vertex=v, captures=caps, played_at=None)
             for n, c, v, caps in moves] + [TeachingNote(game_id=game.id, noted_at=now, **t) for t in taught],
            line.notes + kept_notes)


def kept_tree(record: GameRecord, start: Position) -> tuple[dict[str, str], dict[str, list], list[str]]:
    """The comments of the main line (move count -> text) and its variations (move
    count -> lines of ``[colour, vertex, comment]``), for the game's ``extra``, and notes
    on what was left out. ``start`` is the position before move 1 (played on a copy)."""
    size = record.info.size
    comments: dict[str, str] = {}
    variations: dict[str, list] = {}
    notes: list[str] = []
    budget = [MAX_VARIATION_MOVES]
    pos, n = start.copy(), 0
    for node in record.main_line():
        if node.move is not None:
            n += 1
            pos.play(node.move[1], node.move[0], check=False)
        if node.comment:
            text = _clipped(node.comment, notes, f"the comment after move {n}")
            comments[str(n)] = "\n\n".join(t for t in (comments.get(str(n)), text) if t)
        for child in node.children[1:]:
            lines = _lines(child, pos, size, budget, notes, n)
            if lines:
                variations.setdefault(str(n), []).extend(lines)
    if budget[0] < 0:
        notes.append(f"variations: only the first {MAX_VARIATION_MOVES} moves are kept")
    return comments, variations, notes


def _clipped(text: str, notes: list[str], what: str) -> str:
    if len(text) <= MAX_COMMENT:
        return text
    notes.append(f"{what} is cut to {MAX_COMMENT} characters")
    return text[:MAX_COMMENT]


def _lines(first: Any, start: Position, size: int, budget: list[int], notes: list[str], n: int) -> list[list]:
    """Every line from the variation ``first`` (a node after move ``n``) to its leaves,
    checked move by move from ``start``; a line stops being followed where it sets up
    stones or plays an illegal move (with a note)."""
    out: list[list] = []

    def walk(node: Any, pos: Position, prefix: list) -> None:
        if budget[0] <= 0:
            budget[0] = -1
            return
        if node.has_setup():
            notes.append(f"a variation after move {n} sets up stones: left out from there")
            return
        entry = prefix
        if node.move is not None:
            color, point = node.move
            why = None if point == size * size else pos.illegal_reason(point, color)
            if why is not None:
                notes.append(f"a variation after move {n} plays an illegal move ({why}): left out from there")
                return
            pos = pos.copy()
            pos.play(point, color, check=False)
            budget[0] -= 1
            comment = _clipped(node.comment, notes, f"a comment in a variation after move {n}") \
                if node.comment else None
            entry = prefix + [[color_to_str(color), to_gtp(point, size), comment]]
        if not node.children:
            if entry:
                out.append(entry)
            return
        for child in node.children:
            walk(child, pos, entry)

    walk(first, start, [])
    return out


def _started(date: str, now: datetime) -> datetime:
    """The first YYYY-MM-DD of an SGF DT value at midnight UTC, else ``now``."""
    match = _DATE.search(date or "")
    if match:
        try:
            return datetime(*map(int, match.groups()), tzinfo=timezone.utc)
        except ValueError:
            pass
    return now
