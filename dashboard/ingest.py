"""Applying wire messages (already validated dicts) to the history store, idempotently.

``ingest(sessions, kind, message)`` applies one message in its own transaction and
returns an ``Outcome``: ``applied``, ``duplicate`` (nothing changed), ``pending`` (kept,
waiting for an earlier event), ``ignored`` (nothing to store, with the reason) or
``rejected`` (nothing changed; the reason is logged). ``kind`` is ``game_event``,
``status`` or ``engine_answer``; the ``apply_*`` functions do the same inside a
caller's session and raise ``Rejected``.

Game events, decided:
- Each applied event is logged under (game_id, seq). The same seq again with the same
  payload is a duplicate; with another payload it is rejected.
- A game's moves are the fold of its log in seq order (move/pass add move_number, undo
  removes it), so a late event lands where it belongs. Moves may have gaps in their
  numbers while events are missing (``GameDetail.missing_moves``).
- A move for a number that holds another move, an undo that does not match the move it
  names or is not the last one, an illegal move (replayed with full legality, captures
  compared with the rules') are rejected: nothing recorded changes. When such an event
  follows a gap in the seqs, the missing events may explain it: it is kept as
  ``pending`` and re-examined whenever the log grows.
- An event before its game's ``game_started`` is rejected, not created lazily: the
  board size, komi and rules are unknown without it (MQTT delivers one topic in order,
  so this means the start was lost). An event for a deleted game is ignored.
- ``game_started`` links the game to its players (``dashboard.store.players``,
  created as needed, kind from the wire). When a game gets its result, it is marked
  ``pending`` review (``dashboard.review``) and a person's adaptive level takes its step
  after a game against an engine level (``players.record_game_end``, once per game).
- ``game_ended`` sets the game's result, end reason and ``dead`` (the stones its count
  lifted, when it names them; each must lie on the board, else it is rejected; whether
  they hold stones is not checked: moves may still be missing).
- ``teaching`` (a board's teacher: a mistake the learner took back or kept) is kept as
  the game's teaching note (``dashboard.store.teaching_notes``), once per (game, seq):
  a taken-back move is then a variation of the game's SGF export.
- Work and memory per event grow with the number of events logged for its game, never
  with the size of a number a peer sends (a seq of 10**7 costs what a seq of 7 does).

A message the database refuses is ``rejected`` like any other (see ``ingest``).
Not checked: whose turn it is (the edge agent reports a wrong colour as a problem before it becomes a move).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Iterable

from sqlalchemy import select, text
from sqlalchemy.exc import (DisconnectionError, IntegrityError, InterfaceError, OperationalError, SQLAlchemyError)
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.orm import Session, sessionmaker

from dashboard.store.analyses import PositionKey, game_positions, save_analysis
from dashboard.store.engine import start_transaction
from dashboard.store.models import Board, Game, GameEvent, Move, SetupStone
from dashboard.store.players import link_game, record_game_end
from dashboard.store.teaching_notes import add_note
from gobuddy.go.coords import CoordinateError, from_gtp, to_gtp
from gobuddy.go.game import Game as GoGame
from gobuddy.go.game import Ruleset
from gobuddy.go.record import GameError

log = logging.getLogger(__name__)

RECENT_GAMES = 3  # how many of a board's latest games an engine answer is matched against
MAX_GAME_SEQ = 100_000  # schemas/common.schema.json: $defs.game_seq.maximum


class Rejected(ValueError):
    """A message that cannot be stored; the message says why. Nothing was changed."""


@dataclass(frozen=True)
class Outcome:
    status: str  # applied | duplicate | pending | ignored | rejected
    detail: str = ""


def ingest(sessions: sessionmaker[Session], kind: str, message: dict[str, Any]) -> Outcome:
    """Apply one message of ``kind`` in its own transaction; never raises ``Rejected``
    (returns it as an outcome, logged).

    A message the database refuses (a value out of a column's range, a constraint it
    breaks: any non-transient ``SQLAlchemyError``) is ``rejected`` too, after one more
    try for an ``IntegrityError`` (a concurrent writer may have won a race), so that it
    can be acknowledged and reported instead of blocking every later message. Only
    ``TRANSIENT_ERRORS`` propagate: the caller should not acknowledge the message, so
    that it comes again."""
    handler = HANDLERS.get(kind)
    if handler is None:
        raise ValueError(f"unknown message kind {kind!r}; expected one of {sorted(HANDLERS)}")
    for attempt in (1, 2):
        try:
            with sessions.begin() as session:
                start_transaction(session, write=True)
                outcome = handler(session, message)
        except Rejected as exc:
            log.warning("rejected %s: %s", kind, exc)
            return Outcome("rejected", str(exc))
        except (KeyError, TypeError) as exc:
            log.warning("rejected malformed %s (%s: %s): %.300r", kind, type(exc).__name__, exc, message)
            return Outcome("rejected", f"malformed {kind}: {type(exc).__name__} {exc}")
        except (SQLAlchemyError, ArithmeticError, ValueError) as exc:
            if isinstance(exc, TRANSIENT_ERRORS):
                raise
            if isinstance(exc, IntegrityError) and attempt == 1:
                continue
            what = "the database refused" if isinstance(exc, SQLAlchemyError) else "could not store"
            reason = f"{what} the {kind}: {type(exc).__name__}: {_first_line(exc)}"
            log.warning("rejected %s: %s: %.300r", kind, reason, message)
            return Outcome("rejected", reason)
        log.debug("%s %s: %s %.300r", kind, outcome.status, outcome.detail, message)
        return outcome
    raise AssertionError("unreachable")


# Database failures that say nothing about the message, worth retrying (anything else is
# not): the database is unreachable or restarting, locked by another writer, out of
# connections, or a transaction lost a serialization conflict.
TRANSIENT_ERRORS = (OperationalError, InterfaceError, DisconnectionError, PoolTimeout)


def database_writable(sessions: sessionmaker[Session]) -> bool:
    """True when an empty write transaction commits now: the database is reachable and
    no other writer holds it locked (SQLite waits its busy timeout first)."""
    try:
        with sessions.begin() as session:
            start_transaction(session, write=True)
            session.execute(text("SELECT 1"))
        return True
    except SQLAlchemyError:
        return False


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    return text[0][:300] if text else ""


def to_datetime(ts_ms: int) -> datetime:
    """Wire time (Unix epoch milliseconds) -> aware UTC datetime, but never later than
    now: a sender whose clock runs ahead cannot date anything in the future (a game
    that would sort first in the Games list for ever). A clock that runs behind is kept
    as it is (``received_at`` is stored beside it)."""
    when = datetime.fromtimestamp(ts_ms // 1000, timezone.utc) + timedelta(milliseconds=ts_ms % 1000)
    return min(when, datetime.now(timezone.utc))


def _touch_board(session: Session, board_id: str, when: datetime) -> Board:
    board = session.get(Board, board_id)
    if board is None:
        kind = "web" if board_id.startswith("web-") else "physical"
        board = Board(id=board_id, kind=kind, first_seen=when, last_seen=when)
        session.add(board)
    elif when > board.last_seen:
        board.last_seen = when
    return board


# ---------------------------------------------------------------------- game events
def apply_game_event(session: Session, event: dict[str, Any]) -> Outcome:
    """Apply one game event (see the module docstring for the rules)."""
    game_id, seq, kind = event["game_id"], event["seq"], event["type"]
    if type(seq) is not int or not 0 <= seq <= MAX_GAME_SEQ:
        raise Rejected(f"{kind} seq {seq!r} for game {game_id!r} is not a seq (an integer 0..{MAX_GAME_SEQ})")
    game = session.get(Game, game_id, with_for_update=True)
    if game is not None and game.deleted_at is not None:
        return Outcome("ignored", f"game {game_id!r} was deleted")
    if game is not None:
        logged = session.get(GameEvent, (game_id, seq))
        if logged is not None:
            if logged.payload == event:
                return Outcome("duplicate", f"seq {seq} already applied")
            raise Rejected(f"game {game_id!r}: seq {seq} was already applied as a {logged.type}; "
                           f"a different {kind} with the same seq was refused")
    if kind == "game_started":
        if game is not None:
            raise Rejected(f"game {game_id!r} already exists; game_started with seq {seq} was refused")
        return _start(session, event)
    if game is None:
        raise Rejected(f"{kind} (seq {seq}) for game {game_id!r} came before its game_started: not recorded")
    if game.source == "sgf":
        raise Rejected(f"game {game_id!r} is an imported game; live events cannot change it")
    if game.board_id != event["board_id"]:
        raise Rejected(f"game {game_id!r} is played on {game.board_id!r}, not {event['board_id']!r}")
    for vertex in event.get("dead") or () if kind == "game_ended" else ():
        try:
            from_gtp(vertex, game.size)
        except CoordinateError as exc:
            raise Rejected(f"game {game_id!r}: game_ended seq {seq} counts {vertex} dead: {exc}") from None
    logged_events = session.scalars(select(GameEvent).where(GameEvent.game_id == game_id)).all()
    events = sorted([(e.seq, e.payload) for e in logged_events] + [(seq, event)], key=lambda item: item[0])
    setup = session.execute(select(SetupStone.color, SetupStone.vertex).where(SetupStone.game_id == game_id)).all()
    moves, end, pending = _project(game, [(c, v) for c, v in setup], events, seq, kind)
    result_before = game.result
    _sync(session, game, moves, end)
    if game.result is not None and game.result != result_before:  # just finished: to be reviewed, a ladder step
        game.review_state = "pending"
        record_game_end(session, game)
    when = to_datetime(event["ts"])
    session.add(GameEvent(game_id=game_id, seq=seq, type=kind, move_number=event["move_number"], payload=event,
                          ts=when, received_at=datetime.now(timezone.utc)))
    _touch_board(session, event["board_id"], when)
    if kind == "teaching":
        add_note(session, game_id, event["move_number"], event["color"], event["vertex"], event["verdict"],
                 points_lost=event["points_lost"], winrate_lost=event["winrate_lost"], better=event["better"],
                 level=event["level"], now=when)
    if seq in pending:
        return Outcome("pending", f"{kind} seq {seq} waits for seq {first_missing(s for s, _ in events)}")
    return Outcome("applied", f"{kind} seq {seq}")


def _start(session: Session, event: dict[str, Any]) -> Outcome:
    setup = [(c, v) for c, v in event["setup"]]
    try:
        GoGame.from_gtp(event["size"], Ruleset(event["rules"], event["komi"]), event["to_play"], setup)
    except GameError as exc:
        raise Rejected(f"game {event['game_id']!r}: {exc}") from None
    when = to_datetime(event["ts"])
    board = _touch_board(session, event["board_id"], when)
    players = event.get("players") or {}
    game = Game(id=event["game_id"], board_id=board.id, source="web" if board.kind == "web" else "board",
                size=event["size"], komi=float(event["komi"]), rules=event["rules"], handicap=event["handicap"],
                to_play=event["to_play"], mode=event["mode"], black=players.get("B", {}).get("name"),
                white=players.get("W", {}).get("name"), started_at=when)
    link_game(session, game, players)
    session.add(game)
    session.flush()
    session.add_all(SetupStone(game_id=game.id, color=c, vertex=v) for c, v in setup)
    session.add(GameEvent(game_id=game.id, seq=event["seq"], type="game_started", move_number=0, payload=event,
                          ts=when, received_at=datetime.now(timezone.utc)))
    return Outcome("applied", "game_started")


@dataclass
class _Played:
    seq: int
    color: str
    vertex: str
    captures: list[str] | None
    at: datetime


class _Conflict(Exception):
    def __init__(self, seq: int, message: str) -> None:
        super().__init__(message)
        self.seq = seq


def _project(game: Game, setup: list[tuple[str, str]], events: list[tuple[int, dict[str, Any]]],
             new_seq: int, new_kind: str) -> tuple[dict[int, _Played], dict[str, Any] | None, set[int]]:
    """Fold ``events`` into moves, skipping (as pending) events that conflict after a
    gap in the seqs, or the new event when it follows a gap and the conflict is with an
    earlier one. Returns (moves with verified captures, last game_ended, pending)."""
    first_gap = first_missing(s for s, _ in events)
    pending: set[int] = set()
    while True:
        try:
            moves, end = _fold(events, pending)
            _check(game, setup, moves)
            return moves, end, pending
        except _Conflict as conflict:
            if first_gap < conflict.seq:
                pending.add(conflict.seq)
                continue
            if first_gap < new_seq and new_seq not in pending:
                pending.add(new_seq)  # the missing events may yet explain it
                continue
            prefix = f"game {game.id!r}: "
            if conflict.seq != new_seq:
                prefix += f"{new_kind} seq {new_seq} refused, it would make the record inconsistent: "
            raise Rejected(prefix + str(conflict)) from None


def _fold(events: list[tuple[int, dict[str, Any]]],
          skip: set[int]) -> tuple[dict[int, _Played], dict[str, Any] | None]:
    moves: dict[int, _Played] = {}
    end = None
    for seq, ev in events:
        kind, n = ev["type"], ev["move_number"]
        if seq in skip:
            continue
        if kind in ("move", "pass"):
            vertex = ev["vertex"] if kind == "move" else "pass"
            held = moves.get(n)
            if held is None:
                moves[n] = _Played(seq, ev["color"], vertex, ev["captures"] if kind == "move" else [],
                                   to_datetime(ev["ts"]))
            elif (held.color, held.vertex) != (ev["color"], vertex):
                raise _Conflict(seq, f"{kind} seq {seq} plays {ev['color']} {vertex} as move {n}, but move {n} "
                                     f"is {held.color} {held.vertex} (seq {held.seq}); an undo must come first")
        elif kind == "undo":
            held = moves.get(n)
            if held is None:
                continue  # the move it takes back has not arrived (or is already gone)
            if (held.color, held.vertex) != (ev["color"], ev["vertex"]):
                raise _Conflict(seq, f"undo seq {seq} takes back move {n} as {ev['color']} {ev['vertex']}, "
                                     f"but move {n} is {held.color} {held.vertex}")
            if max(moves) > n:
                raise _Conflict(seq, f"undo seq {seq} takes back move {n}, but move {max(moves)} comes after it")
            del moves[n]
        elif kind == "game_ended":
            end = ev
    return moves, end


def _check(game: Game, setup: list[tuple[str, str]], moves: dict[int, _Played]) -> None:
    """Replay the moves 1..k present without a gap with full legality, replacing their
    captures by the rules'; moves after a gap get their vertices checked only."""
    record = GoGame.from_gtp(game.size, Ruleset(game.rules, game.komi), game.to_play, setup)
    n = 1
    while n in moves:
        m = moves[n]
        try:
            taken = sorted(to_gtp(p, game.size) for p in record.play_gtp(m.color, m.vertex))
        except GameError as exc:
            raise _Conflict(m.seq, str(exc)) from None
        if m.captures is not None and sorted(str(v).upper() for v in m.captures) != taken:
            raise _Conflict(m.seq, f"move {n} ({m.color} {m.vertex}) says it captured {sorted(m.captures)}, "
                                   f"the rules capture {taken}")
        m.captures = taken
        n += 1
    for k, m in moves.items():
        if k > n:
            for vertex in [m.vertex, *(m.captures or [])]:
                try:
                    from_gtp(vertex, game.size)
                except CoordinateError as exc:
                    raise _Conflict(m.seq, f"move {k}: {exc}") from None


def _sync(session: Session, game: Game, moves: dict[int, _Played], end: dict[str, Any] | None) -> None:
    """Make the ``moves`` rows and the game's result equal to the projection."""
    rows = {m.move_number: m for m in session.scalars(select(Move).where(Move.game_id == game.id))}
    for n, row in rows.items():
        if n not in moves:
            session.delete(row)
    for n, p in moves.items():
        row = rows.get(n)
        if row is None:
            session.add(Move(game_id=game.id, move_number=n, color=p.color, vertex=p.vertex,
                             captures=list(p.captures or []), played_at=p.at))
        elif (row.color, row.vertex, row.captures, row.played_at) != (p.color, p.vertex, p.captures, p.at):
            row.color, row.vertex, row.captures, row.played_at = p.color, p.vertex, list(p.captures or []), p.at
    game.result = end["result"] if end else None
    game.end_reason = end["reason"] if end else None
    game.dead = list(end["dead"]) if end and end.get("dead") is not None else None
    game.ended_at = to_datetime(end["ts"]) if end else None


def first_missing(seqs: Iterable[int]) -> int:
    """The smallest seq >= 0 not in ``seqs``. Work and memory are proportional to how
    many seqs there are, never to how large one is (a peer chooses them)."""
    present = set(seqs)
    return next(s for s in range(len(present) + 1) if s not in present)


def stored_through(sessions: sessionmaker[Session], game_id: str) -> int:
    """The highest seq such that every event 0..seq of ``game_id`` is stored (-1: none):
    what the recorder tells the board, which re-sends the rest (end-to-end delivery)."""
    with sessions() as session:
        seqs = session.scalars(select(GameEvent.seq).where(GameEvent.game_id == game_id)).all()
    return first_missing(seqs) - 1


# ---------------------------------------------------------------------- presence
def apply_status(session: Session, status: dict[str, Any]) -> Outcome:
    """Record a board's presence (role ``board``; other roles are ignored): the status
    that arrives last wins, whatever its ``ts`` says. The broker keeps a client's status
    messages in order, and a last will carries the time of the connect it was set at
    (older than the ``online`` that followed): ordering by ``ts`` kept a crashed board
    online for ever. A ``ts`` ahead of this host's clock is stored as now."""
    if status["role"] != "board":
        return Outcome("ignored", f"status of a {status['role']}, not a board")
    when = to_datetime(status["ts"])
    board = _touch_board(session, status["client_id"], when)
    new = (status["state"], when, status["version"], status["details"])
    if (board.state, board.state_at, board.version, board.details) == new:
        return Outcome("duplicate", "same status")
    board.state, board.state_at, board.version, board.details = new
    return Outcome("applied", f"{board.id} {status['state']}")


# ---------------------------------------------------------------------- engine answers
def apply_engine_answer(session: Session, answer: dict[str, Any]) -> Outcome:
    """Store a final engine answer as the analysis of the position it names: the
    position after ``position_key.move_count`` moves of one of the board's latest games
    whose key (hash and side to move) matches. Partial answers, answers without a
    board, and answers matching no recent game are ignored (callers that know the
    position use ``save_analysis`` directly)."""
    if answer["is_during_search"]:
        return Outcome("ignored", "partial answer (is_during_search)")
    board_id = answer["board_id"]
    if not board_id:
        return Outcome("ignored", "answer for no board")
    count, wanted = answer["position_key"]["move_count"], int(answer["position_key"]["hash"], 16)
    games = session.scalars(select(Game).where(Game.board_id == board_id, Game.deleted_at.is_(None))
                            .order_by(Game.started_at.desc(), Game.id.desc()).limit(RECENT_GAMES)).all()
    for game in games:
        try:
            for n, pos in game_positions(session, game.id):
                if n < count:
                    continue
                key = PositionKey.of(pos, game.komi, game.rules)
                if int(key.hash, 16) == wanted and key.to_play == answer["to_play"]:
                    stored = save_analysis(session, key, answer["model"], answer, move_count=count,
                                           game_id=game.id, move_number=count)
                    return Outcome("applied" if stored else "duplicate",
                                   f"{game.id} after {count} moves" + ("" if stored else ": a deeper one is stored"))
                break
        except GameError:
            continue
    return Outcome("ignored", f"no recent game on {board_id} has position {answer['position_key']['hash']} "
                              f"after {count} moves")


HANDLERS: dict[str, Callable[[Session, dict[str, Any]], Outcome]] = {
    "game_event": apply_game_event,
    "status": apply_status,
    "engine_answer": apply_engine_answer,
}
