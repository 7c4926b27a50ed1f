"""Players stored with the games: the migration from revision 0002 and its backfill,
ingest linking the players of game_started, claims of guest games and merges (recorded,
nothing else changed), the ladder's step at a game's end, and the SGF archive of a
player's games. SQLite and PostgreSQL (``db_url``/``store`` fixtures)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa
from alembic import command

from dashboard.store import PlayerError, Store
from dashboard.store.engine import make_engine
from dashboard.store.migrate import alembic_config, current_revision, head_revision
from gobuddy.go.sgf import read_sgf
from tests.dashboard.conftest import T0, WireGame, send

LEVELS = ["30 kyu", "25 kyu", "20 kyu", "15 kyu", "10 kyu", "5 kyu", "1 dan", "full"]


def _migrate(engine: sa.Engine, revision: str, down: bool = False) -> None:
    with engine.begin() as conn:
        if conn.dialect.name == "sqlite":
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        config = alembic_config()
        config.attributes["connection"] = conn
        (command.downgrade if down else command.upgrade)(config, revision)


OLD_GAMES = [  # id, black, white, result, deleted, the game_started players (kinds) or None
    ("g1", "Ana", "guest", "B+R", False, {"B": {"name": "Ana", "kind": "human"}, "W": {"name": "guest", "kind": "human"}}),
    ("g2", "ANA ", "gobuddy 15 kyu", "W+3.5", False,
     {"B": {"name": "ANA ", "kind": "human"}, "W": {"name": "gobuddy 15 kyu", "kind": "engine"}}),
    ("g3", "Ben", None, None, False, None),
    ("g4", "Cleo", "Ben", "B+1.5", True, None),
]


def test_upgrade_from_0002_backfills_players_and_keeps_the_games(tmp_path, request):
    for backend in ("sqlite", "postgresql"):
        if backend == "sqlite":
            url = f"sqlite:///{tmp_path / 'old.db'}"
        else:
            try:
                server = request.getfixturevalue("postgres")
            except pytest.skip.Exception:
                continue
            url = server.create_database("players_from_0002")
        engine = make_engine(url)
        try:
            _check_upgrade(engine)
        finally:
            engine.dispose()


def _check_upgrade(engine: sa.Engine) -> None:
    _migrate(engine, "0002")
    t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
    with engine.begin() as conn:
        for i, (gid, black, white, result, deleted, started) in enumerate(OLD_GAMES):
            conn.execute(sa.text(
                "INSERT INTO games (id, source, size, komi, rules, handicap, to_play, mode, black, white, started_at, "
                "result, deleted_at) VALUES (:id, 'board', 9, 7, 'chinese', 0, 'B', 'two_players', :b, :w, :t, :r, :d)"),
                dict(id=gid, b=black, w=white, t=t0 + timedelta(hours=i), r=result, d=t0 if deleted else None))
            conn.execute(sa.text("INSERT INTO moves (game_id, move_number, color, vertex, captures) "
                                 "VALUES (:id, 1, 'B', 'E5', '[]')"), dict(id=gid))
            if started:
                payload = sa.bindparam("p", type_=sa.JSON())
                conn.execute(sa.text("INSERT INTO game_events (game_id, seq, type, move_number, payload, ts, "
                                     "received_at) VALUES (:id, 0, 'game_started', 0, :p, :t, :t)")
                             .bindparams(payload), dict(id=gid, p={"players": started}, t=t0))
    _migrate(engine, "0003")
    with engine.connect() as conn:
        players = {k: (n, kind) for k, n, kind in conn.execute(sa.text("SELECT key, name, kind FROM players"))}
        assert players == {"ana": ("Ana", "human"), "guest": ("guest", "human"),
                           "gobuddy 15 kyu": ("gobuddy 15 kyu", "engine"), "ben": ("Ben", "human"),
                           "cleo": ("Cleo", "human")}
        ids = dict(conn.execute(sa.text("SELECT key, id FROM players")).all())
        games = {g: (b, w, r) for g, b, w, r in conn.execute(sa.text(
            "SELECT id, black_player_id, white_player_id, review_state FROM games"))}
        assert games == {"g1": (ids["ana"], ids["guest"], "pending"), "g2": (ids["ana"], ids["gobuddy 15 kyu"], "pending"),
                         "g3": (ids["ben"], None, None), "g4": (ids["cleo"], ids["ben"], None)}
        assert conn.execute(sa.text("SELECT count(*) FROM moves")).scalar() == 4
    with engine.begin() as conn:  # a review stored at 0003: 0004 sums its mistakes' kinds
        conn.execute(sa.text("INSERT INTO game_reviews (game_id, color, unit, moves, histogram, reviewed_at) "
                             "VALUES ('g1', 'B', 'points', 2, '{}', :t)"), dict(t=t0))
        for n, (category, kind) in enumerate([("blunder", "ladder"), ("mistake", "ladder"), ("good", "capture"),
                                              ("inaccuracy", None)], start=1):
            conn.execute(sa.text("INSERT INTO reviewed_moves (game_id, move_number, color, vertex, loss, category, "
                                 "kind) VALUES ('g1', :n, 'B', 'E5', 1.0, :c, :k)"), dict(n=n, c=category, k=kind))
    _migrate(engine, "head")
    assert current_revision(engine) == head_revision()
    with engine.connect() as conn:
        kinds = conn.execute(sa.select(sa.column("kinds", sa.JSON())).select_from(sa.table("game_reviews"))).scalar()
        assert kinds == {"ladder": 2}
    _migrate(engine, "0002", down=True)  # and back: the games and their moves stay
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM moves")).scalar() == 4
        assert conn.execute(sa.text("SELECT count(*) FROM game_events")).scalar() == 2
        assert "players" not in sa.inspect(conn).get_table_names()


def test_game_started_links_its_players_creating_them(store):
    g = WireGame("g-1", players=("Ana", "gobuddy 15 kyu"), mode="vs_engine")
    g.events[0]["players"]["W"]["kind"] = "engine"
    send(store, *g.events)
    send(store, *WireGame("g-2", players=(" ana", "Ben"), t0=T0 + 60_000).events)
    send(store, *WireGame("g-3", players=None, t0=T0 + 120_000).events)
    by_name = {p.name: p for p in store.players()}
    assert set(by_name) == {"Ana", "Ben", "gobuddy 15 kyu"}
    assert by_name["gobuddy 15 kyu"].kind == "engine" and by_name["gobuddy 15 kyu"].level == "15 kyu"
    assert by_name["Ana"].games == 2 and by_name["Ana"].kind == "human" and by_name["Ana"].level is None
    history = store.player_history(by_name["Ana"].id)
    assert [(x.id, x.color, x.opponent) for x in history.games] == [("g-1", "B", "gobuddy 15 kyu"), ("g-2", "B", "Ben")]


def test_a_finished_game_waits_for_review_and_imports_are_linked(store):
    g = WireGame("g-1").play("E5 C3")
    send(store, *g.events)
    assert store.games_to_review() == []
    send(store, g.end("B+R", "resign"))
    assert store.games_to_review() == ["g-1"]
    ids = store.import_sgf("(;GM[1]FF[4]SZ[9]KM[7]RU[Chinese]DT[2026-01-05]PB[Ben]PW[Dora]RE[W+2.5];B[ee];W[cc])")
    assert store.games_to_review() == [ids[0], "g-1"]  # oldest first (the SGF says 2026-01-05)
    assert {p.name for p in store.players()} == {"Ana", "Ben", "Dora"}


def _vs_engine(store: Store, game_id: str, person: str, engine: str, result: str, t: int, size: int = 9) -> None:
    g = WireGame(game_id, players=(person, engine), mode="vs_engine", t0=t, size=size)
    g.events[0]["players"]["W"]["kind"] = "engine"
    g.play("E5")
    send(store, *g.events, g.end(result, "resign"))


# One ladder per board size (the person plays black): (size, the engine's level, result,
# then Ana's level on 9x9 and on 13x13)
SIZED_STEPS = [
    (9, "gobuddy 15 kyu", "B+R", "10 kyu", "10 kyu"),   # 13x13 not played yet: it starts from 9x9's
    (13, "gobuddy 10 kyu", "W+R", "10 kyu", "15 kyu"),  # a 13x13 loss steps the 13x13 ladder only
    (13, "gobuddy 15 kyu", "W+R", "10 kyu", "20 kyu"),
    (9, "gobuddy 10 kyu", "B+R", "5 kyu", "20 kyu"),    # and a 9x9 win the 9x9 one only
    (13, "gobuddy 20 kyu", "B+R", "5 kyu", "15 kyu"),
]


def test_each_board_size_has_its_own_ladder(store, monkeypatch):
    monkeypatch.setattr("dashboard.ladder.default_levels", lambda: LEVELS)
    for i, (size, engine, result, nine, thirteen) in enumerate(SIZED_STEPS):
        _vs_engine(store, f"s-{i}", "Ana", engine, result, T0 + 60_000 * i, size=size)
        assert (store.player_level("ana"), store.player_level("ana", 13)) == (nine, thirteen), (size, engine, result)
    assert store.suggested_level("ana", LEVELS, size=13) == "15 kyu" and store.suggested_level("ana", LEVELS) == "5 kyu"
    ana = store.player_named("Ana").id
    assert [(g.id, g.size) for g in store.player_history(ana).games] == [  # the Player page leaves 13x13 results
        ("s-0", 9), ("s-1", 13), ("s-2", 13), ("s-3", 9), ("s-4", 13)]  # out of the rank estimate (9x9's levels)
    changes = store.player_history(ana).level_changes  # the Player page's: 9x9's ladder
    assert [(game, before, after) for _, game, _, before, after in changes] == [
        ("s-0", None, "10 kyu"), ("s-3", "10 kyu", "5 kyu")]
    other = store.player_history(ana).other_ladders  # 13x13's, each step from where the one before left it
    assert list(other) == [13]
    assert [(game, before, after) for _, game, _, before, after in other[13]] == [
        ("s-1", "10 kyu", "15 kyu"), ("s-2", "15 kyu", "20 kyu"), ("s-4", "20 kyu", "15 kyu")]


def test_the_ladder_steps_at_the_end_of_each_game_against_a_level(store, monkeypatch):
    monkeypatch.setattr("dashboard.ladder.default_levels", lambda: LEVELS)
    steps = [("gobuddy 15 kyu", "B+R", "10 kyu"), ("gobuddy 10 kyu", "B+R", "5 kyu"),
             ("gobuddy 5 kyu", "W+R", "10 kyu"), ("gobuddy (full)", "B+R", "full"), ("gobuddy 30 kyu", "W+R", "30 kyu"),
             ("gobuddy 20 kyu", "0", "20 kyu"), ("gobuddy", "B+R", "20 kyu")]  # no level named: no step
    for i, (engine, result, after) in enumerate(steps):
        _vs_engine(store, f"e-{i}", "Ana", engine, result, T0 + 60_000 * i)
        assert store.player_level("ana") == after, (engine, result)
    ana = store.player_named("Ana")
    assert len(store.player_history(ana.id).level_changes) == 6
    assert store.suggested_level("ana", LEVELS) == "20 kyu" and store.suggested_level("nobody", LEVELS) == "30 kyu"
    send(store, WireGame("e-0", players=("Ana", "gobuddy 15 kyu"), mode="vs_engine").play("E5").end("B+R", "resign"))
    assert store.player_level("ana") == "20 kyu"  # a redelivered end changes nothing


def _guest_games(store: Store) -> dict[str, str]:
    ids = {}
    for i, (players, board) in enumerate([(("guest", "Ben"), "board-1"), (("Ben", "guest"), "board-1"),
                                          (("guest", "guest"), "board-1"), (("guest", "Ben"), "board-2")]):
        gid = f"g-{i}"
        send(store, *WireGame(gid, board_id=board, players=players, t0=T0 + 3_600_000 * i).play("E5").events)
        ids[gid] = gid
    return ids


def test_a_game_counts_once_per_player_whatever_sides_they_held(store):
    _guest_games(store)  # guest–Ben, Ben–guest, guest–guest, guest–Ben
    send(store, *WireGame("g-gone", players=("guest", "guest"), t0=T0 + 86_400_000).play("E5").events)
    store.delete_game("g-gone")
    counts = {p.name: p.games for p in store.players()}
    assert counts == {"guest": 4, "Ben": 3}  # player | games
    history = [(g.id, g.color) for g in store.player_history(store.player_named("guest").id).games]
    assert history == [("g-0", "B"), ("g-1", "W"), ("g-2", "both"), ("g-3", "B")]  # one entry a game, in order
    assert store.player_named("guest").games == 4


def test_a_person_claims_guest_games_and_the_claim_is_recorded(store):
    _guest_games(store)
    ana = store.player_named("Ana", create=True)
    assert store.claim_games(ana.id, ["g-0", "g-1"], by="admin") == 2
    games = {x.id: x.color for x in store.player_history(ana.id).games}
    assert games == {"g-0": "B", "g-1": "W"}
    assert store.get_game("g-0").game.black == "guest"  # the record keeps its names
    with pytest.raises(PlayerError, match="both sides"):
        store.claim_games(ana.id, ["g-2"])
    with pytest.raises(PlayerError, match="did not play"):
        store.claim_games(ana.id, ["g-0"])  # no longer the guest's
    assert store.claim_games(ana.id, ["g-2"], color="W") == 1
    merges = store.merges_into(ana.id)
    assert [(m.game_id, m.color, m.from_player, m.merged_by) for m in merges][-1] == ("g-0", "B", "guest", "admin")
    t = datetime.fromtimestamp(T0 / 1000, timezone.utc)
    assert store.board_games_of("board-2", t, t + timedelta(days=1)) == ["g-3"]
    assert store.claim_board_games(ana.id, "board-2", t, t + timedelta(days=1)) == 1
    assert len(store.player_history(ana.id).games) == 4


def test_merging_a_player_moves_its_games_and_its_name(store):
    send(store, *WireGame("g-1", players=("ana k", "Ben")).play("E5").events)
    ana = store.player_named("Ana", create=True)
    anak = store.player_named("ana k")
    assert store.merge_player(anak.id, ana.id) == 1
    send(store, *WireGame("g-2", players=("Ana K", "Ben"), t0=T0 + 60_000).play("E5").events)
    assert [x.id for x in store.player_history(ana.id).games] == ["g-1", "g-2"]
    assert [p.name for p in store.players()] == ["Ana", "Ben"]


def test_a_players_games_export_as_one_sgf_collection(store):
    send(store, *WireGame("g-1").play("E5 C3 D4").events)
    send(store, *WireGame("g-2", players=("Ben", "Ana"), t0=T0 + 60_000).play("C3 E5").events)
    send(store, *WireGame("g-3", players=("Ben", "Cleo"), t0=T0 + 120_000).play("D4").events)
    archive = store.export_player_sgf(store.player_named("Ana").id)
    games = read_sgf(archive, strict=True).records
    assert len(games) == 2
    assert "PB[Ana]" in archive and "PW[Ana]" in archive and "Cleo" not in archive
