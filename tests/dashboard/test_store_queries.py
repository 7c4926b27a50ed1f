"""The Games page queries: filters, search, newest first, pages; rename and delete."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from dashboard.store import GameFilter, UnknownGame
from tests.dashboard.conftest import T0, WireGame, send

DAY = 86_400_000
START = datetime.fromtimestamp(T0 / 1000, timezone.utc)


@pytest.fixture
def games(store):
    """Three live games and one imported game, oldest first:

    | id   | board   | players          | started   | mode        | result |
    |------|---------|------------------|-----------|-------------|--------|
    | sgf  | -       | Sai vs Akira     | 2020-05-01| imported    | 0      |
    | g-a  | board-1 | Ana vs Ben       | T0        | two_players | B+3.5  |
    | g-b  | board-2 | Cleo vs gobuddy  | T0 + 1 day| vs_engine   | W+R    |
    | g-c  | board-1 | Ana vs Dan_100%  | T0 + 2 days| two_players| -      |
    """
    a = WireGame("g-a").play("E5 D6")
    a.end("B+3.5")
    b = WireGame("g-b", board_id="board-2", players=("Cleo", "gobuddy"), mode="vs_engine", t0=T0 + DAY).play("C3")
    b.end("W+R", "resignation")
    c = WireGame("g-c", players=("Ana", "Dan_100%"), t0=T0 + 2 * DAY).play("E5 E6 F5")
    send(store, *a.events, *b.events, *c.events)
    (sgf_id,) = store.import_sgf("(;SZ[9]PB[Sai]PW[Akira]DT[2020-05-01]GN[Honinbo final]RE[0];B[ee])")
    return {"g-a": "g-a", "g-b": "g-b", "g-c": "g-c", "sgf": sgf_id}


# (filter, expected games newest first)
FILTERS = [
    (GameFilter(), ["g-c", "g-b", "g-a", "sgf"]),
    (GameFilter(text="ana"), ["g-c", "g-a"]),
    (GameFilter(text="GOBUDDY"), ["g-b"]),
    (GameFilter(text="honinbo"), ["sgf"]),
    (GameFilter(text="g-b"), ["g-b"]),
    (GameFilter(text="_100%"), ["g-c"]),  # LIKE wildcards are matched literally
    (GameFilter(text="%"), ["g-c"]),
    (GameFilter(text="nobody"), []),
    (GameFilter(since=START), ["g-c", "g-b", "g-a"]),
    (GameFilter(since=START + timedelta(days=1), until=START + timedelta(days=2)), ["g-b"]),
    (GameFilter(until=START), ["sgf"]),
    (GameFilter(board_id="board-1"), ["g-c", "g-a"]),
    (GameFilter(result="B"), ["g-a"]),
    (GameFilter(result="W"), ["g-b"]),
    (GameFilter(result="draw"), ["sgf"]),
    (GameFilter(result="unfinished"), ["g-c"]),
    (GameFilter(result="W+R"), ["g-b"]),
    (GameFilter(mode="vs_engine"), ["g-b"]),
    (GameFilter(mode="imported"), ["sgf"]),
    (GameFilter(source="board"), ["g-c", "g-b", "g-a"]),
    (GameFilter(text="ana", board_id="board-1", result="B"), ["g-a"]),
]


def test_filters_and_search(store, games):
    """One set-up for the whole table; a mismatch shows the filter and both lists."""
    found = {}
    for filters, _ in FILTERS:
        page = store.list_games(filters)
        assert page.total == len(page.games), filters
        found[filters] = [name for g in page.games for name, i in games.items() if i == g.id]
    assert found == {filters: expected for filters, expected in FILTERS}


def test_pages_and_summaries(store, games):
    first, second = store.list_games(limit=3), store.list_games(limit=3, offset=3)
    assert [g.id for g in first.games] == ["g-c", "g-b", "g-a"] and first.total == 4
    assert [g.id for g in second.games] == [games["sgf"]] and second.total == 4
    c = first.games[0]
    assert (c.move_count, c.title, c.result, c.board_id) == (3, "Ana vs Dan_100%", None, "board-1")
    with pytest.raises(ValueError, match="limit must be >= 1"):
        store.list_games(limit=0)


def test_rename_changes_title_and_search(store, games):
    store.rename_game("g-a", "  Kitchen match  ")
    assert store.list_games(GameFilter(text="kitchen")).games[0].title == "Kitchen match"
    store.rename_game("g-a", "")
    assert store.get_game("g-a").game.title == "Ana vs Ben"
    with pytest.raises(ValueError, match="at most 200 characters, got 201"):
        store.rename_game("g-a", "x" * 201)
    with pytest.raises(UnknownGame, match="no game with id 'nope'"):
        store.rename_game("nope", "x")


def test_delete_hides_the_game_everywhere(store, games):
    store.delete_game("g-c")
    assert [g.id for g in store.list_games(GameFilter(board_id="board-1")).games] == ["g-a"]
    assert {b.id: b.games for b in store.boards()} == {"board-1": 1, "board-2": 1}
    for call in (store.get_game, store.delete_game, store.export_sgf, store.analyses_for_game):
        with pytest.raises(UnknownGame):
            call("g-c")
