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
from typing import Callable, Concatenate, Iterator, ParamSpec, Sequence, TypeVar

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from dashboard import ladder
from dashboard.store import analyses, games, players, reviews, sgf_io, teaching_notes
from dashboard.store.engine import make_engine, make_sessions, start_transaction
from dashboard.store.migrate import upgrade_to_head
from dashboard.store.players import PlayerView
from gobuddy.go.record import GameError


P = ParamSpec("P")
R = TypeVar("R")


def _in_transaction(work: Callable[Concatenate[Session, P], R], *,
                    write: bool = False) -> Callable[Concatenate[Store, P], R]:
    """A ``Store`` method that runs ``work`` (a function over a ``Session``, whose
    docstring it takes) in a transaction of its own; ``write`` for one that changes
    something."""
    def method(store: Store, /, *args: P.args, **kwargs: P.kwargs) -> R:
        with store.session(write=write) as session:
            return work(session, *args, **kwargs)

    method.__doc__ = work.__doc__
    return method


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
    list_games = _in_transaction(games.list_games)
    get_game = _in_transaction(games.get_game)
    game_record = _in_transaction(sgf_io.game_record)
    rename_game = _in_transaction(games.rename_game, write=True)
    delete_game = _in_transaction(games.delete_game, write=True)
    note_teaching = _in_transaction(teaching_notes.add_note, write=True)
    teaching_notes = _in_transaction(teaching_notes.notes_for_game)
    boards = _in_transaction(games.list_boards)
    problems = _in_transaction(games.problems_for_game)

    # ------------------------------------------------------------------ SGF
    export_sgf = _in_transaction(sgf_io.export_sgf)

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
    position_keys = _in_transaction(analyses.game_position_keys)
    save_analysis = _in_transaction(analyses.save_analysis, write=True)
    get_analysis = _in_transaction(analyses.get_analysis)
    analyses_for_game = _in_transaction(analyses.analyses_for_game)

    # ------------------------------------------------------------------ players
    player = _in_transaction(players.get_player)
    player_of_user = _in_transaction(players.player_of_user)
    claim_games = _in_transaction(players.claim_games, write=True)
    claim_board_games = _in_transaction(players.claim_board_games, write=True)
    board_games_of = _in_transaction(players.board_games_of)
    merge_player = _in_transaction(players.merge_player, write=True)
    merges_into = _in_transaction(players.merges_into)
    player_level = _in_transaction(players.level_of)
    set_player_level = _in_transaction(players.set_level, write=True)
    players = _in_transaction(players.list_players)  # last: from here on ``players`` is this method

    def player_named(self, name: str, kind: str = "human", *, create: bool = False) -> PlayerView | None:
        """The player called ``name`` (through merges); created when ``create``."""
        with self.session(write=create) as s:
            p = players.player_for(s, name, kind, create=create)
            return players.get_player(s, p.id) if p else None

    def suggested_level(self, name: str, levels: Sequence[str] | None = None,
                        size: int = ladder.MAIN_SIZE) -> str | None:
        """The opponent level to offer ``name`` before a game of ``size`` (the Play page):
        their adaptive level on that size's ladder, or the weakest for a newcomer
        (``ladder.suggested_level``); ``levels`` default to ``gobuddy.ai.levels``'s names."""
        levels = ladder.default_levels() if levels is None else levels
        return ladder.suggested_level(self.player_level(name, size), levels or [])

    # ------------------------------------------------------------------ reviews
    def player_history(self, player_id: int, now: datetime | None = None) -> reviews.PlayerHistory:
        """What the player's page shows, in one read transaction (``reviews.player_history``)."""
        with self.session() as s:
            return reviews.player_history(s, player_id, now or datetime.now(timezone.utc))

    save_review = _in_transaction(reviews.save_review, write=True)
    review_counts = _in_transaction(reviews.review_counts)

    def games_to_review(self, *, partial: bool = False, limit: int | None = None) -> list[str]:
        """Finished games waiting for a review, oldest first; games finished before this
        existed (a result, never queued) are queued first."""
        with self.session(write=True) as s:
            reviews.mark_finished_pending(s)
            return reviews.games_to_review(s, partial=partial, limit=limit)
