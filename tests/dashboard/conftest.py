"""Fixtures of the store tests: a migrated database on SQLite and on a real PostgreSQL,
and ``WireGame``, which writes a game's wire events the way the edge agent does.

PostgreSQL is started once per session (``tests/postgres_server.py``); ``store`` gives
each test an empty migrated database (SQLite: a new file; PostgreSQL: one shared
database, truncated), ``db_url`` a database of its own (copied from a migrated
template). Its tests are skipped, with the
reason, only when the PostgreSQL binaries are not installed.

Test modules import ``WireGame`` and the helpers from here (``tests.dashboard.conftest``).
"""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path
from typing import Any, Iterator

import pytest

from dashboard.ingest import Outcome, ingest
from dashboard.store import Store
from dashboard.store.migrate import upgrade_to_head
from dashboard.store.models import Base
from gobuddy.go.coords import color_from_str, color_to_str, from_gtp, to_gtp
from gobuddy.go.position import Position
from tests import postgres_server

T0 = 1767953700000  # 2026-01-09 10:15:00 UTC, in wire milliseconds
TEMPLATE = "store_template"




@pytest.fixture(scope="session")
def postgres() -> Iterator[Any]:
    reason = postgres_server.available()
    if reason:
        pytest.skip(reason)
    server = postgres_server.PostgresServer().start()
    try:
        upgrade_to_head(server.create_database(TEMPLATE))
        yield server
    finally:
        server.stop()


_numbers = itertools.count()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A freshly migrated database of its own: a WAL SQLite file, or a PostgreSQL
    database copied from the migrated template (for tests that change the schema)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'store.db'}"
        upgrade_to_head(url)
        yield url
        return
    server = request.getfixturevalue("postgres")
    name = f"store_{next(_numbers)}"
    yield server.create_database(name, template=TEMPLATE)
    import psycopg

    with psycopg.connect(host="127.0.0.1", port=server.port, user="postgres", dbname="postgres",
                         autocommit=True) as conn:
        conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def postgres_store(postgres: Any) -> Iterator[Store]:
    """One migrated PostgreSQL database for the session (emptied before each test)."""
    s = Store.open(postgres.create_database("store_shared", template=TEMPLATE), migrate=False)
    yield s
    s.close()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated SQLite file, copied for each test (cheaper than migrating each time)."""
    path = tmp_path_factory.mktemp("sqlite") / "template.db"
    upgrade_to_head(f"sqlite:///{path}")  # disposes its engine: the WAL is checkpointed into the file
    return path


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """An empty, migrated store: a copy of the migrated SQLite file (WAL on), or the
    shared PostgreSQL database with every row deleted (faster than a new database)."""
    if request.param == "sqlite":
        path = tmp_path / "store.db"
        shutil.copyfile(request.getfixturevalue("sqlite_template"), path)
        s = Store.open(f"sqlite:///{path}", migrate=False)
        yield s
        s.close()
        return
    s = request.getfixturevalue("postgres_store")
    with s.engine.begin() as conn:
        for table in reversed(Base.metadata.sorted_tables):
            conn.execute(table.delete())
    yield s


class WireGame:
    """The wire events of one game, written as the edge agent does: seq 0 for
    game_started, +1 per event; captures computed by the rules; ts one second apart."""

    def __init__(self, game_id: str, board_id: str = "board-1", size: int = 9, komi: float = 7.0,
                 rules: str = "chinese", setup: list[tuple[str, str]] | None = None, to_play: str = "B",
                 handicap: int = 0, players: tuple[str, str] | None = ("Ana", "Ben"), mode: str = "two_players",
                 t0: int = T0) -> None:
        self.game_id, self.board_id, self.size, self.t0 = game_id, board_id, size, t0
        self.events: list[dict[str, Any]] = []
        self.pos = Position(size, superko=rules not in ("japanese", "korean"), to_play=color_from_str(to_play))
        for color, vertex in setup or []:
            self.pos.place(from_gtp(vertex, size), color_from_str(color))
        self.history: list[tuple[Position, dict[str, Any]]] = []
        self._add("game_started", 0, size=size, komi=komi, rules=rules, handicap=handicap,
                  setup=[list(s) for s in setup or []], to_play=to_play, mode=mode,
                  players=None if players is None else {"B": {"name": players[0], "kind": "human"},
                                                        "W": {"name": players[1], "kind": "human"}})

    def _add(self, event_type: str, move_number: int, **fields: Any) -> dict[str, Any]:
        seq = len(self.events)
        event = {"type": event_type, "board_id": self.board_id, "game_id": self.game_id, "seq": seq,
                 "move_number": move_number, "ts": self.t0 + 1000 * seq, **fields}
        self.events.append(event)
        return event

    def play(self, moves: str) -> "WireGame":
        """Play ``"E5 D6 pass ..."`` for the side to move, one event each."""
        for vertex in moves.split():
            color = color_to_str(self.pos.to_play)
            before = self.pos.copy()
            captured = self.pos.play(from_gtp(vertex, self.size))
            number = len(self.history) + 1
            if vertex == "pass":
                event = self._add("pass", number, color=color)
            else:
                event = self._add("move", number, color=color, vertex=vertex,
                                  captures=sorted(to_gtp(p, self.size) for p in captured))
            self.history.append((before, event))
        return self

    def undo(self) -> dict[str, Any]:
        before, event = self.history.pop()
        self.pos = before
        return self._add("undo", event["move_number"], color=event["color"], vertex=event.get("vertex", "pass"))

    def problem(self, kind: str, points: list[str], message: str) -> dict[str, Any]:
        return self._add("problem", len(self.history), kind=kind, points=points, message=message)

    def cleared(self, kind: str | None) -> dict[str, Any]:
        return self._add("problem_cleared", len(self.history), kind=kind)

    def end(self, result: str, reason: str = "score") -> dict[str, Any]:
        return self._add("game_ended", len(self.history), result=result, reason=reason)

    def moves(self) -> list[tuple[int, str, str]]:
        """(number, colour, vertex) of the moves on the board now."""
        return [(e["move_number"], e["color"], e.get("vertex", "pass")) for _, e in self.history]


def send(store: Store, *events: dict[str, Any]) -> list[Outcome]:
    """Ingest game events one by one; the outcomes, in order."""
    return [ingest(store.sessions, "game_event", e) for e in events]


def moves_of(store: Store, game_id: str) -> list[tuple[int, str, str]]:
    return [(m.number, m.color, m.vertex) for m in store.get_game(game_id).moves]
