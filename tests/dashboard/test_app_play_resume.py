"""The Play page after a reload: a fresh AppTest session is the reloaded browser. Its
player's unfinished web game comes back from the stored record (real Mosquitto, the
stand-in engine worker and the stand-in recorder), and only to its own player."""

from __future__ import annotations

from dashboard.ingest import stored_through
from dashboard.store.games import UnknownGame
from tests.dashboard.test_app_auth import sign_in, with_users
from tests.dashboard.test_app_play import play_board, wait_until
from tests.e2e.fixtures import (_migrated_sqlite, app_broker, app_db_url, app_store, no_exceptions,  # noqa: F401
                                open_app, services, stand_in_recorder, stand_in_worker)

START = "FormSubmitter:play_new-Start the game"


def play(at, vertex: str) -> None:
    at.text_input(key="play_typed_point").set_value(vertex)
    at.button(key="FormSubmitter:play_typed-Play").click().run(timeout=60)
    no_exceptions(at)


def stored(store, game) -> bool:
    """The recorder holds every event the page sent of ``game``."""
    return stored_through(store.sessions, game.game_id) == game.seq


def result(store, game_id: str) -> str | None:
    """The stored result; ``None`` while there is none (or the game is not stored yet)."""
    try:
        return store.get_game(game_id).game.result
    except UnknownGame:
        return None


def start(at) -> None:
    assert services(at).feed.wait_for(lambda f: f.connected(), 10)
    at.button(key=START).click().run(timeout=60)
    no_exceptions(at)


def test_a_reload_brings_the_game_back_where_it_was(open_app, app_store, app_broker, stand_in_worker,
                                                    stand_in_recorder):
    first = open_app("views/play.py", app_broker)
    start(first)
    play(first, "E5")
    game = first.session_state["play_game"]
    assert len(game.moves) == 2 and wait_until(lambda: stored(app_store, game))

    again = open_app("views/play.py", app_broker)  # the reload: a new session
    no_exceptions(again)
    back = again.session_state["play_game"]
    assert (back.game_id, back.board_id, back.moves, back.human, back.level, back.komi) == \
           (game.game_id, game.board_id, game.moves, game.human, game.level, game.komi)
    assert back.game.hash() == game.game.hash() and back.seq == game.seq
    assert not any(b.label == "Start the game" for b in again.get("form_submit_button")), "no new-game form"
    assert 'data-move-count="2"' in play_board(again)
    assert any("Your move" in m.value for m in again.markdown)

    next_move = next(v for v in ("D4", "F6", "C3") if v != game.moves[1][1])  # the engine's reply is seeded per game
    play(again, next_move)  # the player goes on, and the record with them
    assert len(again.session_state["play_game"].moves) == 4
    assert wait_until(lambda: app_store.get_game(game.game_id).game.move_count == 4)
    assert [(m.color, m.vertex) for m in app_store.get_game(game.game_id).moves][:3] == \
           [("B", "E5"), game.moves[1], ("B", next_move)]

    first.run(timeout=60)  # the old window lets the game go rather than write a second record
    no_exceptions(first)
    assert "play_game" not in first.session_state
    assert [w.value for w in first.warning] == ["Your game goes on in another window."]
    start(first)  # a new game in the old window: on another board than the resumed game's
    assert first.session_state["play_game"].board_id != back.board_id


def test_a_game_left_by_new_game_does_not_come_back(open_app, app_store, app_broker, stand_in_worker,
                                                   stand_in_recorder):
    first = open_app("views/play.py", app_broker)
    start(first)  # no move yet: it too is left behind as abandoned, not "playing" forever
    game = first.session_state["play_game"]
    first.button(key="play_new_game").click().run(timeout=60)
    no_exceptions(first)
    assert wait_until(lambda: result(app_store, game.game_id) == "?")
    again = open_app("views/play.py", app_broker)
    assert "play_game" not in again.session_state
    assert any(b.label == "Start the game" for b in again.get("form_submit_button"))


def test_only_its_own_player_gets_a_game_back(open_app, app_store, app_broker, stand_in_worker, stand_in_recorder):
    with_users(app_store)
    pia = sign_in(open_app("views/live.py", app_broker, "--auth", "on"), "pia")
    pia.switch_page("views/play.py").run()
    start(pia)
    play(pia, "E5")
    game = pia.session_state["play_game"]
    assert game.player_name == "pia" and wait_until(lambda: stored(app_store, game))

    ana = sign_in(open_app("views/live.py", app_broker, "--auth", "on"), "ana")  # another user, another browser
    ana.switch_page("views/play.py").run()
    no_exceptions(ana)
    assert "play_game" not in ana.session_state, "someone else's game"

    pia_again = sign_in(open_app("views/live.py", app_broker, "--auth", "on"), "pia")
    pia_again.switch_page("views/play.py").run()
    no_exceptions(pia_again)
    assert pia_again.session_state["play_game"].game_id == game.game_id


def test_a_game_left_while_the_engine_was_to_answer_gets_its_answer(open_app, app_store, app_broker, stand_in_worker,
                                                                    stand_in_recorder):
    from dashboard.views.play import publish

    first = open_app("views/play.py", app_broker)
    start(first)
    game = first.session_state["play_game"]
    assert publish(services(first).feed, game, game.play("E5"))  # stored, but the engine was never asked
    assert game.engine_to_play and wait_until(lambda: stored(app_store, game))

    again = open_app("views/play.py", app_broker)  # the reload
    no_exceptions(again)
    back = again.session_state["play_game"]
    assert back.moves[0] == ("B", "E5") and len(back.moves) == 2, "the engine asked again, and it answered"
    assert wait_until(lambda: app_store.get_game(game.game_id).game.move_count == 2)


def test_a_game_the_record_lags_behind_is_offered_to_abandon(open_app, app_store, app_broker, stand_in_worker):
    from dashboard.views.play import publish
    from tests.e2e.stand_ins import StandInRecorder

    first = open_app("views/play.py", app_broker)
    with StandInRecorder(app_broker.config("recorder"), app_store):
        start(first)
        game = first.session_state["play_game"]
        assert wait_until(lambda: stored(app_store, game))
    feed = services(first).feed
    assert publish(feed, game, game.play("E5"))  # on the bus, never stored: the recorder is away
    assert feed.wait_for(lambda f: (b := f.board(game.board_id)) is not None and b.seq == game.seq, 10)

    again = open_app("views/play.py", app_broker)  # the reload
    no_exceptions(again)
    assert "play_game" not in again.session_state, "the record lacks E5: not rebuilt from it"
    assert any("is still being stored" in i.value for i in again.info)
    again.button(key="play_abandon_unfinished").click().run(timeout=60)
    no_exceptions(again)
    assert feed.wait_for(lambda f: f.board(game.board_id).result == "?", 10), "no longer playing on Live"
    assert not again.get("button") or not any(b.key == "play_abandon_unfinished" for b in again.button)
    ended = feed.board(game.board_id)
    assert ended.status == "ended" and ended.game_id == game.game_id and ended.seq == game.seq + 1
    with StandInRecorder(app_broker.config("recorder"), app_store):  # back: the record gets the result too
        assert wait_until(lambda: result(app_store, game.game_id) == "?", 30)
