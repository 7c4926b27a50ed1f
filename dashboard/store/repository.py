"""``Store``: the one object the dashboard pages and services hold for the history.

It owns an engine and a session factory and runs every call in its own transaction
(committed on success, rolled back on any error), returning plain frozen dataclasses.
The work itself lives in ``games``, ``analyses``, ``sgf_io``, ``players``,
``reviews`` and ``teaching_notes`` (functions over a
``Session``), which callers needing several steps in one transaction use directly with
``Store.session()``. Applying wire messages is ``dashboard.ingest.ingest(store.sessions,
...)``.
"""

from __future__ import annotations

from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any, Iterator, Mapping, Sequence

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from dashboard.mistakes import GameReview
from dashboard.store import analyses, games, players, reviews, sgf_io, teaching_notes
from dashboard.store.analyses import AnalysisView, PositionKey
from dashboard.store.engine import make_engine, make_sessions, start_transaction
from dashboard.store.games import BoardView, GameDetail, GameFilter, GamePage, ProblemView
from dashboard.store.migrate import upgrade_to_head
from dashboard.store.players import GUEST, MergeView, PlayerView
from gobuddy.go.record import GameError, GameRecord


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
        """The game as a ``GameRecord``; raises ``UnknownGame`` or ``GameError``."""
        with self.session() as s:
            return sgf_io.game_record(s, game_id)

    def rename_game(self, game_id: str, name: str | None) -> None:
        with self.session(write=True) as s:
            games.rename_game(s, game_id, name)

    def delete_game(self, game_id: str) -> None:
        with self.session(write=True) as s:
            games.delete_game(s, game_id)

    def note_teaching(self, game_id: str, move_number: int, color: str, vertex: str, decision: str, *,
                      points_lost: float | None = None, winrate_lost: float | None = None,
                      better: str | None = None, level: str | None = None) -> None:
        """See ``teaching_notes.add_note``: keep a move the teacher called a mistake,
        ``taken_back`` or ``kept``."""
        with self.session(write=True) as s:
            teaching_notes.add_note(s, game_id, move_number, color, vertex, decision, points_lost=points_lost,
                                    winrate_lost=winrate_lost, better=better, level=level)

    def teaching_notes(self, game_id: str) -> list[teaching_notes.NoteView]:
        """See ``teaching_notes.notes_for_game``."""
        with self.session() as s:
            return teaching_notes.notes_for_game(s, game_id)

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
        """``import_sgf`` with the repairs made to read the file (``sgf_io.SgfImport``).
        The imported games are linked to the players of their names, and those with a
        result wait for a review."""
        with self.session(write=True) as s:
            done = sgf_io.import_sgf_file(s, data)
            players.link_unlinked(s, done.ids)
            reviews.mark_finished_pending(s, done.ids)
            return done

    def export_player_sgf(self, player_id: int, with_analysis: bool = True) -> str:
        """Every game of a player (oldest first) as one SGF collection: each game a game
        tree, as ``export_sgf`` writes it. Games that cannot be written (a record with a
        gap) are left out."""
        with self.session() as s:
            ids = [g.id for g in reviews.player_games(s, player_id)]
            trees = []
            for game_id in ids:
                try:
                    trees.append(sgf_io.export_sgf(s, game_id, with_analysis, None).strip())
                except (GameError, games.UnknownGame):
                    continue
        return "\n".join(trees) + ("\n" if trees else "")

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

    # ------------------------------------------------------------------ players
    def players(self, *, kind: str | None = None, merged: bool = False) -> list[PlayerView]:
        """Players by name with their game counts (``players.list_players``)."""
        with self.session() as s:
            return players.list_players(s, kind=kind, merged=merged)

    def player(self, player_id: int) -> PlayerView:
        """A player; raises ``PlayerError``."""
        with self.session() as s:
            return players.get_player(s, player_id)

    def player_named(self, name: str, kind: str = "human", *, create: bool = False) -> PlayerView | None:
        """The player called ``name`` (through merges); created when ``create``."""
        with self.session(write=create) as s:
            p = players.player_for(s, name, kind, create=create)
            return players.get_player(s, p.id) if p else None

    def player_of_user(self, user_name: str) -> PlayerView | None:
        with self.session() as s:
            return players.player_of_user(s, user_name)

    def claim_games(self, to_player_id: int, game_ids: Sequence[str], *, from_name: str = GUEST,
                    color: str | None = None, by: str | None = None) -> int:
        """Give a player chosen games of ``from_name`` (all or nothing; ``players.claim_games``)."""
        with self.session(write=True) as s:
            return players.claim_games(s, to_player_id, game_ids, from_name=from_name, color=color, by=by)

    def claim_board_games(self, to_player_id: int, board_id: str, since: datetime, until: datetime, *,
                          from_name: str = GUEST, color: str | None = None, by: str | None = None) -> int:
        """Give a player all of a board's games of ``from_name`` in ``[since, until)``."""
        with self.session(write=True) as s:
            return players.claim_board_games(s, to_player_id, board_id, since, until, from_name=from_name,
                                             color=color, by=by)

    def board_games_of(self, board_id: str, since: datetime, until: datetime,
                       name: str = GUEST) -> list[str]:
        with self.session() as s:
            return players.board_games_of(s, board_id, since, until, name)

    def merge_player(self, from_id: int, into_id: int, *, by: str | None = None) -> int:
        with self.session(write=True) as s:
            return players.merge_player(s, from_id, into_id, by=by)

    def merges_into(self, player_id: int) -> list[MergeView]:
        with self.session() as s:
            return players.merges_into(s, player_id)

    def player_level(self, name: str) -> str | None:
        """The adaptive level of the player called ``name`` (None: unknown, or no game
        against a level yet). The Play page offers ``ladder.suggested_level`` of it."""
        with self.session() as s:
            return players.level_of(s, name)

    def suggested_level(self, name: str, levels: Sequence[str] | None = None) -> str | None:
        """The opponent level to offer ``name`` before a game (the Play page): their
        adaptive level, or the weakest for a newcomer (``ladder.suggested_level``);
        ``levels`` default to ``gobuddy.ai.levels``'s names."""
        from dashboard import ladder

        levels = ladder.default_levels() if levels is None else levels
        return ladder.suggested_level(self.player_level(name), levels or [])

    def set_player_level(self, player_id: int, level: str | None) -> None:
        with self.session(write=True) as s:
            players.set_level(s, player_id, level)

    # ------------------------------------------------------------------ reviews
    def player_history(self, player_id: int, now: datetime | None = None) -> reviews.PlayerHistory:
        """What the player's page shows, in one read transaction (``reviews.player_history``)."""
        with self.session() as s:
            return reviews.player_history(s, player_id, now or datetime.now(timezone.utc))

    def save_review(self, game_id: str, review: GameReview, *, kinds: Mapping[int, str | None] = {},
                    complete: bool = True) -> None:
        with self.session(write=True) as s:
            reviews.save_review(s, game_id, review, kinds=kinds, complete=complete)

    def games_to_review(self, *, partial: bool = False, limit: int | None = None) -> list[str]:
        """Finished games waiting for a review, oldest first; games finished before this
        existed (a result, never queued) are queued first."""
        with self.session(write=True) as s:
            reviews.mark_finished_pending(s)
            return reviews.games_to_review(s, partial=partial, limit=limit)

    def review_counts(self) -> dict[str, int]:
        with self.session() as s:
            return reviews.review_counts(s)
