"""The Games page (AppTest, real SQLite): list newest first, search and filter, rename,
delete, import SGF (all or nothing per file, errors named), SGF download offered, a
game ended by a count says so."""

from __future__ import annotations

from datetime import date

from dashboard.store import GameFilter, Store
from tests.dashboard.test_app_replay import counted_game
from tests.e2e.fixtures import _migrated_sqlite, app_db_url, app_store, no_exceptions, open_app  # noqa: F401

GAMES = {  # name: SGF; dates make the order: newest first is Cleo, Ben, Ana
    "Ana": "(;GM[1]FF[4]SZ[9]KM[7]RU[Chinese]DT[2026-01-05]PB[Ana]PW[Bob]RE[B+3.5];B[ee];W[cc];B[gc])",
    "Ben": "(;GM[1]FF[4]SZ[9]KM[7]RU[Chinese]DT[2026-01-07]PB[Ben]PW[Cleo]RE[W+R];B[ee];W[dc])",
    "Cleo": "(;GM[1]FF[4]SZ[9]KM[6.5]RU[Chinese]DT[2026-01-09]PB[Cleo]PW[Ana];B[cc])",
}
BAD = {  # file content: words the error must contain
    "(;GM[1]FF[4]SZ[9];B[ee];W[ee])": "illegal",
    "(;GM[1]FF[4]SZ[9];C[ee": "not a valid SGF",
    "(;GM[1]SZ[9];B[ee])(;GM[1]SZ[9];B[ee];W[ee])": "game 2 of 2",
}


def stored(store: Store) -> list[str]:
    return [g.black or "" for g in store.list_games(GameFilter()).games]


def with_games(store: Store) -> dict[str, str]:
    return {name: store.import_sgf(sgf)[0] for name, sgf in GAMES.items()}


def test_games_are_listed_newest_first_and_filtered(open_app, app_store):
    with_games(app_store)
    at = open_app("views/games.py")
    no_exceptions(at)
    rows = at.dataframe[0].value
    assert list(rows["black"]) == ["Cleo", "Ben", "Ana"]
    assert "3 games, newest first" in [c.value for c in at.caption]
    cases = [  # (widget, value, expected black players)
        ("games_text", "bob", ["Ana"]),
        ("games_text", "ANA", ["Cleo", "Ana"]),
        ("games_result", "white won", ["Ben"]),
        ("games_result", "unfinished", ["Cleo"]),
        ("games_since", date(2026, 1, 6), ["Cleo", "Ben"]),
        ("games_until", date(2026, 1, 7), ["Ben", "Ana"]),
    ]
    for key, value, expected in cases:
        at = open_app("views/games.py")
        widget = at.text_input(key) if key == "games_text" else (
            at.date_input(key) if key.startswith("games_s") or key.startswith("games_u") else at.selectbox(key))
        widget.set_value(value).run()
        no_exceptions(at)
        assert list(at.dataframe[0].value["black"]) == expected, (key, value)


def test_no_match_says_so(open_app, app_store):
    with_games(app_store)
    at = open_app("views/games.py")
    at.text_input("games_text").set_value("nobody").run()
    assert any("No stored game matches" in i.value for i in at.info)


def test_rename_and_delete(open_app, app_store):
    ids = with_games(app_store)
    at = open_app("views/games.py")
    at.selectbox("games_selected").set_value(ids["Ben"]).run()
    at.text_input(key=f"games_name_{ids['Ben']}").set_value("Sunday lesson")
    at.button(key="FormSubmitter:games_rename-Rename").click().run()
    no_exceptions(at)
    assert app_store.get_game(ids["Ben"]).game.name == "Sunday lesson"
    assert "Sunday lesson" in list(at.dataframe[0].value["game"])
    delete = at.button(key="games_delete")
    assert delete.disabled  # not before the box is ticked
    at.checkbox(key="games_delete_sure").check().run()
    at.button(key="games_delete").click().run()
    no_exceptions(at)
    assert stored(app_store) == ["Cleo", "Ana"]
    assert list(at.dataframe[0].value["black"]) == ["Cleo", "Ana"]


def test_a_good_sgf_file_is_imported(open_app, app_store):
    at = open_app("views/games.py")
    at.file_uploader(key="games_upload").set_value(("lesson.sgf", GAMES["Ana"].encode(), "application/x-go-sgf"))
    at.run()
    at.button(key="games_import").click().run()
    no_exceptions(at)
    assert [s.value for s in at.success] == ["lesson.sgf: 1 game imported."]
    assert stored(app_store) == ["Ana"]
    assert at.button(key="games_replay").label == "Open in Replay"
    assert at.get("download_button")[0].label == "Download SGF"


def test_a_file_that_breaks_the_standard_is_imported_with_the_repairs_shown(open_app, app_store):
    at = open_app("views/games.py")
    content = "Game of Tuesday, saved by a mail client\n" + GAMES["Ana"] + "\n-- \nAna"
    at.file_uploader(key="games_upload").set_value(("mail.sgf", content.encode(), "application/x-go-sgf"))
    at.run()
    at.button(key="games_import").click().run()
    no_exceptions(at)
    assert [s.value for s in at.success] == ["mail.sgf: 1 game imported."]
    (warning,) = [w.value for w in at.warning]
    assert warning.startswith("mail.sgf: repaired while reading")
    assert "line 1, column 1: text before the first game tree ('Game of Tuesday, saved by a mail client'): skipped" in warning
    assert "text after the last game tree ('-- Ana'): skipped" in warning
    assert stored(app_store) == ["Ana"]


def test_bad_sgf_files_store_nothing_and_say_why(open_app, app_store):
    for content, words in BAD.items():
        at = open_app("views/games.py")
        at.file_uploader(key="games_upload").set_value(
            [("broken.sgf", content.encode(), "application/x-go-sgf"),
             ("good.sgf", GAMES["Cleo"].encode(), "application/x-go-sgf")])
        at.run()
        at.button(key="games_import").click().run()
        no_exceptions(at)
        errors = [e.value for e in at.error]
        assert len(errors) == 1 and errors[0].startswith("broken.sgf: ") and words in errors[0], errors
        assert "Nothing from this file was stored" in errors[0]
        assert [s.value for s in at.success] == ["good.sgf: 1 game imported."]
        assert stored(app_store) == ["Cleo"], content  # only the good file's game


def test_open_in_replay_switches_page(open_app, app_store):
    ids = with_games(app_store)
    at = open_app("views/games.py")
    at.selectbox("games_selected").set_value(ids["Ana"]).run()
    at.button(key="games_replay").click().run()
    no_exceptions(at)
    assert at.title[0].value == "Replay"
    assert at.selectbox(key="replay_game").value == ids["Ana"]


def test_a_game_ended_by_a_count_says_so(open_app, app_store):
    ids = with_games(app_store) | {"counted": counted_game(app_store)}
    at = open_app("views/games.py")
    cases = [  # (game, what its summary says after the result)
        ("counted", " · result W+7 · counted, 1 stone dead"),  # the count named C7 dead
        ("Ana", " · result B+3.5"),  # a result with no count named
    ]
    for name, said in cases:
        at.selectbox("games_selected").set_value(ids[name]).run()
        no_exceptions(at)
        (summary,) = [c.value for c in at.caption if c.value.startswith(ids[name])]
        assert summary.endswith(said), name


def test_the_list_says_how_each_game_ended(open_app, app_store):
    with_games(app_store)
    app_store.import_sgf("(;GM[1]FF[4]SZ[9]KM[7]DT[2026-01-02]PB[Dan]PW[Eve]RE[0];B[ee];W[cc])")
    counted_game(app_store)
    at = open_app("views/games.py")
    no_exceptions(at)
    rows = at.dataframe[0].value
    ended = dict(zip(rows["black"].fillna("") + ":" + rows["result"], rows["ended"]))
    assert ended == {  # black:result -> how it ended
        "Cleo:": "",  # still going on
        "Ben:W+R": "resigned",  # an SGF's RE
        "Ana:B+3.5": "counted",  # counted, no dead stones named
        "Dan:0": "counted",  # an SGF draw
        "Ana:W+7": "counted, 1 dead",  # a game of the Play page: the count named C7 dead
    }
