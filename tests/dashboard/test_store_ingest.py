"""Applying wire game events to the store: idempotent, ordered by seq, legal moves only.

Every test runs on SQLite (WAL file) and on a real PostgreSQL (see conftest.py)."""

from __future__ import annotations

import json
import random
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor

import pytest

from dashboard.ingest import MAX_GAME_SEQ, ingest
from dashboard.store import GameFilter, Store
from dashboard.store.engine import make_engine
from gobuddy.bus.validation import SCHEMA_DIR
from tests.dashboard.conftest import T0, WireGame, moves_of, send

# A game with a capture: white's D6 takes the black stone at D5.
CAPTURE_GAME = "D5 C5 E5 D4 pass E6 D7 D6"


def snapshot(store: Store, game_id: str) -> tuple:
    detail = store.get_game(game_id)
    return detail.game, detail.moves, detail.setup


def test_a_game_is_recorded_move_by_move(store):
    game = WireGame("g1").play(CAPTURE_GAME)
    assert [o.status for o in send(store, *game.events)] == ["applied"] * 9
    detail = store.get_game("g1")
    assert [(m.number, m.color, m.vertex) for m in detail.moves] == [
        (1, "B", "D5"), (2, "W", "C5"), (3, "B", "E5"), (4, "W", "D4"),
        (5, "B", "pass"), (6, "W", "E6"), (7, "B", "D7"), (8, "W", "D6")]
    assert detail.moves[7].captures == ()  # D5 still has E5 beside it: no capture
    g = detail.game
    assert (g.board_id, g.source, g.size, g.komi, g.rules, g.mode, g.black, g.white, g.move_count) == (
        "board-1", "board", 9, 7.0, "chinese", "two_players", "Ana", "Ben", 8)
    assert g.started_at.timestamp() * 1000 == T0
    assert detail.missing_moves == ()
    assert [b.id for b in store.boards()] == ["board-1"]


def test_captures_are_recorded_as_the_rules_make_them(store):
    #   B: D5, W: C5 D4 E5 D6 surround it; the fourth white stone captures D5.
    game = WireGame("cap").play("D5 C5 A1 D4 A2 E5 A3 D6")
    send(store, *game.events)
    assert store.get_game("cap").moves[-1].captures == ("D5",)


def test_every_message_twice_with_shuffled_duplicates_changes_nothing(store):
    game = WireGame("g2").play("E5 D6 C4 F4")
    game.undo()
    game.play("E4 F5")
    game.problem("two_stones", ["A1", "B1"], "Two new stones.")
    game.cleared("two_stones")
    game.play("G5 pass pass")
    game.end("B+3.5")
    send(store, *game.events)
    expected = snapshot(store, "g2")
    rng = random.Random(7)
    redelivered = list(game.events)
    for event in game.events:  # each duplicate lands at a random later point
        redelivered.insert(rng.randrange(redelivered.index(event) + 1, len(redelivered) + 1), dict(event))
    outcomes = send(store, *redelivered)
    assert {o.status for o in outcomes} == {"duplicate"}
    assert snapshot(store, "g2") == expected
    assert moves_of(store, "g2") == game.moves()


def test_duplicates_interleaved_on_a_fresh_store_give_the_same_record(store):
    game = WireGame("g3").play("C3 G7 C7")
    game.undo()
    game.play("G3 E5")
    rng = random.Random(11)
    stream = list(game.events)
    for event in game.events:
        stream.insert(rng.randrange(stream.index(event) + 1, len(stream) + 1), dict(event))
    outcomes = send(store, *stream)
    assert sorted(o.status for o in outcomes).count("applied") == len(game.events)
    assert moves_of(store, "g3") == game.moves()


def test_a_conflicting_move_is_rejected_logged_and_nothing_changes(store, caplog):
    game = WireGame("g4").play("E5 D6 C4")
    send(store, *game.events)
    before = snapshot(store, "g4")
    other = dict(game.events[-1], seq=4, vertex="C3", ts=T0 + 9000)  # a different move 3, no undo before it
    (outcome,) = send(store, other)
    assert outcome.status == "rejected"
    assert "plays B C3 as move 3, but move 3 is B C4 (seq 3); an undo must come first" in outcome.detail
    same_seq = dict(game.events[-1], vertex="G7")  # seq 3 again with other content
    (outcome,) = send(store, same_seq)
    assert outcome.status == "rejected" and "seq 3 was already applied" in outcome.detail
    assert snapshot(store, "g4") == before
    assert [r.levelname for r in caplog.records if r.name == "dashboard.ingest"] == ["WARNING", "WARNING"]


def test_undo_applied_twice_removes_one_move(store):
    game = WireGame("g5").play("E5 D6 C4")
    undo = game.undo()
    outcomes = send(store, *game.events, undo)
    assert [o.status for o in outcomes[-2:]] == ["applied", "duplicate"]
    assert moves_of(store, "g5") == [(1, "B", "E5"), (2, "W", "D6")]
    game.play("F4")
    send(store, game.events[-1])
    assert moves_of(store, "g5") == [(1, "B", "E5"), (2, "W", "D6"), (3, "B", "F4")]


def test_a_move_redelivered_after_its_undo_does_not_come_back(store):
    game = WireGame("g6").play("E5 D6 C4")
    c4 = game.events[-1]
    game.undo()
    game.play("G7")
    send(store, *game.events)
    assert send(store, dict(c4))[0].status == "duplicate"
    assert moves_of(store, "g6")[-1] == (3, "B", "G7")


def test_moves_out_of_order_are_stored_and_the_gap_reported(store):
    game = WireGame("g7").play("E5 D6 C4 F4 G5")
    send(store, *game.events[:4])  # start, moves 1-3
    assert send(store, game.events[5])[0].status == "applied"  # move 5 before move 4
    detail = store.get_game("g7")
    assert [m.number for m in detail.moves] == [1, 2, 3, 5]
    assert detail.missing_moves == (4,)
    assert send(store, game.events[4])[0].status == "applied"
    assert moves_of(store, "g7") == game.moves()
    assert store.get_game("g7").missing_moves == ()


def test_a_conflict_after_a_gap_waits_for_the_missing_event(store):
    game = WireGame("g8").play("E5 D6 C4")
    game.undo()  # seq 4
    game.play("G7")  # seq 5: another move 3
    send(store, *game.events[:4])
    (outcome,) = send(store, game.events[5])  # move 3 G7 arrives before the undo
    assert outcome.status == "pending" and "waits for seq 4" in outcome.detail
    assert moves_of(store, "g8")[-1] == (3, "B", "C4")
    assert send(store, game.events[4])[0].status == "applied"
    assert moves_of(store, "g8") == game.moves() == [(1, "B", "E5"), (2, "W", "D6"), (3, "B", "G7")]


# (name, moves played legally first, the bad move event's changes, words of the reason)
ILLEGAL = [
    ("occupied", "E5", {"color": "W", "vertex": "E5", "captures": []}, "move 2 (W E5) is illegal: occupied"),
    ("suicide", "B1 E5 A2", {"color": "W", "vertex": "A1", "captures": []},
     "move 4 (W A1) is illegal: suicide"),
    ("off the board", "", {"color": "B", "vertex": "K10", "captures": []}, "'K10' is off a 9x9 board"),
    ("wrong captures", "", {"color": "B", "vertex": "E5", "captures": ["D5"]},
     "says it captured ['D5'], the rules capture []"),
    ("ko", "D5 E5 C4 F4 D3 E3 A1 D4 E4", {"color": "W", "vertex": "D4", "captures": ["E4"]},
     "move 10 (W D4) is illegal: ko"),
]


@pytest.mark.parametrize("name, before, bad, reason", ILLEGAL, ids=[case[0] for case in ILLEGAL])
def test_an_illegal_move_is_rejected_with_its_reason(store, name, before, bad, reason):
    game = WireGame("g9").play(before)
    send(store, *game.events)
    number = len(game.history) + 1
    event = {"type": "move", "board_id": "board-1", "game_id": "g9", "seq": len(game.events),
             "move_number": number, "ts": T0 + 99000, **bad}
    (outcome,) = send(store, event)
    assert outcome.status == "rejected"
    assert reason in outcome.detail
    assert moves_of(store, "g9") == game.moves()


def test_events_before_game_started_are_rejected(store):
    game = WireGame("g10").play("E5")
    (outcome,) = send(store, game.events[1])
    assert outcome.status == "rejected"
    assert outcome.detail == "move (seq 1) for game 'g10' came before its game_started: not recorded"
    assert store.list_games().total == 0


def test_game_end_records_result_reason_and_time(store):
    game = WireGame("g11").play("E5 D6 pass pass")
    game.end("W+7", "score")
    send(store, *game.events)
    g = store.get_game("g11").game
    assert (g.result, g.end_reason) == ("W+7", "score")
    assert g.ended_at is not None and g.ended_at.timestamp() * 1000 == game.events[-1]["ts"]


def test_a_deleted_game_stays_deleted_when_its_events_come_again(store):
    game = WireGame("g12").play("E5 D6")
    send(store, *game.events)
    store.delete_game("g12")
    assert {o.status for o in send(store, *game.events)} == {"ignored"}
    assert store.list_games().total == 0


def test_problems_are_listed_with_raise_and_clear_times(store):
    game = WireGame("g13").play("E5")
    game.problem("captures_not_removed", ["D5"], "Remove D5.")
    game.problem("unclear_reading", [], "Sensors cannot tell.")
    game.cleared("captures_not_removed")
    send(store, *game.events)
    problems = store.problems("g13")
    assert [(p.kind, p.points, p.move_number, p.cleared_at is not None) for p in problems] == [
        ("captures_not_removed", ("D5",), 1, True), ("unclear_reading", (), 1, False)]


def test_handicap_setup_and_white_first(store):
    game = WireGame("g14", setup=[("B", "C3"), ("B", "G7")], to_play="W", handicap=2).play("E5 D5")
    send(store, *game.events)
    detail = store.get_game("g14")
    assert detail.setup == (("B", "C3"), ("B", "G7"))
    assert [(m.color, m.vertex) for m in detail.moves] == [("W", "E5"), ("B", "D5")]


def test_a_second_different_game_started_is_rejected(store):
    send(store, *WireGame("g15").events)
    other = WireGame("g15", size=13).events[0]
    (outcome,) = send(store, other)
    assert outcome.status == "rejected" and "seq 0 was already applied" in outcome.detail
    assert store.get_game("g15").game.size == 9


def test_board_presence_follows_the_order_statuses_arrive_in(store):
    """A last will carries the time of the connect it was set at, older than the online
    status after it: it still says the board went offline."""
    status = {"client_id": "board-2", "role": "board", "state": "online", "reason": "connected", "ts": T0,
              "version": "0.1.0", "details": {"firmware": "1.2"}}
    will = dict(status, state="offline", reason="connection_lost", ts=T0 - 5000)
    engine = dict(status, client_id="engine-pc1-0", role="engine")
    outcomes = [ingest(store.sessions, "status", m) for m in (status, dict(status), engine, will)]
    assert [o.status for o in outcomes] == ["applied", "duplicate", "ignored", "applied"]
    (board,) = store.boards()
    assert (board.id, board.kind, board.state, board.games) == ("board-2", "physical", "offline", 0)


def test_web_games_are_marked_as_web(store):
    send(store, *WireGame("w1", board_id="web-1", mode="vs_engine").play("E5").events)
    assert store.list_games(GameFilter(source="web")).games[0].id == "w1"
    assert [(b.id, b.kind, b.games) for b in store.boards()] == [("web-1", "web", 1)]


def test_the_recorder_and_the_dashboard_write_at_the_same_time(store):
    """Two engines on one database (two processes in real life): neither fails."""
    game = WireGame("c1").play("C3 G7 C7 G3 E5 D5 E4 D4 E3 D3 E6 D6 E7 D7 F8 D8 E2 D2 E1 D1 E8 D9 F5 G5")
    send(store, game.events[0])
    dashboard = Store(make_engine(store.engine.url.render_as_string(hide_password=False)))
    try:
        with ThreadPoolExecutor(2) as pool:
            recorded = pool.submit(send, store, *game.events[1:])
            renamed = pool.submit(lambda: [dashboard.rename_game("c1", f"name {i}") for i in range(len(game.events))])
            assert {o.status for o in recorded.result()} == {"applied"}
            renamed.result()
    finally:
        dashboard.close()
    assert moves_of(store, "c1") == game.moves()
    assert store.get_game("c1").game.name == f"name {len(game.events) - 1}"


# ---- hostile numbers and values the store refuses ------------------------------------------

@pytest.mark.parametrize("seq", [10**7, 2**62, -1])
def test_a_huge_seq_is_rejected_quickly_with_bounded_memory(store, seq):
    game = WireGame("g-huge").play("E5 D6")
    send(store, *game.events)
    event = {**game.events[-1], "seq": seq, "move_number": 3, "vertex": "C3", "color": "B"}
    tracemalloc.start()
    started = time.perf_counter()
    try:
        (outcome,) = send(store, event)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert outcome.status == "rejected" and "not a seq" in outcome.detail
    assert time.perf_counter() - started < 2.0 and peak < 20 * 2**20
    assert moves_of(store, "g-huge") == game.moves()


def test_a_gap_up_to_the_largest_seq_costs_what_a_small_one_does(store):
    game = WireGame("g-gap").play("E5")
    send(store, *game.events)
    far = {**game.events[-1], "seq": MAX_GAME_SEQ, "move_number": 5, "vertex": "C3"}
    tracemalloc.start()
    try:
        (outcome,) = send(store, far)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert outcome.status in ("pending", "applied") and peak < 2 * 2**20  # set(range(100_000)) took 8 MB


def test_the_largest_seq_is_the_schemas():
    common = json.loads((SCHEMA_DIR / "common.schema.json").read_text())["$defs"]
    assert common["game_seq"]["maximum"] == MAX_GAME_SEQ


@pytest.mark.parametrize("field, value", [("handicap", 2**70), ("handicap", 2**40), ("size", 2**64)])
def test_a_value_the_database_refuses_is_rejected_and_the_next_event_is_stored(store, field, value):
    """Bypassing the schemas (which bound every integer), a value out of a column's range
    reaches the database: PostgreSQL refuses an INTEGER of 2**40 and both refuse 2**70.
    That is a rejection, not an error to retry, and the next event is stored."""
    bad = {**WireGame("g-refused").events[0], field: value}
    (outcome,) = send(store, bad)
    if outcome.status != "applied":  # SQLite stores 2**40 in its 64-bit INTEGER
        assert outcome.status == "rejected", outcome
    game = WireGame("g-after").play("E5 D6")
    assert {o.status for o in send(store, *game.events)} == {"applied"}
    assert moves_of(store, "g-after") == game.moves()


def test_a_status_from_the_future_does_not_outrank_the_ones_after_it(store):
    now = int(time.time() * 1000)
    future = {"client_id": "board-2", "role": "board", "state": "online", "reason": "connected",
              "ts": now + 5 * 60_000, "version": "0.1.0", "details": {}}
    later = dict(future, state="offline", reason="shutdown", ts=now + 1000)
    outcomes = [ingest(store.sessions, "status", m) for m in (future, later)]
    assert [o.status for o in outcomes] == ["applied", "applied"]
    assert store.boards()[0].state == "offline"


def test_a_board_clock_a_day_ahead_dates_nothing_in_the_future(store):
    """Its moves are kept (never refused for the clock), dated no later than their arrival,
    so its game does not sort first in the Games list for ever."""
    from datetime import datetime, timezone

    day = 24 * 3600 * 1000
    game = WireGame("g-ahead").play("E5 D6")
    events = [{**event, "ts": int(time.time() * 1000) + day} for event in game.events]
    assert [o.status for o in send(store, *events)] == ["applied"] * 3
    detail = store.get_game("g-ahead")
    assert len(detail.moves) == 2 and detail.game.started_at <= datetime.now(timezone.utc)
