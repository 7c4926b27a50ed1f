"""``Store``: the one object the dashboard pages and services hold for the history.

It owns an engine and a session factory and runs every call in its own transaction
(committed on success, rolled back on any error), returning plain frozen dataclasses.
The work itself lives in ``games``, ``analyses`` and ``sgf_io`` (functions over a
``Session``), which callers needing several steps in one transaction use directly with
``Store.session()``. Applying wire messages is ``dashboard.ingest.ingest(store.sessions,
...)``.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from dashboard.store import analyses, games, sgf_io
from dashboard.store.analyses import AnalysisView
from dashboard.store.engine import make_engine, make_sessions, start_transaction
from dashboard.store.games import BoardView, GameDetail, GameFilter, GamePage, ProblemView
from dashboard.store.migrate import upgrade_to_head
from dashboard.store.replay import PositionKey
from gobuddy.go.record import GameRecord


class Store:
    """The history store over one database (see the module docstring)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.sessions = make_sessions(engine)

    @classmethod
    def open(cls, url: str, *, migrate: bool = True) -> "Store":
        """Connect to ``url``; with ``migrate`` first bring its schema to the newest."""
        engine = make_engine(url)
        if migrate:
            upgrade_to_head(engine)
        return cls(engine)

    def close(self) -> None:
        self.engine.dispose()

    @contextmanager
    def session(self, write: bool = False) -> Iterator[Session]:
        """One transaction: committed when the block ends, rolled back on an error.
        Pass ``write=True`` for a transaction that changes something (see
        ``engine.start_transaction``)."""
        with self.sessions.begin() as session:
            start_transaction(session, write=write)
            yield session

    # ------------------------------------------------------------------ games
    def list_games(self, filters: GameFilter = GameFilter(), *, limit: int = 50, offset: int = 0) -> GamePage:
        """See ``games.list_games``: newest first, one page, with the total."""
        with self.session() as s:
            return games.list_games(s, filters, limit=limit, offset=offset)

    def get_game(self, game_id: str) -> GameDetail:
        """A game with setup and moves; raises ``UnknownGame``."""
        with self.session() as s:
            return games.get_game(s, game_id)

    def game_record(self, game_id: str) -> GameRecord:
        """The game as a ``GameRecord``; raises ``UnknownGame`` or ``RecordError``."""
        with self.session() as s:
            return sgf_io.game_record(s, game_id)

    def rename_game(self, game_id: str, name: str | None) -> None:
        with self.session(write=True) as s:
            games.rename_game(s, game_id, name)

    def delete_game(self, game_id: str) -> None:
        with self.session(write=True) as s:
            games.delete_game(s, game_id)

    def boards(self) -> list[BoardView]:
        with self.session() as s:
            return games.list_boards(s)

    def problems(self, game_id: str) -> list[ProblemView]:
        with self.session() as s:
            return games.problems_for_game(s, game_id)

    # ------------------------------------------------------------------ SGF
    def export_sgf(self, game_id: str, with_analysis: bool = True, model: str | None = None) -> str:
        """SGF of a stored game, with the engine's view as comments (``sgf_io``)."""
        with self.session() as s:
            return sgf_io.export_sgf(s, game_id, with_analysis, model)

    def import_sgf(self, data: bytes | str) -> list[str]:
        """Import every game of an SGF file, all or nothing; raises ``SgfImportError``."""
        return self.import_sgf_file(data).ids

    def import_sgf_file(self, data: bytes | str) -> sgf_io.SgfImport:
        """``import_sgf`` with the repairs made to read the file (``sgf_io.SgfImport``)."""
        with self.session(write=True) as s:
            return sgf_io.import_sgf_file(s, data)

    # ------------------------------------------------------------------ analyses
    def position_keys(self, game_id: str) -> dict[int, PositionKey]:
        """The key of each position of a game (move count -> key), up to a gap."""
        with self.session() as s:
            return analyses.game_position_keys(s, game_id)

    def save_analysis(self, key: PositionKey, model: str, answer: dict[str, Any], *, move_count: int,
                      visits: int | None = None, game_id: str | None = None,
                      move_number: int | None = None) -> bool:
        """Store an engine answer for a position; True unless a deeper one is stored."""
        with self.session(write=True) as s:
            return analyses.save_analysis(s, key, model, answer, move_count=move_count, visits=visits,
                                          game_id=game_id, move_number=move_number)

    def get_analysis(self, key: PositionKey, model: str | None = None) -> AnalysisView | None:
        with self.session() as s:
            return analyses.get_analysis(s, key, model)

    def analyses_for_game(self, game_id: str, model: str | None = None) -> dict[int, AnalysisView]:
        """Move count -> the analysis of that position, where one is stored."""
        with self.session() as s:
            return analyses.analyses_for_game(s, game_id, model)
