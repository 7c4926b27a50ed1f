"""Sign-in on the dashboard (AppTest, real SQLite): when it is asked for (``--auth`` and
the address Streamlit serves on), the sign-in form and the first-user help, wrong
passwords and the lockout, what each role is offered, and the server-side refusal of a
write whose button was still on the screen after the user lost the right."""

from __future__ import annotations

import pytest

from dashboard.access import AuthRefused, allowed, is_loopback, sign_in_required
from dashboard.store import Store
from dashboard.store.users import (MAX_FAILURES, add_user, authenticate, list_users, remove_user, set_password,
                                   set_role)
from tests.e2e.fixtures import (_migrated_sqlite, app_broker, app_db_url, app_store, no_exceptions,  # noqa: F401
                                open_app, serving_on)

SGF = "(;GM[1]FF[4]SZ[9]KM[7]RU[Chinese]DT[2026-01-05]PB[Ana]PW[Ben];B[ee];W[cc];B[gc])"
PASSWORDS = {"ana": "ana-password", "pia": "pia-password", "vic": "vic-password"}
ROLES = {"ana": "admin", "pia": "player", "vic": "viewer"}

MODES = [  # (--auth, server.address, sign-in asked, or None: refused)
    ("auto", "127.0.0.1", False),
    ("auto", "127.0.0.2", False),
    ("auto", "::1", False),
    ("auto", "[::1]", False),
    ("auto", "::ffff:127.0.0.1", False),
    ("auto", "localhost", False),
    ("auto", "0.0.0.0", True),
    ("auto", "::", True),
    ("auto", "192.168.1.20", True),
    ("auto", "gobuddy.local", True),
    ("auto", None, True),  # unset: Streamlit listens on every interface
    ("auto", "", True),
    ("on", "127.0.0.1", True),
    ("on", "0.0.0.0", True),
    ("off", "127.0.0.1", False),
    ("off", "localhost", False),
    ("off", "0.0.0.0", None),
    ("off", "10.0.0.5", None),
    ("off", None, None),
]


@pytest.mark.parametrize("mode, address, asked", MODES)
def test_when_sign_in_is_asked(mode, address, asked):
    if asked is None:
        with pytest.raises(AuthRefused, match="only allowed on a loopback address"):
            sign_in_required(mode, address)
    else:
        assert sign_in_required(mode, address) is asked
    if mode == "auto":
        assert is_loopback(address) is not asked


ALLOWED = [  # (role, actions allowed)
    ("viewer", {"view"}),
    ("player", {"view", "play", "analyse", "import", "download", "teach"}),
    ("admin", {"view", "play", "analyse", "import", "download", "teach", "rename", "delete", "recalibrate"}),
    ("root", set()),
    (None, set()),
]


@pytest.mark.parametrize("role, actions", ALLOWED)
def test_what_each_role_may_do(role, actions):
    every = {"view", "play", "analyse", "import", "download", "teach", "rename", "delete", "recalibrate",
             "drop_tables"}
    assert {a for a in every if allowed(role, a)} == actions


def with_users(store: Store) -> str:
    for name, role in ROLES.items():
        add_user(store, name, PASSWORDS[name], role, rounds=4)
    return store.import_sgf(SGF)[0]


def sign_in(at, name: str, password: str | None = None):
    at.text_input(key="login_name").input(name)
    at.text_input(key="login_password").input(PASSWORDS.get(name, "") if password is None else password)
    at.button(key="FormSubmitter:login-Sign in").click().run()
    no_exceptions(at)
    return at


def signed_in_as(at) -> str | None:
    lines = [c.value for c in at.sidebar.caption if c.value.startswith("Signed in as")]
    return lines[0] if lines else None


def games_page(open_app, name: str):
    at = sign_in(open_app("views/live.py", None, "--auth", "on"), name)
    at.switch_page("views/games.py").run()
    no_exceptions(at)
    assert at.title[0].value == "Games"
    return at


def test_loopback_with_auth_auto_asks_nobody(open_app, app_store):
    with_users(app_store)
    at = open_app("views/games.py")
    no_exceptions(at)
    assert [t.value for t in at.title] == ["Games"]
    assert all(t.key != "login_name" for t in at.text_input)
    assert "Sign-in: off (serving on loopback only)" in [c.value for c in at.sidebar.caption]
    assert at.button(key="games_delete") is not None and at.get("download_button")


def test_auth_off_beyond_loopback_serves_no_page(open_app, serving_on, app_store):
    with_users(app_store)
    serving_on("0.0.0.0")
    at = open_app("views/live.py", None, "--auth", "off")
    no_exceptions(at)
    assert len(at.error) == 1 and at.error[0].value.startswith("The dashboard refuses to serve pages: --auth off")
    assert "0.0.0.0" in at.error[0].value
    assert not at.title and not at.text_input


def test_beyond_loopback_auth_auto_asks_for_a_sign_in(open_app, serving_on, app_store):
    with_users(app_store)
    serving_on("0.0.0.0")
    at = open_app("views/live.py")
    no_exceptions(at)
    assert [t.value for t in at.title] == ["Sign in"]
    assert at.text_input(key="login_password").proto.type == at.text_input(key="login_password").proto.PASSWORD
    assert signed_in_as(at) is None


def test_with_no_user_the_page_says_how_to_make_one(open_app, app_store):
    at = open_app("views/live.py", None, "--auth", "on")
    no_exceptions(at)
    assert at.title[0].value == "Sign in" and not at.text_input  # no form nobody could pass
    assert "no user exists yet" in at.warning[0].value
    assert at.code[0].value.startswith("python -m dashboard.users add NAME --role admin --db 'sqlite:///")


def test_wrong_passwords_are_refused_then_the_name_is_locked(open_app, app_store):
    with_users(app_store)
    at = open_app("views/live.py", None, "--auth", "on")
    for name, password in [("ana", "not-her-password"), ("nobody", "whatever-pass"), ("x y", "whatever-pass")]:
        sign_in(at, name, password)
        assert [e.value for e in at.error] == ["Wrong user name or password."]
        assert at.title[0].value == "Sign in" and signed_in_as(at) is None
    for _ in range(MAX_FAILURES - 1):
        sign_in(at, "ana", "not-her-password")
    assert at.error[0].value.startswith("Too many wrong passwords for this name: try again in")
    sign_in(at, "ana")  # the right password, while locked
    assert at.error[0].value.startswith("Too many wrong passwords") and signed_in_as(at) is None


def test_a_viewer_sees_the_pages_but_is_offered_no_write(open_app, app_store):
    with_users(app_store)
    at = games_page(open_app, "vic")
    assert signed_in_as(at) == "Signed in as **vic** · viewer"
    assert list(at.dataframe[0].value["black"]) == ["Ana"]
    captions = [c.value for c in at.caption]
    assert "Renaming and deleting games needs the admin role." in captions
    assert "Downloading SGF needs the player role." in captions
    assert not at.get("download_button") and not at.get("file_uploader")
    assert all(b.key not in ("games_delete", "FormSubmitter:games_rename-Rename", "games_import") for b in at.button)
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page("views/play.py")  # Play is not in a viewer's navigation
    at.switch_page("views/replay.py").run()
    no_exceptions(at)
    assert at.title[0].value == "Replay"


def test_a_player_may_import_and_download_but_not_rename_or_delete(open_app, app_store):
    with_users(app_store)
    at = games_page(open_app, "pia")
    assert at.get("download_button")[0].label == "Download SGF"
    assert "Renaming and deleting games needs the admin role." in [c.value for c in at.caption]
    at.file_uploader(key="games_upload").set_value(("more.sgf", SGF.replace("B[gc]", "B[gg]").encode(),
                                                    "application/x-go-sgf"))
    at.run()
    at.button(key="games_import").click().run()
    no_exceptions(at)
    assert [s.value for s in at.success] == ["more.sgf: 1 game imported."]
    assert app_store.list_games().total == 2


def test_an_admin_renames_and_deletes(open_app, app_store):
    game_id = with_users(app_store)
    at = games_page(open_app, "ana")
    assert signed_in_as(at) == "Signed in as **ana** · admin"
    at.text_input(key=f"games_name_{game_id}").set_value("Sunday lesson")
    at.button(key="FormSubmitter:games_rename-Rename").click().run()
    no_exceptions(at)
    assert app_store.get_game(game_id).game.name == "Sunday lesson"
    at.checkbox(key="games_delete_sure").check().run()
    at.button(key="games_delete").click().run()
    no_exceptions(at)
    assert app_store.list_games().total == 0


def test_a_demoted_admin_is_refused_on_the_server_though_the_buttons_were_shown(open_app, app_store):
    game_id = with_users(app_store)
    at = games_page(open_app, "ana")
    add_user(app_store, "root", "root-password", "admin", rounds=4)
    at.text_input(key=f"games_name_{game_id}").set_value("Renamed by a viewer")
    at.checkbox(key="games_delete_sure").check().run()  # both controls are on the screen now
    set_role(app_store, "ana", "viewer")  # meanwhile, on the server
    at.button(key="FormSubmitter:games_rename-Rename").click().run()
    no_exceptions(at)
    assert [e.value for e in at.error] == [
        "Only a user with the admin role can rename games; you are signed in as ana (viewer)."]
    assert app_store.get_game(game_id).game.name is None
    assert signed_in_as(at) == "Signed in as **ana** · viewer"
    set_role(app_store, "ana", "admin")
    at.run()
    at.checkbox(key="games_delete_sure").check().run()
    set_role(app_store, "ana", "viewer")
    at.button(key="games_delete").click().run()
    no_exceptions(at)
    assert [e.value for e in at.error] == [
        "Only a user with the admin role can delete games; you are signed in as ana (viewer)."]
    assert app_store.list_games().total == 1


def test_a_removed_user_or_a_new_password_signs_the_session_out(open_app, app_store):
    with_users(app_store)
    at = games_page(open_app, "pia")
    set_password(app_store, "pia", "a-new-password", rounds=4)
    at.run()
    assert at.title[0].value == "Sign in"
    assert "You were signed out" in at.info[0].value
    sign_in(at, "pia", "a-new-password")
    assert signed_in_as(at) == "Signed in as **pia** · player"
    remove_user(app_store, "pia")
    at.run()
    assert at.title[0].value == "Sign in" and signed_in_as(at) is None


def test_sign_out(open_app, app_store):
    with_users(app_store)
    at = games_page(open_app, "vic")
    at.sidebar.button(key="logout").click().run()
    no_exceptions(at)
    assert at.title[0].value == "Sign in" and signed_in_as(at) is None
    assert [i.value for i in at.info] == ["You are signed out."]


def test_a_viewer_gets_no_engine_answer_on_replay(open_app, app_broker, app_store):
    """The analysis buttons are disabled for a viewer, and Streamlit drops clicks on a
    disabled widget (even forged ones); the page's own check stands behind that."""
    with_users(app_store)
    at = sign_in(open_app("views/live.py", app_broker, "--auth", "on"), "pia")
    at.switch_page("views/replay.py").run()
    no_exceptions(at)
    assert not at.button(key="replay_ask").disabled
    at.session_state["replay_try_open"] = True  # the box opened, as a click does (drawn when open)
    at.run()
    assert at.expander[-1].label == "Try another move here" and at.expander[-1].text_input
    set_role(app_store, "pia", "viewer")  # the enabled button is still on the screen
    at.button(key="replay_ask").click().run()
    no_exceptions(at)
    assert not app_store.analyses_for_game(app_store.list_games().games[0].id)
    assert "Asking the engine needs the player role: only stored analyses are shown." in [c.value for c in at.caption]
    assert at.button(key="replay_ask").disabled and at.button(key="replay_all").disabled
    assert not at.expander[-1].text_input  # no "try another move" board either


def test_a_demoted_player_gets_no_play_page(open_app, app_broker, app_store):
    with_users(app_store)
    at = sign_in(open_app("views/live.py", app_broker, "--auth", "on"), "pia")
    at.switch_page("views/play.py").run()
    no_exceptions(at)
    assert at.title[0].value == "Play against the engine"
    assert at.button(key="FormSubmitter:play_new-Start the game")
    set_role(app_store, "pia", "viewer")
    at.button(key="FormSubmitter:play_new-Start the game").click().run()
    no_exceptions(at)
    assert at.title[0].value != "Play against the engine"
    assert "play_game" not in at.session_state


def test_an_admin_manages_users_on_the_users_page(open_app, app_store):
    with_users(app_store)
    at = sign_in(open_app("views/live.py", None, "--auth", "on"), "ana")
    at.switch_page("views/users.py").run()
    no_exceptions(at)
    assert list(at.dataframe[0].value["name"]) == ["ana", "pia", "vic"]

    def add(name: str, role: str, password: str, again: str) -> None:
        at.text_input(key="users_add_name").input(name)
        at.selectbox(key="users_add_role").set_value(role)
        at.text_input(key="users_add_password").input(password)
        at.text_input(key="users_add_again").input(again)
        at.button(key="FormSubmitter:users_add-Add user").click().run()
        no_exceptions(at)

    add("Nia", "player", "nia-password", "nia-passw0rd")
    assert [e.value for e in at.error] == ["The two passwords differ."]
    add("nia", "player", "short", "short")
    assert "too short" in at.error[0].value
    add("Nia", "player", "nia-password", "nia-password")
    assert [s.value for s in at.success] == ["Added nia (player)."]
    at.selectbox(key="users_role_name").set_value("ana")
    at.selectbox(key="users_role_role").set_value("viewer")
    at.button(key="FormSubmitter:users_role-Change role").click().run()
    assert at.error[0].value.startswith("'ana' is the only admin")
    at.selectbox(key="users_remove_name").set_value("vic")
    at.checkbox(key="users_remove_sure").check()
    at.button(key="FormSubmitter:users_remove-Remove user").click().run()
    no_exceptions(at)
    assert [s.value for s in at.success] == ["Removed vic."]
    assert list(at.dataframe[0].value["name"]) == ["ana", "nia", "pia"]
    assert [(u.name, u.role) for u in list_users(app_store)] == [("ana", "admin"), ("nia", "player"), ("pia", "player")]
    assert authenticate(app_store, "nia", "nia-password").ok


def test_only_admins_get_the_users_page(open_app, app_store):
    with_users(app_store)
    at = sign_in(open_app("views/live.py", None, "--auth", "on"), "pia")
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page("views/users.py")
