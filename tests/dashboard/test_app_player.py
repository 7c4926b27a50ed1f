"""The Player page (AppTest, real SQLite, generated history of three players): the
plots, the games list, the mistakes of the week opening Replay at their move, the
level and the rank estimate, claiming guest games, and a page without players."""

from __future__ import annotations

import sys
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Iterator

import pytest
import streamlit as st
from streamlit import config as streamlit_config
from streamlit.testing.v1 import AppTest

from dashboard.store import Store
from tests.dashboard.conftest import WireGame, send
from tests.dashboard.player_data import fill
from tests.e2e.fixtures import APP, _migrated_sqlite, app_db_url, app_store, dashboard_args, no_exceptions  # noqa: F401

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
def open_player(monkeypatch: pytest.MonkeyPatch, app_db_url: str, tmp_path) -> Iterator[Callable[..., AppTest]]:
    address = streamlit_config.get_option("server.address")
    streamlit_config.set_option("server.address", "127.0.0.1")
    entry = APP

    def open_page(query: dict[str, str] | None = None) -> AppTest:
        monkeypatch.setattr(sys, "argv", [str(entry), *dashboard_args(app_db_url)])
        at = AppTest.from_file(str(entry), default_timeout=60)
        for k, v in (query or {}).items():
            at.query_params[k] = v
        at.run()
        at.switch_page("views/player.py").run()
        no_exceptions(at)
        return at

    yield open_page
    st.cache_resource.clear()
    streamlit_config.set_option("server.address", address)


def charts(at: AppTest) -> list[Any]:
    return [e for e in at.get("plotly_chart")]


def test_the_page_shows_a_players_history(open_player, app_store: Store):
    ids = fill(app_store, 60, now=datetime.now(timezone.utc), days=60)
    at = open_player({"player": "Ben"})
    assert at.selectbox(key="player_id").value == ids["Ben"]
    assert at.title[0].value == "Player"
    assert len(charts(at)) == 4  # the ladder, quality, classes, kinds
    ladder_steps = app_store.player_history(ids["Ben"]).level_changes
    assert ladder_steps and any("steps of the ladder" in c.value for c in at.caption)
    games = at.dataframe[2].value  # first moves, results, games
    assert len(games) == app_store.player(ids["Ben"]).games
    assert set(games["colour"]) == {"black", "white"}
    results = at.dataframe[1].value
    assert "people" in list(results["opponent"])
    assert any("Estimated rank" in c.value and "interval" in c.value for c in at.caption)
    at.radio(key="player_period").set_value("10 games").run()
    no_exceptions(at)
    assert len(charts(at)) == 4


def test_a_mistake_of_the_week_opens_replay_at_its_move(open_player, app_store: Store):
    ids = fill(app_store, 30, now=datetime.now(timezone.utc), days=6)
    mistake = app_store.player_history(ids["Cleo"]).top_mistakes[0]
    at = open_player({"player": "Cleo"})
    assert any(f"move {mistake.move_number}," in m.value for m in at.markdown)
    at.button(key="player_mistake_0").click().run()
    no_exceptions(at)
    assert at.title[0].value == "Replay"
    assert at.session_state["replay_game"] == mistake.game_id
    assert at.session_state["replay_move"] == mistake.move_number - 1  # the position the mistake was played in


def test_a_player_claims_guest_games(open_player, app_store: Store):
    for i in range(3):
        send(app_store, *WireGame(f"g-{i}", players=("guest", "Ben"), t0=1767953700000 + 60_000 * i).play("E5").events)
    app_store.player_named("Ana", create=True)
    at = open_player({"player": "Ana"})
    at.toggle(key="player_claim_open").set_value(True).run()
    at.multiselect(key="player_claim_games").set_value(["g-0", "g-2"]).run()
    at.button(key="player_claim").click().run()
    no_exceptions(at)
    assert any("2 games are now Ana's" in s.value for s in at.success)
    ana = app_store.player_named("Ana")
    assert [g.id for g in app_store.player_history(ana.id).games] == ["g-0", "g-2"]


def test_no_player_yet(open_player):
    at = open_player()
    assert any("No player yet" in i.value for i in at.info)


def test_waiting_games_are_reviewed_from_the_page(open_player, app_store: Store):
    from tests.dashboard.test_reviews import finished, store_answers

    finished(app_store)
    store_answers(app_store, "g-1")
    at = open_player({"player": "Ana"})
    assert at.button(key="player_review").label == "Review 1 waiting game (stored analyses only)"
    at.button(key="player_review").click().run()
    no_exceptions(at)
    assert any("Reviewed 1 game in" in s.value for s in at.success)
    assert app_store.review_counts() == {"done": 1}
    at.run()
    assert len(charts(at)) >= 2 and at.dataframe[2].value["review"].tolist() == ["done"]


def test_the_ladder_plot_puts_each_step_at_its_level():
    from dashboard.views.player import ladder_figure

    levels = ["25 kyu", "20 kyu", "15 kyu"]
    t = datetime(2026, 11, 1, 10, 0, tzinfo=timezone.utc)
    changes = [(t, "g1", "win", None, "20 kyu"),     # step | outcome | level after
               (t, "g2", "win", "20 kyu", "15 kyu"),
               (t, "g3", "loss", "15 kyu", "20 kyu"),
               (t, "g4", "draw", "20 kyu", "30 kyu")]  # a level no longer offered: below the rest
    trace = ladder_figure(changes, levels).data[0]
    assert list(trace.y) == [1, 2, 1, -1]
    assert list(trace.marker.color) == ["#1e9600", "#1e9600", "#cc0000", "#888888"]
    assert list(ladder_figure(changes, levels).layout.yaxis.ticktext) == levels


def test_a_game_held_on_both_sides_counts_once_and_is_neither_won_nor_lost(open_player, app_store: Store):
    t0 = 1767953700000
    for gid, players, result, t in [("g-0", ("guest", "Ben"), "B+R", t0),        # guest won as black
                                    ("g-1", ("guest", "guest"), "B+R", t0 + 60_000),  # guest against guest
                                    ("g-2", ("guest", "guest"), "W+R", t0 + 120_000)]:
        g = WireGame(gid, players=players, t0=t).play("E5")
        send(app_store, *g.events, g.end(result, "resign"))
    at = open_player({"player": "guest"})
    assert at.selectbox(key="player_id").options == ["guest (3 games)", "Ben (1 game)"]
    assert at.metric[0].value == "3"
    games = at.dataframe[2].value
    assert sorted(zip(games["id"], games["colour"], games["outcome"])) == [  # game | colour | outcome
        ("g-0", "black", "win"), ("g-1", "both", ""), ("g-2", "both", "")]
    results = at.dataframe[1].value
    assert results.to_dict("records") == [{"opponent": "people", "as black (won–lost)": "1–0",
                                           "as white (won–lost)": "0–0", "win rate": "100%"}]


@pytest.mark.parametrize("words, expected", [
    ((1, "game"), "1 game"),
    ((2, "game"), "2 games"),
    ((0, "waiting game"), "0 waiting games"),
])
def test_plural(words, expected):
    from dashboard.views.player import plural

    assert plural(*words) == expected


@pytest.mark.parametrize("steps, expected", [
    (1, "The one step of the ladder:"),
    (7, "The last 7 steps of the ladder:"),
])
def test_the_ladder_caption_says_step_or_steps(steps, expected):
    from dashboard.views.player import ladder_caption

    assert ladder_caption(steps).startswith(expected)


T = datetime(2026, 11, 1, 8, 19, 23, tzinfo=timezone.utc)


@pytest.mark.parametrize("times, expected", [  # the points' times | the x range (None: plotly's own)
    ([T], ["2026-10-31 20:19:23", "2026-11-01 20:19:23"]),
    ([T, T + timedelta(hours=2)], ["2026-10-31 21:19:23", "2026-11-01 21:19:23"]),
    ([T, T + timedelta(days=3)], None),
    ([], None),
])
def test_a_chart_of_points_close_together_spans_a_day(times, expected):
    from dashboard.views.player import time_range

    assert time_range(times) == expected


def test_the_charts_of_one_game_span_a_day_not_milliseconds():
    from dashboard.store.reviews import PlayerGame
    from dashboard.views.player import ladder_figure, quality_figure

    day = ["2026-10-31 20:19:23", "2026-11-01 20:19:23"]
    ladder = ladder_figure([(T, "g1", "win", None, "20 kyu")], ["25 kyu", "20 kyu"])
    assert list(ladder.layout.xaxis.range) == day
    game = PlayerGame("g1", T, "B", "Ben", "human", None, "B+R", "win", "two_players", None, None, "done", "points",
                      30, 80.0, 0.7, 0.5)
    assert list(quality_figure([game]).layout.xaxis.range) == day


def test_a_second_board_sizes_ladder_is_plotted_below_the_first(open_player, app_store: Store, monkeypatch):
    from tests.dashboard.conftest import T0, WireGame, send

    for i, (size, engine, result) in enumerate([(9, "gobuddy 15 kyu", "B+R"), (13, "gobuddy 15 kyu", "W+R"),
                                                 (13, "gobuddy 20 kyu", "W+R")]):
        g = WireGame(f"l-{i}", players=("Cato", engine), mode="vs_engine", size=size, t0=T0 + 60_000 * i)
        g.events[0]["players"]["W"]["kind"] = "engine"
        send(app_store, *g.play("E5").events, g.end(result, "resign"))
    at = open_player({"player": "Cato"})
    headers = [h.value for h in at.subheader]
    assert headers.index("Opponent level over time") + 1 == headers.index("Opponent level over time on 13x13")
    assert len(charts(at)) == 2  # the two ladders (no game is reviewed: no other chart)
    assert at.metric[2].value == "10 kyu"  # the 9x9 ladder's level: the 13x13 losses did not move it


def test_each_board_size_gets_its_rank_from_its_own_calibrated_levels(open_player, app_store: Store, monkeypatch,
                                                                       tmp_path):
    from dashboard import rank_estimate
    from tests.dashboard.conftest import T0, WireGame, send

    thirteen = tmp_path / "LEVELS-13x13.md"  # a stand-in 13x13 report, as training.levels_report writes it
    thirteen.write_text(
        "| level | games | Elo (95% interval) | results (wins-losses[-jigo]) against | estimated rank (range) |\n"
        "|---|---|---|---|---|\n"
        "| 20 kyu | 40 | -600 (-700 to -500) | 15k 8-12 | 18 kyu (20 kyu to 16 kyu) |\n"
        "| 15 kyu | 40 | -300 (-350 to -250) | 10k 9-11 | 13 kyu (14 kyu to 12 kyu) |\n")
    shipped = rank_estimate.levels_file
    monkeypatch.setattr(rank_estimate, "levels_file", lambda n: thirteen if n == 13 else shipped(n))
    played = [(9, "gobuddy 15 kyu", "B+R")] * 5 + [(13, "gobuddy 20 kyu", "B+R"), (13, "gobuddy 20 kyu", "W+R")] * 3
    for i, (size, engine, result) in enumerate(played):
        g = WireGame(f"s-{i}", players=("Dora", engine), mode="vs_engine", size=size, t0=T0 + 60_000 * i)
        g.events[0]["players"]["W"]["kind"] = "engine"
        send(app_store, *g.play("E5").events, g.end(result, "resign"))
    at = open_player({"player": "Dora"})
    assert at.metric[3].label == "Estimated rank (9x9)"  # the main size first
    nine, other = [c.value for c in at.caption if c.value.startswith("Estimated rank")]
    assert nine.startswith("Estimated rank on 9x9 ") and "from 5 game(s)" in nine and "models/LEVELS.md" in nine
    # three wins and three losses against 20 kyu: its Elo, and the rank the 13x13 report gives it
    assert other.startswith("Estimated rank on 13x13 18 kyu ") and "Elo -600" in other
    assert "from 6 game(s)" in other and other.endswith("/LEVELS-13x13.md.")
