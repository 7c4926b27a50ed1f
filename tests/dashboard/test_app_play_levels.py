"""The Play page's opponent levels (AppTest, real Mosquitto, the in-process engine
worker and the stand-in recorder): the form offers the levels weakest first with the
player's ladder level preselected and the signed-in user as the player; a genmove
asks for the chosen level with the game's seed; the engine player is named with its
level, so the recorder steps the player's ladder at the end; a hint at a weak level
is one move with its reasons; only the sizes the engine plays are offered."""

from __future__ import annotations

from pathlib import Path

import pytest

from dashboard.views.play_hint import line_after, simple_hints
from dashboard.config import DEFAULT_PLAY_SIZES
from dashboard.views.play_new import SUGGESTED, rank_estimates
from dashboard.views.reasons import reasons_markdown
from gobuddy.ai.levels import level_names
from gobuddy.explain import explain_hint
from tests.dashboard.test_app_play import play_board, wait_until
from tests.e2e.fixtures import (_migrated_sqlite, app_broker, app_db_url, app_store, no_exceptions,  # noqa: F401
                                open_app, services, stand_in_recorder, stand_in_worker)

MODELS = Path(__file__).resolve().parents[2] / "models"
START = "FormSubmitter:play_new-Start the game"


def requests_sent(monkeypatch: pytest.MonkeyPatch, at) -> list:
    """The engine requests the page sends from now on (the feed's own send still runs)."""
    feed, sent = services(at).feed, []
    send = feed.request_async

    def spy(request, *args, **kwargs):
        sent.append(request)
        return send(request, *args, **kwargs)

    monkeypatch.setattr(feed, "request_async", spy)
    return sent


def test_the_sizes_offered_by_default_are_those_of_shipped_models_with_calibrated_levels():
    onnxruntime = pytest.importorskip("onnxruntime")
    for n in DEFAULT_PLAY_SIZES:
        model = MODELS / f"gobuddy-{n}x{n}.onnx"
        meta = onnxruntime.InferenceSession(str(model), providers=["CPUExecutionProvider"]).get_modelmeta()
        assert str(n) in meta.custom_metadata_map["gobuddy.board_sizes"].split(","), model
        assert rank_estimates(n), f"no calibration report of the levels on {n}x{n}"
    assert DEFAULT_PLAY_SIZES[0] == 9


def test_weak_levels_get_simple_hints():
    assert [n for n in level_names() if simple_hints(n)] == ["30 kyu", "25 kyu", "20 kyu", "15 kyu"]
    assert rank_estimates()["30 kyu"] == "24 kyu (28 kyu to 22 kyu)"  # models/LEVELS.md's table
    assert set(rank_estimates()) == set(level_names())


def test_a_game_at_the_players_level_steps_their_ladder(open_app, app_store, app_broker, stand_in_worker,
                                                         stand_in_recorder, monkeypatch):
    ana = app_store.player_named("Ana", create=True)
    app_store.set_player_level(ana.id, "15 kyu")
    at = open_app("views/play.py", app_broker)
    no_exceptions(at)
    assert services(at).feed.wait_for(lambda f: f.connected(), 10)
    level = at.selectbox(key="play_level")
    assert level.options == ["Your level (guest: 30 kyu)", *level_names()]  # a newcomer: the weakest
    assert level.value == SUGGESTED  # preselected
    assert "| 30 kyu | 24 kyu (28–22) | 26 kyu (33–23) |" in level.proto.help  # the calibrated estimates, per size (models/LEVELS*.md)
    assert at.text_input(key="play_name").value == "guest"
    assert at.selectbox(key="play_size").options == ["9x9", "13x13"] and at.selectbox(key="play_size").value == 9
    at.text_input(key="play_name").input("Ana")
    sent = requests_sent(monkeypatch, at)
    at.button(key=START).click().run(timeout=60)
    no_exceptions(at)
    game = at.session_state["play_game"]
    assert game.level == "15 kyu" and game.player_name == "Ana"  # Ana's place on the ladder
    assert any("against gobuddy at **15 kyu**" in m.value for m in at.markdown)
    at.text_input(key="play_typed_point").set_value("E5")
    at.button(key="FormSubmitter:play_typed-Play").click().run(timeout=60)
    no_exceptions(at)
    assert len(at.session_state["play_game"].moves) == 2
    genmoves = [r for r in sent if r.purpose == "genmove"]
    assert [(r.level, r.seed) for r in genmoves] == [("15 kyu", game.seed)]
    at.button(key="play_resign").click().run(timeout=60)
    no_exceptions(at)
    assert wait_until(lambda: (g := app_store.list_games().games) and g[0].result == "W+R")
    stored = app_store.get_game(game.game_id).game
    assert stored.black == "Ana" and stored.white == "gobuddy 15 kyu"
    assert wait_until(lambda: app_store.player_level("Ana") == "20 kyu")  # lost at 15 kyu: one step down
    at.button(key="play_new_game").click().run(timeout=60)
    no_exceptions(at)
    assert at.text_input(key="play_name").value == "Ana"
    assert at.selectbox(key="play_level").options[0] == "Your level (Ana: 20 kyu)"  # after the step
    at.selectbox(key="play_level").set_value("7 kyu")  # overridden by hand
    at.button(key=START).click().run(timeout=60)
    no_exceptions(at)
    assert at.session_state["play_game"].level == "7 kyu"


def test_a_weak_levels_hint_is_one_move_with_its_reasons(open_app, app_broker, stand_in_worker):
    at = open_app("views/play.py", app_broker)
    assert services(at).feed.wait_for(lambda f: f.connected(), 10)
    at.button(key=START).click().run(timeout=60)  # guest: 30 kyu
    at.text_input(key="play_typed_point").set_value("E5")
    at.button(key="FormSubmitter:play_typed-Play").click().run(timeout=60)
    at.button(key="play_hint_button").click().run(timeout=60)
    no_exceptions(at)
    game = at.session_state["play_game"]
    moves, answer, reasons = at.session_state["play_hint"]
    assert moves == len(game.moves) == 2 and len(answer["moves"]) > 1  # the engine gave more than one
    best = answer["moves"][0]["move"]
    assert not at.table  # not the top five
    assert any(m.value == f"**Hint: play {best}**" for m in at.markdown)
    board = play_board(at)
    assert board.count('class="rec"') == 1 and f'data-vertex="{best}"' in board
    expected = explain_hint(game.position, answer, line_after(answer))  # the line after it: the engine's answer
    assert expected and reasons == expected
    assert reasons_markdown(expected, f"Why {best}") in [m.value for m in at.markdown]


def test_the_signed_in_user_plays_by_name(open_app, app_store, app_broker):
    from tests.dashboard.test_app_auth import sign_in, with_users

    with_users(app_store)
    at = sign_in(open_app("views/live.py", app_broker, "--auth", "on"), "pia")
    at.switch_page("views/play.py").run()
    no_exceptions(at)
    assert at.text_input(key="play_name").value == "pia"
    assert at.selectbox(key="play_level").options[0] == "Your level (pia: 30 kyu)"
    at.button(key=START).click().run(timeout=60)
    no_exceptions(at)
    game = at.session_state["play_game"]
    assert (game.player_name, game.level) == ("pia", "30 kyu")


def test_with_two_sizes_your_level_is_the_ladder_of_the_size_chosen(open_app, app_store, app_broker):
    from tests.dashboard.conftest import T0, WireGame, send

    ana = app_store.player_named("Ana", create=True)
    app_store.set_player_level(ana.id, "10 kyu")  # 9x9
    g = WireGame("ana-13", players=("Ana", "gobuddy 15 kyu"), mode="vs_engine", size=13, t0=T0)
    g.events[0]["players"]["W"]["kind"] = "engine"
    send(app_store, *g.play("K10").events, g.end("W+R", "resign"))  # lost at 15 kyu on 13x13: 20 kyu there
    assert app_store.player_level("Ana", 13) == "20 kyu" and app_store.player_level("Ana") == "10 kyu"
    at = open_app("views/play.py", app_broker)
    no_exceptions(at)
    assert at.selectbox(key="play_size").options == ["9x9", "13x13"]
    assert "(models/LEVELS.md, models/LEVELS-13x13.md)" in at.selectbox(key="play_level").proto.help
    at.text_input(key="play_name").input("Ana")  # in the form: taken when it is submitted
    at.selectbox(key="play_size").set_value(13)
    at.button(key=START).click().run(timeout=60)
    no_exceptions(at)
    game = at.session_state["play_game"]
    assert (game.size, game.level) == (13, "20 kyu")  # the 13x13 ladder's level, not 9x9's 10 kyu
    at.button(key="play_new_game").click().run(timeout=60)  # the form again, for Ana: both ladders shown
    no_exceptions(at)
    assert at.selectbox(key="play_level").options[0] == "Your level (Ana: 10 kyu on 9x9 · 20 kyu on 13x13)"


# the sizes offered, whether a 13x13 report is there; what the level help says
HELPS = [
    ((9,), False, ["Measured on 9x9", "30 kyu: 24 kyu"], ["13x13"]),
    ((9, 13), False, ["Measured on 9x9", "On 13x13 the levels play the same way, but their ranks there are not "
                                         "measured yet."], ["Measured on 13x13"]),
    ((9, 13), True, ["Measured against GNU Go on each size (models/LEVELS.md, ", "LEVELS-13x13.md)",
                     "| level | 9x9 | 13x13 |", "| 30 kyu | 24 kyu (28–22) | 31 kyu (33–29) |"], ["not measured"]),
]


@pytest.mark.parametrize("sizes, report, said, unsaid", HELPS)
def test_the_level_help_gives_each_sizes_measured_ranks(tmp_path, monkeypatch, sizes, report, said, unsaid):
    import dashboard.views.play_new as play_new
    from dashboard.rank_estimate import LEVELS_FILE, levels_file

    thirteen = tmp_path / "LEVELS-13x13.md"
    if report:  # the 9x9 table with another rank for 30 kyu
        thirteen.write_text(LEVELS_FILE.read_text().replace("| 24 kyu (28 kyu to 22 kyu) |", "| 31 kyu (33 kyu to 29 kyu) |"))
    monkeypatch.setattr(play_new, "levels_file", lambda n: thirteen if n == 13 else levels_file(n))
    play_new.rank_estimates.clear()
    try:
        text = play_new.level_help(sizes)
    finally:
        play_new.rank_estimates.clear()
    assert all(s in text for s in said) and not any(u in text for u in unsaid), text


@pytest.mark.parametrize("cell, short", [
    ("24 kyu (28 kyu to 22 kyu)", "24 kyu (28–22)"),
    ("2 dan (1 dan to 4 dan)", "2 dan (1–4)"),
    ("1 kyu (3 kyu to 2 dan)", "1 kyu (3 kyu to 2 dan)"),  # across kyu and dan: as it is
    ("8 kyu (the anchor)", "8 kyu (the anchor)"),
    ("", ""),
])
def test_a_rank_cell_is_made_short_for_the_table(cell, short):
    from dashboard.views.play_new import _short

    assert _short(cell) == short
