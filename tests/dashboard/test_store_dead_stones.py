"""The stones the final count lifted, stored and written: ``game_ended``'s ``dead`` lands
in ``games.dead`` (migration 0006, a nullable column added in place: the games and
their moves stay, up and down); the SGF export writes the count as territory marks
(``TB``/``TW``, dead stones inside the other colour's territory) and import reads the
dead stones back from them."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from dashboard.store.engine import make_engine
from dashboard.store.models import Game
from dashboard.store.sgf_territory import dead_from_marks, territory_marks
from gobuddy.go.coords import from_gtp, to_sgf
from gobuddy.go.position import Position
from gobuddy.go.sgf import parse_sgf
from tests.dashboard.conftest import WireGame, send
from tests.dashboard.test_store_players import _migrate

# Black walls off the left, white the right; a white stone at C7 lives in black's area
# until the count calls it dead. Column E is dame (touched by both).
PLAYED = "D1 F1 D2 F2 D3 F3 D4 F4 D5 F5 D6 F6 D7 F7 D8 F8 D9 F9 pass C7 pass pass"
DEAD = ["C7"]


def stored_dead(store, game_id: str):
    with store.session() as s:
        return s.get(Game, game_id).dead


def test_game_ended_stores_the_dead_stones(store):
    g = WireGame("d1").play(PLAYED)
    assert send(store, *g.events, g.end("B+0.5") | {"dead": DEAD})[-1].status == "applied"
    assert stored_dead(store, "d1") == DEAD
    g2 = WireGame("d2", t0=g.t0 + 60_000).play("E5 C3")
    send(store, *g2.events, g2.end("B+R", "resignation"))
    assert stored_dead(store, "d2") is None  # no count named: nothing stored


def test_a_dead_stone_off_the_board_is_refused(store):
    g = WireGame("d3").play("E5 C3 pass pass")
    outcome = send(store, *g.events, g.end("B+0.5") | {"dead": ["T19"]})[-1]
    assert outcome.status == "rejected" and "T19" in outcome.detail
    assert store.get_game("d3").game.result is None


def test_territory_marks_of_a_count_and_back() -> None:
    pos = Position(9)
    for v in PLAYED.split():
        pos.play(pos.pass_point if v == "pass" else from_gtp(v, 9))
    marks = territory_marks(pos, DEAD)
    black = {to_sgf(from_gtp(f"{c}{r}", 9), 9) for c in "ABC" for r in range(1, 10)}
    white = {to_sgf(from_gtp(f"{c}{r}", 9), 9) for c in "GHJ" for r in range(1, 10)}
    assert set(marks["TB"]) == black  # C7, the dead white stone, inside
    assert set(marks["TW"]) == white
    assert dead_from_marks(pos, marks) == DEAD
    assert dead_from_marks(pos, territory_marks(pos, [])) == []  # all alive: C7 is dame then
    assert dead_from_marks(pos, {"TB": ["aa:cc"]}) == DEAD  # a compressed list (A9..C7) holds C7
    assert dead_from_marks(pos, {"C": ["no marks"]}) is None


def test_sgf_export_marks_the_count_and_import_keeps_it(store):
    g = WireGame("d4").play(PLAYED)
    send(store, *g.events, g.end("B+0.5") | {"dead": DEAD})
    text = store.export_sgf("d4", with_analysis=False)
    (record,) = parse_sgf(text)
    last = record.main_line()[-1]
    assert "TB" in last.properties and "TW" in last.properties
    (imported,) = store.import_sgf(text)
    assert stored_dead(store, imported) == DEAD
    assert store.export_sgf(imported, with_analysis=False).count("TB[") == 1
    g2 = WireGame("d5", t0=g.t0 + 60_000).play("E5 C3")
    send(store, *g2.events)
    assert "TB" not in store.export_sgf("d5", with_analysis=False)  # no count, no marks


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_migration_0006_adds_the_column_in_place(tmp_path, request, backend):
    if backend == "sqlite":
        url = f"sqlite:///{tmp_path / 'old.db'}"
    else:
        url = request.getfixturevalue("postgres").create_database("dead_from_0005")
    engine = make_engine(url)
    try:
        _migrate(engine, "0005")
        with engine.begin() as conn:
            conn.execute(sa.text(
                "INSERT INTO games (id, source, size, komi, rules, handicap, to_play, mode, started_at, result) "
                "VALUES ('g1', 'board', 9, 7, 'chinese', 0, 'B', 'two_players', '2026-01-01', 'B+3.5')"))
            conn.execute(sa.text("INSERT INTO moves (game_id, move_number, color, vertex, captures) "
                                 "VALUES ('g1', 1, 'B', 'E5', '[]')"))
        _migrate(engine, "0006")
        with engine.begin() as conn:
            assert conn.execute(sa.text("SELECT dead FROM games")).scalar() is None
            assert conn.execute(sa.text("SELECT count(*) FROM moves")).scalar() == 1
            conn.execute(sa.text("UPDATE games SET dead = '[\"C7\"]'"))
        _migrate(engine, "0005", down=True)
        with engine.connect() as conn:
            assert "dead" not in {c["name"] for c in sa.inspect(conn).get_columns("games")}
            assert conn.execute(sa.text("SELECT count(*) FROM moves")).scalar() == 1
            assert conn.execute(sa.text("SELECT result FROM games")).scalar() == "B+3.5"
    finally:
        engine.dispose()
