"""Stored games <-> ``GameRecord`` and SGF: export with the engine's view, import.

Export (``export_sgf``) writes the main line exactly as stored (setup stones, moves,
passes) with the game's info; ``with_analysis`` adds a comment to each node from the
stored analyses, for example ``Win rate B 54.3% · best D4 (62.0%) · loss 3.1%``:
the win rate for black after the move, the engine's best move in the position the move
was played from (with its win rate for the player), and how much win rate the move
lost against it.

Import (``import_sgf_file``; ``import_sgf`` gives its ids) is all-or-nothing: every
game of the file is read (leniently: ``gobuddy.go.sgf.read_sgf`` repairs what
real-world files get wrong, and each repair comes back as a warning naming the game,
line and column) and replayed with full legality before anything is written, and any
problem that cannot be repaired raises ``SgfImportError`` naming the game and what is
wrong. What is kept: the main line (variations are dropped), the setup before the
first move (setup in nodes after the root, as problem files have it, is folded into
the start position, with a warning), PL, game info; node comments are dropped. Not
supported (an error naming the move): setup stones after a move, since a stored game
is its start position and one list of moves. A game's id is derived from its
content, so importing the same file twice stores it once.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import delete
from sqlalchemy.orm import Session

from dashboard.store.analyses import AnalysisView, analyses_for_game
from dashboard.store.games import get_game
from dashboard.store.models import Game, Move, SetupStone
from dashboard.store.replay import RecordError, play, start_position
from gobuddy.go.coords import BLACK, WHITE, color_from_str, color_to_str, from_gtp, to_gtp
from gobuddy.go.record import GameRecord
from gobuddy.go.sgf import SgfError, dump_sgf, read_sgf

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
    ``RecordError`` if moves are still missing (a record cannot have holes)."""
    detail = get_game(session, game_id)
    g = detail.game
    if detail.missing_moves:
        raise RecordError(f"game {game_id!r} is missing moves {list(detail.missing_moves)}; "
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


def export_sgf(session: Session, game_id: str, with_analysis: bool = True, model: str | None = None) -> str:
    """SGF text of a stored game; with the engine's evaluations as node comments when
    ``with_analysis`` (from ``model``, or the deepest analysis of any model)."""
    record = game_record(session, game_id)
    if with_analysis:
        found = analyses_for_game(session, game_id, model)
        for number, node in enumerate(record.main_line()):
            text = analysis_comment(found.get(number - 1) if number else None, found.get(number),
                                    node.move[0] if node.move else None, record.info.size)
            node.comment = text or None
    return dump_sgf(record)


def analysis_comment(before: AnalysisView | None, after: AnalysisView | None, mover: int | None,
                     size: int) -> str:
    """The comment of one node: ``Win rate B x%`` from ``after`` (the position after the
    move), ``best V (y%)`` and ``loss z%`` from ``before`` (where the move was played).
    Parts whose analysis is missing are left out; "" when there is nothing to say."""
    parts = []
    after_b = after.answer["root"]["winrate_black"] if after else None
    if after_b is not None:
        parts.append(f"Win rate B {100 * after_b:.1f}%")
    if before is not None and mover is not None and before.key.to_play == color_to_str(mover):
        moves = before.answer.get("moves") or []
        if moves:
            best = moves[0]
            best_for_mover = best["winrate"]
            parts.append(f"best {best['move']} ({100 * best_for_mover:.1f}%)")
        else:
            best_for_mover = before.answer["root"]["winrate"]
        if after_b is not None:
            after_for_mover = after_b if mover == BLACK else 1.0 - after_b
            parts.append(f"loss {100 * max(0.0, best_for_mover - after_for_mover):.1f}%")
    return " · ".join(parts)


def import_sgf(session: Session, data: bytes | str, now: datetime | None = None) -> list[str]:
    """``import_sgf_file(...).ids``: the ids of the stored games, the warnings dropped."""
    return import_sgf_file(session, data, now).ids


def import_sgf_file(session: Session, data: bytes | str, now: datetime | None = None) -> SgfImport:
    """Store every game of an SGF file; return their ids in file order and the repairs
    made to read it. A game already imported keeps its id (and is restored if it had
    been deleted). Raises ``SgfImportError`` and writes nothing if any game cannot be
    imported."""
    try:
        read = read_sgf(data)
    except SgfError as exc:
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
        except (RecordError, ValueError) as exc:
            raise SgfImportError(f"{where}: {exc}") from None
        games.append((game, setup, moves))
        warnings += [f"{where}: {note}" if len(records) > 1 else note for note in notes]
    ids: list[str] = []
    for game, setup, moves in games:
        if game.id not in ids:
            ids.append(game.id)
            _store(session, game, setup, moves)
    return SgfImport(ids, warnings)


def _store(session: Session, game: Game, setup: list[SetupStone], moves: list[Move]) -> None:
    old = session.get(Game, game.id)
    if old is not None and old.deleted_at is None:
        return
    if old is not None:
        for table in (Move, SetupStone):
            session.execute(delete(table).where(table.game_id == game.id))
        session.delete(old)
        session.flush()
    session.add(game)
    session.flush()
    session.add_all(setup + moves)


def _game_rows(record: GameRecord, now: datetime) -> tuple[Game, list[SetupStone], list[Move], list[str]]:
    """The rows of one game and notes on what was folded into its start position."""
    info, size, root = record.info, record.info.size, record.root
    if root.move is not None:
        raise RecordError("a move in the root node is not supported", 1)
    line = record.linear_line()
    if line.dropped:
        raise RecordError(f"setup stones after move {line.dropped} are not supported (a stored game is a start "
                          "position and its moves)", line.dropped)
    first = line.to_play
    setup = [("B", to_gtp(p, size)) for p in line.setup_black] + [("W", to_gtp(p, size)) for p in line.setup_white]
    rules = STORE_RULES.get(info.rules, info.rules)
    pos = start_position(size, rules, color_to_str(first), setup)
    moves = []
    for number, (color, point) in enumerate(line.moves, start=1):
        c, v = color_to_str(color), to_gtp(point, size)
        moves.append((number, c, v, play(pos, number, c, v)))
    fields = dict(black=info.black or None, white=info.white or None, result=info.result, rules=rules,
                  name=info.game_name or None)
    for field, limit in LIMITS.items():
        if fields[field] is not None and len(fields[field]) > limit:  # type: ignore[arg-type]
            raise ValueError(f"{field} {fields[field]!r} is longer than {limit} characters")
    extra: dict[str, Any] = {k: getattr(info, k) for k in INFO_EXTRA if getattr(info, k)}
    if info.extra:
        extra["sgf"] = {k: list(v) for k, v in info.extra.items()}
    content = [size, float(info.komi), rules, info.handicap, color_to_str(first), setup,
               [m[:3] for m in moves], fields["black"], fields["white"], fields["result"]]
    digest = hashlib.sha256(json.dumps(content).encode()).hexdigest()[:24]
    game = Game(id=f"sgf-{digest}", board_id=None, source="sgf", size=size, komi=float(info.komi),
                handicap=info.handicap, to_play=color_to_str(first), mode="imported",
                started_at=_started(info.date, now), ended_at=None, end_reason=None, extra=extra or None,
                deleted_at=None, **fields)
    return (game, [SetupStone(game_id=game.id, color=c, vertex=v) for c, v in setup],
            [Move(game_id=game.id, move_number=n, color=c, vertex=v, captures=caps, played_at=None)
             for n, c, v, caps in moves], line.notes)


def _started(date: str, now: datetime) -> datetime:
    """The first YYYY-MM-DD of an SGF DT value at midnight UTC, else ``now``."""
    match = _DATE.search(date or "")
    if match:
        try:
            return datetime(*map(int, match.groups()), tzinfo=timezone.utc)
        except ValueError:
            pass
    return now
