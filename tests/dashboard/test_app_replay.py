"""The Replay page (AppTest, real SQLite; real Mosquitto and the engine worker where the
engine is asked): stepping, stored analyses on the board, the move list and the
mistakes a click away, mistake marks on the stones, the graph, the engine's line on
the board, variations that leave the stored game alone, ownership, thinking longer,
analysing a whole game over the bus, which game the page opens on, and the stones the
final count lifted."""

from __future__ import annotations

import json
import re

import pytest

from dashboard.store import Store
from dashboard.views.replay_report import count_words
from tests.dashboard.conftest import WireGame, send
from tests.e2e.fixtures import (_migrated_sqlite, app_broker, app_db_url, app_store,  # noqa: F401
                                no_exceptions, open_app, stand_in_worker)

SGF = "(;GM[1]FF[4]SZ[9]KM[7]RU[Chinese]DT[2026-01-05]PB[Ana]PW[Ben];B[ee];W[cc];B[aa];W[gg];B[dd])"
MOVES = ["E5", "C7", "A9", "G3", "D6"]
# black's win rate after each move count, and the engine's first choice there
WINRATES = [0.55, 0.56, 0.50, 0.20, 0.25, 0.24]
BEST = ["E5", "C7", "D4", "G3", "F4", "E4"]


def answer(n: int, to_play: str, key_hash: str) -> dict:
    wr = WINRATES[n] if to_play == "B" else 1 - WINRATES[n]
    moves = [{"move": v, "order": i, "visits": 50 - 10 * i, "winrate": wr - 0.01 * i,
              "winrate_black": WINRATES[n] - (0.01 * i if to_play == "B" else -0.01 * i), "score_lead": None,
              "prior": 0.2, "pv": [v, "J9", "H9"] if i == 0 else [v]}
             for i, v in enumerate([BEST[n], "B2", "H8", "J1", "A1"])]
    return {"id": f"t-{n}", "board_id": None, "position_key": {"move_count": n, "hash": key_hash},
            "to_play": to_play, "root": {"visits": 100, "winrate": wr, "winrate_black": WINRATES[n],
                                          "score_lead": None, "value": 0.0},
            "moves": moves, "ownership": None, "is_during_search": False, "model": "test-model",
            "elapsed_ms": 5.0, "worker": "test", "ts": 1}


def stored_game(store: Store, analysed: bool = True, visits: int = 100, sgf: str = SGF) -> str:
    game_id = store.import_sgf(sgf)[0]
    if analysed:
        for n, key in store.position_keys(game_id).items():
            reply = answer(n, key.to_play, key.hash)
            reply["root"]["visits"] = visits
            store.save_analysis(key, "test-model", reply, move_count=n, game_id=game_id)
    return game_id


def open_part(at, tab: str | None = None, tries: bool = False):
    """Open a tab of the page ("Mistakes", "Report") or the "Try another move here" box,
    as a click does (their content is drawn only when open), and run the page."""
    if tab is not None:
        at.session_state["replay_tabs"] = tab
    if tries:
        at.session_state["replay_try_open"] = True
    return at.run()


def views(at) -> dict[str, dict]:
    """The data of the board's component views on the page (``replay_stepper``): view -> data."""
    return {d["view"]: d for d in (json.loads(c.proto.json) for c in at.get("bidi_component"))}


def boards(at) -> list[str]:
    """The server's drawing of the position shown (the board's component shows it there)."""
    return [views(at)["board"]["svg"]]


def go_to(at, n: int):
    """The move shown set on the server, as the browser's board reports a step (or
    another page sets it), and the page run."""
    at.session_state["replay_move"] = n
    return at.run()


def shown_move(at) -> int:
    svg = boards(at)[0]
    return int(svg.split('data-move-count="')[1].split('"')[0])


def test_the_whole_game_goes_to_the_browser_once_and_the_server_follows(open_app, app_store):
    """Stepping happens in the browser (tests/e2e/test_replay_browser.py): the page sends
    every position of the game to the board once; the server's views follow the move
    the browser reports."""
    game_id = stored_game(app_store)
    at = open_app("views/replay.py")
    no_exceptions(at)
    assert at.selectbox(key="replay_game").value == game_id
    board = views(at)["board"]
    assert board["game"] == game_id and board["at"] == 0 and board["jump"]["n"] == 0 and board["last"] == 5
    frames = board["frames"]
    assert frames["last"] == 5 and len(frames["stones"]) == 6 and frames["lastMove"] == [None, *MOVES]
    assert frames["stones"][3].count("x") == 2 and frames["stones"][3].count("o") == 1
    assert [r[0] for r in frames["recs"][2]] == [BEST[2], "B2", "H8", "J1", "A1"]
    assert shown_move(at) == 0 and boards(at)[0].count('class="rec"') == 5
    first_jump = board["jump"]["id"]
    for n in (1, 2, 5, 3):
        go_to(at, n)
        no_exceptions(at)
        assert shown_move(at) == n
        assert any(m.value.startswith(f"Move {n} of 5") for m in at.markdown)  # the panel
    svg = boards(at)[0]
    assert svg.count('class="stone') == 3 and 'class="last-move" data-vertex="A9"' in svg
    assert any(m.value.startswith("Next: move 4, white G3") for m in at.markdown)
    assert views(at)["board"]["jump"]["id"] != first_jump  # set here, not by the browser: the board goes there
    assert views(at)["ruler"]["jump"]["n"] == 3


def test_mistakes_are_ordered_by_loss_and_a_click_away(open_app, app_store):
    stored_game(app_store)
    at = open_app("views/replay.py")
    assert "moves" not in views(at)  # the tab open first is the mistakes': the move list is drawn when chosen
    labels = [b.label for b in at.button if b.key and b.key.startswith("replay_mistake_")]
    # black's A9: 50% -> 20%; white's G3 lost 5 (doubtful) and black's D6 1 (okay): not listed
    assert labels == ["Move 3 · Black A9 · −30.0 % win rate · blunder (best D4)"]
    at.button(key="replay_mistake_3").click().run()
    no_exceptions(at)
    assert shown_move(at) == 2
    assert any("move 3, black A9: lost 30.0 % win rate (blunder), the engine preferred D4" in m.value
               for m in at.markdown)
    open_part(at, "Report")
    (report,) = [m.value for m in at.markdown if m.value.startswith("|  | Black | White |")]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in report.splitlines()]
    # a player a column (a column a figure, eleven, ran past the page's edge beside the board)
    assert rows[0] == ["", "Black", "White"] and rows[2] == ["moves judged", "3", "2"] and len(rows) == 2 + 10
    assert at.get("plotly_chart")  # the win-rate graph


def test_a_game_is_analysed_over_the_bus(open_app, app_store, app_broker, stand_in_worker):
    game_id = stored_game(app_store, analysed=False)
    at = open_app("views/replay.py", app_broker)
    no_exceptions(at)
    assert boards(at)[0].count('class="rec"') == 0
    assert at.button(key="replay_all").label == "Analyse the game (6 left)"
    at.button(key="replay_ask").click().run(timeout=60)
    no_exceptions(at)
    stored = app_store.analyses_for_game(game_id)
    assert sorted(stored) == [0]
    assert boards(at)[0].count('class="rec"') == min(5, len(stored[0].answer["moves"])) > 0
    at.button(key="replay_all").click().run(timeout=120)
    no_exceptions(at)
    assert sorted(app_store.analyses_for_game(game_id)) == [0, 1, 2, 3, 4, 5]
    assert any(s.value.startswith("Analysed 5 position(s)") for s in at.success)
    assert at.button(key="replay_all").disabled


def board_layout(at) -> list[str]:
    """The elements of the page above the (first) board, in page order: what could push
    it down (the sidebar and the right column are not above it)."""
    out = []

    def walk(node) -> bool:
        if getattr(node, "type", "") == "bidi_component":  # the board's
            return True
        children = getattr(node, "children", None)
        if isinstance(children, dict) and children:
            for child in children.values():
                if walk(child):
                    return True
            return False
        out.append(f"{type(node).__name__}:{getattr(node, 'key', None) or ''}")
        return False

    walk(at.main)
    return out


def test_the_move_list_shows_each_loss_in_its_class_colour(open_app, app_store):
    game_id = stored_game(app_store)
    at = open_part(open_app("views/replay.py"), "Moves")
    moves = views(at)["moves"]
    assert moves["game"] == game_id and moves["jump"]["n"] == 0
    assert moves["entries"] == [  # (move count, the move, its class colour, loss and class)
        [0, "Start", "", ""],
        [1, "1. ● E5", "#1e9600", "0.0% good"],
        [2, "2. ○ C7", "#1e9600", "0.0% good"],
        [3, "3. ● A9", "#72216b", "■ −30.0% blunder"],
        [4, "4. ○ G3", "#d8b600", "■ −5.0% doubtful"],
        [5, "5. ● D6", "#abc846", "−1.0% okay"]]


def test_mistakes_are_marked_on_the_stones_in_their_class_colour(open_app, app_store):
    stored_game(app_store)
    at = open_app("views/replay.py")
    go_to(at, 2)
    assert 'class="mistake-mark"' not in boards(at)[0]
    go_to(at, 5)
    svg = boards(at)[0]
    assert svg.count('class="mistake-mark"') == 1  # A9 the blunder; G3 doubtful and D6 okay are not marked
    assert 'class="mistake-mark" data-vertex="A9"' in svg and 'fill="#72216b"' in svg


def test_a_mistake_click_keeps_the_board_where_it_was(open_app, app_store):
    """The mistakes sit beside the board, in a box of their own: a click changes the
    position, and nothing is drawn above the board that was not there before."""
    stored_game(app_store)
    at = open_part(open_app("views/replay.py"), "Mistakes")
    before = board_layout(at)
    at.button(key="replay_mistake_3").click().run()
    assert shown_move(at) == 2
    at.run()  # the whole page, as the browser shows it after the click
    assert shown_move(at) == 2
    assert board_layout(at) == before


def test_a_jump_redraws_only_what_shows_the_position(open_app, app_store):
    """A click in the mistakes (or the graph) runs the server's views of the position
    (the board, the panel beside it, the variations) and nothing else: not the title,
    the game's choice, the graph, the mistakes or the report; the board goes there."""
    stored_game(app_store)
    at = open_part(open_app("views/replay.py"), "Mistakes", tries=True)
    assert at.title and at.selectbox(key="replay_game") and at.get("plotly_chart")
    jump = views(at)["board"]["jump"]["id"]
    at.button(key="replay_mistake_3").click().run()
    no_exceptions(at)
    assert shown_move(at) == 2 and views(at)["board"]["jump"] == {"id": views(at)["board"]["jump"]["id"], "n": 2}
    assert views(at)["board"]["jump"]["id"] != jump
    assert any(m.value.startswith("Move 2 of 5") for m in at.markdown)  # the panel
    assert at.text_input(key="replay_try_text")  # the variations
    assert not at.title and not at.get("selectbox") and not at.get("plotly_chart")  # not run again
    assert not [b for b in at.button if (b.key or "").startswith("replay_mistake_")]


def test_a_move_set_by_another_page_is_a_jump_and_a_link_opens_at_its_move(open_app, app_store):
    game_id = stored_game(app_store)
    at = open_app("views/replay.py")
    at.session_state["replay_move"] = 4  # as the Player page opens a mistake
    at.run()
    assert views(at)["board"]["jump"]["n"] == 4 and shown_move(at) == 4
    at.switch_page("views/replay.py")
    at.query_params["game"], at.query_params["move"] = game_id, "3"  # a link to move 3: the position it is played in
    at.session_state["replay_loaded"] = None
    at.run()
    assert shown_move(at) == 2 and views(at)["board"]["jump"]["n"] == 2


def test_the_graph_has_its_axes_lined_up_and_a_click_goes_to_the_move(open_app, app_store):
    from dashboard.mistakes import review_game
    from dashboard.views.score_graph import clicked_move, figure

    game_id = stored_game(app_store)
    at = open_app("views/replay.py")
    charts = [c for c in at.get("plotly_chart")]
    assert charts and charts[0].proto.id  # drawn
    answers = {n: a.answer for n, a in app_store.analyses_for_game(game_id).items()}
    for n, a in answers.items():  # give the model a score head: black leads by 10x (win rate - 50%)
        a["root"]["score_lead"] = (10 if a["to_play"] == "B" else -10) * (a["root"]["winrate_black"] - 0.5) * 10
    moves = [(m.number, m.color, m.vertex) for m in app_store.get_game(game_id).moves]
    fig = figure(answers, review_game(moves, answers), 5)
    layout = fig.layout
    half = layout.yaxis2.range[1]
    assert list(layout.yaxis2.range) == [-half, half] and half == 30  # the largest lead, 30, rounded to 5
    # each gridline means the same on both sides: 50% is an even score
    assert [(t - 50) / 50 * half for t in layout.yaxis.tickvals] == list(layout.yaxis2.tickvals)
    assert list(layout.xaxis.range) == [-0.5, 5.5]
    click = [t for t in fig.data if t.name == "click"][0]
    assert list(click.x) == [0, 1, 2, 3, 4, 5] and set(click.y) == {100} and click.width == 1.0
    assert clicked_move({"selection": {"points": [{"x": 4, "customdata": 4}]}}) == 4
    assert clicked_move({"selection": {"points": []}}) is None


def test_a_graph_click_moves_the_board(open_app, app_store):
    """What the chart's selection callback does (the click itself: the browser test)."""
    from dashboard.views.score_graph import selected

    game_id = stored_game(app_store)
    at = open_app("views/replay.py")
    assert f"replay_graph_{game_id}_0" in at.session_state
    at.session_state["probe_3"] = {"selection": {"points": [{"x": 4, "customdata": 4}]}}
    moved = []
    selected("probe_3", 5, moved.append, at.session_state)
    assert moved == [4] and at.session_state["probe_clicks"] == 4  # a new key for the next click
    at.session_state["probe_4"] = {"selection": {"points": [{"x": 9}]}}  # past the end: ignored
    selected("probe_4", 5, moved.append, at.session_state)
    assert moved == [4] and at.session_state["probe_clicks"] == 4
    go_to(at, 1)
    assert f"replay_graph_{game_id}_0" in at.session_state  # a step keeps the chart (drawn anew is slow)


def test_a_candidates_line_is_drawn_as_numbered_stones(open_app, app_store):
    stored_game(app_store)
    at = open_app("views/replay.py")
    svg = boards(at)[0]
    # on hover: each candidate's line is there, hidden until the pointer is over it (the
    # page's CSS, drawn once: not in the board, which is drawn again at every step)
    assert svg.count('<g class="pv-hover"') == 5 and "<style>" not in svg
    assert sum('g.rec[data-rank="1"]:hover~g.pv-hover[data-rank="1"]' in m.value for m in at.markdown) == 1
    assert 'class="pv"' not in svg
    at.segmented_control(key="replay_line").set_value("E5").run()
    no_exceptions(at)
    svg = boards(at)[0]
    line = svg.split('<g class="pv">')[1].split("</g></g>")[0]
    assert [s.split('"')[0] for s in line.split('data-vertex="')[1:]] == ["E5", "J9", "H9"]
    assert 'data-number="3"' in line and '>3</text>' in line
    at.slider(key="replay_line_moves_0_E5").set_value(2).run()  # step back through the line
    line = boards(at)[0].split('<g class="pv">')[1].split("</g></g>")[0]
    assert [s.split('"')[0] for s in line.split('data-vertex="')[1:]] == ["E5", "J9"]


def test_an_illegal_try_is_a_toast_and_the_board_does_not_move(open_app, app_store):
    stored_game(app_store)
    at = open_part(open_app("views/replay.py"), tries=True)
    go_to(at, 1)
    at.text_input(key="replay_try_text").set_value("E5").run()
    at.button(key="replay_try_button").click().run()
    no_exceptions(at)
    assert any("E5 is not possible" in t.value for t in at.toast)
    assert not any("not possible" in w.value for w in at.warning)
    assert board_layout(at) == [] and shown_move(at) == 1  # the views redrawn: nothing drawn above the board


def test_variations_without_the_engine_are_kept_as_a_tree_and_leave_the_game_alone(open_app, app_store):
    game_id = stored_game(app_store)
    at = open_part(open_app("views/replay.py"), tries=True)
    go_to(at, 2)
    for vertex in ("C3", "D4"):
        at.text_input(key="replay_try_text").set_value(vertex).run()
        at.button(key="replay_try_button").click().run()
        no_exceptions(at)
    svg = boards(at)[0]
    assert 'data-move-count="4"' in svg and 'class="last-move" data-vertex="D4"' in svg
    assert 'data-vertex="C3"' in svg and svg.count('class="stone') == 4
    assert any(m.value.startswith("**Variation from move 2:** B\u00a0C3 W\u00a0D4") for m in at.markdown)
    at.button(key="replay_try_back").click().run()
    at.text_input(key="replay_try_text").set_value("F4").run()
    at.button(key="replay_try_button").click().run()
    lines = [b.label for b in at.button if b.key and b.key.startswith("replay_line_")]
    assert lines == ["B C3 W D4", "B C3 W F4"]
    at.button(key="replay_try_leave").click().run()
    assert shown_move(at) == 2 and boards(at)[0].count('class="stone') == 2
    at.button(key="replay_line_0").click().run()
    assert 'class="last-move" data-vertex="D4"' in boards(at)[0]
    assert [m.vertex for m in app_store.get_game(game_id).moves] == MOVES  # the stored game is unchanged
    tree = at.session_state["replay_trees"][game_id]
    assert tree.for_sgf() == {2: [[("B", "C3", None), ("W", "D4", None)], [("B", "C3", None), ("W", "F4", None)]]}
    from dashboard.views.replay_report import sgf_text  # what the page's download button writes
    from gobuddy.go.coords import to_gtp
    from gobuddy.go.sgf import parse_sgf

    with app_store.session() as session:
        (record,) = parse_sgf(sgf_text(session, game_id, tree.for_sgf()))
    after_c7 = record.main_line()[2]
    assert [to_gtp(c.move[1], 9) for c in after_c7.children] == ["A9", "C3"]
    assert [to_gtp(c.move[1], 9) for c in after_c7.children[1].children] == ["D4", "F4"]


def test_a_tried_move_gets_the_engines_answer(open_app, app_store, app_broker, stand_in_worker):
    game_id = stored_game(app_store)
    at = open_part(open_app("views/replay.py", app_broker), tries=True)
    at.text_input(key="replay_try_text").set_value("C3").run()
    at.button(key="replay_try_button").click().run(timeout=60)
    no_exceptions(at)
    said = [m.value for m in at.markdown if m.value.startswith("The engine answers")]
    assert said, [m.value for m in at.markdown]
    reply = said[0].split("**")[1]
    svg = boards(at)[0]
    assert 'data-move-count="1"' in svg and 'class="last-move" data-vertex="C3"' in svg
    assert f'class="rec" data-rank="1" data-vertex="{reply}"' in svg  # the answer is on the board
    at.button(key="replay_try_reply").click().run(timeout=60)
    no_exceptions(at)
    assert f'class="last-move" data-vertex="{reply}"' in boards(at)[0]
    assert [m.vertex for m in app_store.get_game(game_id).moves] == MOVES
    (line,) = at.session_state["replay_trees"][game_id].for_sgf()[0]
    assert [v for _, v, _ in line] == ["C3", reply] and line[0][2].startswith("Engine: win rate B")


def test_a_position_without_ownership_says_so_and_can_be_analysed_again(open_app, app_store, app_broker,
                                                                       stand_in_worker):
    game_id = stored_game(app_store, visits=5)
    at = open_app("views/replay.py", app_broker)
    go_to(at, 5)  # stones on the board: some points are owned
    assert not at.button(key="replay_ask").disabled  # analysed, but without ownership
    at.toggle(key="replay_ownership").set_value(True).run()
    assert any("analysed without ownership" in c.value for c in at.caption)
    assert 'class="owner' not in boards(at)[0]
    at.button(key="replay_ask").click().run(timeout=60)
    no_exceptions(at)
    assert app_store.analyses_for_game(game_id)[5].answer["ownership"] is not None
    assert at.button(key="replay_ask").disabled
    assert not any("analysed without ownership" in c.value for c in at.caption)


def test_ownership_is_shown_where_the_analysis_has_it(open_app, app_store):
    game_id = stored_game(app_store)
    key = app_store.position_keys(game_id)[1]
    owned = answer(1, key.to_play, key.hash)
    owned["ownership"] = [0.9 if i < 27 else (-0.9 if i >= 54 else 0.0) for i in range(81)]  # black top, white bottom
    owned["root"]["visits"] = 200
    app_store.save_analysis(key, "test-model", owned, move_count=1, game_id=game_id)
    at = open_app("views/replay.py")
    go_to(at, 1)
    assert 'class="owner' not in boards(at)[0]
    at.toggle(key="replay_ownership").set_value(True).run()
    svg = boards(at)[0]
    assert svg.count('class="owner black"') == 27 and svg.count('class="owner white"') == 27
    assert not any("without ownership" in c.value for c in at.caption)
    go_to(at, 2)  # move 2 was analysed without: the page says so
    assert 'class="owner' not in boards(at)[0]
    assert any("analysed without ownership" in c.value for c in at.caption)


def test_thinking_longer_stores_a_deeper_analysis(open_app, app_store, app_broker, stand_in_worker):
    game_id = stored_game(app_store, visits=5)
    at = open_app("views/replay.py", app_broker)
    assert at.button(key="replay_think").label == "Think longer (800 visits)"
    at.button(key="replay_think").click().run(timeout=120)
    no_exceptions(at)
    stored = app_store.analyses_for_game(game_id)[0]
    assert stored.visits > 5 and stored.answer["ownership"] is not None
    assert any(s.value.startswith(f"Thought longer: {stored.visits} visits") and s.value.endswith("stored.")
               for s in at.success)


def test_the_page_opens_on_the_latest_finished_game(open_app, app_store):
    finished = stored_game(app_store, analysed=False, sgf=SGF.replace("DT[2026-01-05]", "DT[2026-01-05]RE[B+3]"))
    unfinished = stored_game(app_store, analysed=False, sgf=SGF.replace("DT[2026-01-05]", "DT[2026-01-07]"))
    games = app_store.list_games().games
    assert [g.id for g in games] == [unfinished, finished]  # newest first: the unfinished one
    at = open_app("views/replay.py")
    assert at.selectbox(key="replay_game").value == finished
    at = open_app("views/games.py")
    assert at.selectbox(key="games_selected").value == finished


def test_the_live_page_has_its_own_address():
    """Streamlit serves the default page at "/" only: Live comes again, hidden, at /live."""
    from dashboard.app import page_specs

    specs = page_specs(lambda action: action != "manage_users")
    served = {("" if s.get("default") else s["url_path"]): s for s in specs}
    assert served[""]["page"] == served["live"]["page"] == "views/live.py"
    assert served["live"].get("visibility") == "hidden" and not served["live"].get("default")
    from dashboard.app import PAGES  # (another test's app may add a page)

    assert [s["title"] for s in specs if s.get("visibility") != "hidden"] == [
        title for _, title, _, action in PAGES if action != "manage_users"]  # each once in the menu
    assert [s["title"] for s in specs if s.get("visibility") == "hidden"] == ["Live"]
    assert len({s["url_path"] for s in specs}) == len(specs)  # Streamlit refuses two pages at one path


def test_an_imported_games_comments_and_variations_are_on_the_page(open_app, app_store):
    sgf = ("(;GM[1]FF[4]SZ[9]KM[7]RE[B+5]C[A friendly game];B[ee]C[Black takes the centre](;W[cc];B[gc])"
           "(;W[gg]C[the other corner];B[cc]))")
    (game_id,) = app_store.import_sgf(sgf)
    at = open_part(open_app("views/replay.py"), tries=True)
    assert any(c.value == "Comment: A friendly game" for c in at.caption)
    go_to(at, 1)
    assert any(c.value == "Comment: Black takes the centre" for c in at.caption)
    assert [b.label for b in at.button if b.key and b.key.startswith("replay_line_")] == ["W G3 B C7"]
    at.button(key="replay_line_0").click().run()
    no_exceptions(at)
    svg = boards(at)[0]
    assert 'data-move-count="3"' in svg and 'class="last-move" data-vertex="C7"' in svg
    assert not any(c.value == "Comment: the other corner" for c in at.caption)  # at the line's end: B C7
    at.button(key="replay_try_back").click().run()
    assert any(c.value == "Comment: the other corner" for c in at.caption)
    assert [m.vertex for m in app_store.get_game(game_id).moves] == ["E5", "C7", "G7"]


# Black walls in three white stones (D5 E5 F5, in atari at G5 after move 13); white
# plays elsewhere; black's move 15, C8, misses the capture: a blunder of 13 points.
CAPTURE_MOVES = "D4 D5 E4 E5 F4 F5 D6 A1 E6 A2 F6 A3 C5 J9 C8".split()


def lead_answer(n: int, to_play: str, key_hash: str) -> dict:
    """Black leads by 2, by 15 once white left the three stones in atari (after 13 and
    14 moves: G5 is the move for both), by 2 again after black's C8."""
    black = 15.0 if n in (13, 14) else 2.0
    mine = black if to_play == "B" else -black
    cands = [("G5", mine), ("H5", mine - 12.0)] if n in (13, 14, 15) else [("H8", mine), ("B2", mine - 1.0)]
    moves = [{"move": v, "order": i, "visits": 50 - 10 * i, "winrate": 0.5, "winrate_black": 0.5, "score_lead": lead,
              "prior": 0.2, "pv": [v, "J8"]} for i, (v, lead) in enumerate(cands)]
    return {"id": f"c-{n}", "board_id": None, "position_key": {"move_count": n, "hash": key_hash},
            "to_play": to_play, "root": {"visits": 100, "winrate": 0.5, "winrate_black": 0.5, "score_lead": mine,
                                          "value": 0.0},
            "moves": moves, "ownership": None, "is_during_search": False, "model": "test-model",
            "elapsed_ms": 5.0, "worker": "test", "ts": 1}


def sgf_of(moves: list[str]) -> str:
    """A 9x9 game record, black first, moves as GTP vertices."""
    letters = "abcdefghi"
    nodes = "".join(f";{'BW'[i % 2]}[{letters['ABCDEFGHJ'.index(v[0])]}{letters[9 - int(v[1:])]}]"
                    for i, v in enumerate(moves))
    return f"(;GM[1]FF[4]SZ[9]KM[7]RU[Chinese]DT[2026-01-06]PB[Ana]PW[Ben]{nodes})"


def capture_game(store: Store) -> str:
    game_id = store.import_sgf(sgf_of(CAPTURE_MOVES))[0]
    for n, key in store.position_keys(game_id).items():
        store.save_analysis(key, "test-model", lead_answer(n, key.to_play, key.hash), move_count=n, game_id=game_id)
    return game_id


@pytest.fixture(autouse=True)
def _fresh_reasons():
    from dashboard.views.reasons import clear_cache

    clear_cache()  # kept process-wide: each test explains afresh
    yield
    clear_cache()


def reasons_block(at, title_start: str) -> str:
    found = [m.value for m in at.markdown if m.value.startswith(f"**{title_start}")]
    assert len(found) == 1, [m.value for m in at.markdown]
    return found[0]


def test_a_missed_capture_is_explained_beside_the_mistake_and_on_the_board(open_app, app_store):
    capture_game(app_store)
    at = open_part(open_app("views/replay.py"), "Mistakes")
    no_exceptions(at)
    labels = [b.label for b in at.button if b.key and b.key.startswith("replay_mistake_")]
    assert labels == ["Move 15 · Black C8 · −13.0 points · blunder (best G5)"]
    # the mistakes list: the reason against the move and the one for the engine's choice, under its button
    listed = [m.value for m in at.markdown if "thumb_down" in m.value and "Captures 3 stones" in m.value]
    assert listed == [":red[:material/thumb_down:] :red-badge[territory] The engine expects about 13 points more "
                      "at G5 than at the move played.  \n"
                      ":green[:material/thumb_up:] :green-badge[capture] Captures 3 stones at D5 E5 F5."]
    assert 'class="reason-mark"' not in boards(at)[0]  # the start: no mistake next
    at.button(key="replay_mistake_15").click().run()
    no_exceptions(at)
    assert shown_move(at) == 14
    played = reasons_block(at, "Why black C8 was a blunder")
    assert ":red-badge[territory] The engine expects about 13 points more at G5 than at the move played." in played
    hint = reasons_block(at, "Why G5, the engine's choice")
    lines = hint.split("  \n")[1:]
    assert lines[0] == ":green[:material/thumb_up:] :green-badge[capture] Captures 3 stones at D5 E5 F5."
    assert [line.split("-badge[")[1].split("]")[0] for line in lines] == ["capture", "territory"]
    # the top reason's points on the board: G5, where the engine plays, and C8, the move played
    svg = boards(at)[0]
    marks = [s.split('"')[0] for s in svg.split('class="reason-mark" data-vertex="')[1:]]
    assert marks == ["G5", "C8"]
    reasons = views(at)["board"]["frames"]["reasons"]  # and in the browser's frames, for its own drawing
    assert reasons[14] == ["G5", "C8"] and not any(reasons[:14]) and not reasons[15]
    go_to(at, 15)  # after the blunder: white's move is no mistake
    assert not [m.value for m in at.markdown if m.value.startswith("**Why white")]
    assert 'class="reason-mark"' not in boards(at)[0]


def test_an_explanation_that_fails_leaves_the_page_without_reasons(open_app, app_store, monkeypatch, caplog):
    import dashboard.views.reasons as reasons

    capture_game(app_store)

    def broken(*args, **kwargs):
        raise RuntimeError("explainer broke")

    monkeypatch.setattr(reasons, "explain_move", broken)
    monkeypatch.setattr(reasons, "explain_hint", broken)
    at = open_part(open_app("views/replay.py"), "Mistakes")
    at.button(key="replay_mistake_15").click().run()
    no_exceptions(at)
    assert shown_move(at) == 14
    assert any(m.value.startswith("Next: move 15, black C8: lost 13.0 points (blunder)") for m in at.markdown)
    assert not [m.value for m in at.markdown if "-badge[" in m.value]
    assert "explainer broke" in caplog.text


# A count that named a dead stone: black walls off the left, white the right, and the
# white stone at C7 lives in black's area until the count lifts it (column E is dame):
# black 36, white 36, komi 7.
COUNTED = "D1 F1 D2 F2 D3 F3 D4 F4 D5 F5 D6 F6 D7 F7 D8 F8 D9 F9 pass C7 pass pass"


def counted_game(store: Store) -> str:
    """The game of ``COUNTED``, ended by the count W+7 with C7 dead (as the Play page ends one)."""
    game = WireGame("counted-1").play(COUNTED)
    send(store, *game.events, game.end("W+7") | {"dead": ["C7"]})
    return game.game_id


def test_the_final_position_crosses_out_the_stones_counted_dead_and_says_how(open_app, app_store):
    counted_game(app_store)
    at = open_app("views/replay.py")  # the latest finished game: the counted one
    cases = [  # (move shown, dead marks on the board, the count in words)
        (22, ["C7"], ["W+7 by area count; 1 white stone counted dead"]),
        (21, [], []),  # before the end: the stone is on the board, not counted
        (0, [], []),
    ]
    for n, marks, words in cases:
        at = go_to(at, n)
        no_exceptions(at)
        assert shown_move(at) == n
        assert re.findall(r'class="dead" data-vertex="(\w+)"', boards(at)[0]) == marks, n
        assert [c.value for c in at.caption if "count;" in c.value] == words, n


@pytest.mark.parametrize("result, scoring, dead, words", [
    ("W+7", "area", ["C7"], "W+7 by area count; 1 white stone counted dead"),
    ("B+3.5", "area", ["D1", "D2", "C7"], "B+3.5 by area count; 2 black stones and 1 white stone counted dead"),
    ("W+0.5", "territory", ["F1", "F2"], "W+0.5 by territory count; 2 white stones counted dead"),
    ("B+1", "area", [], "B+1 by area count; no stone counted dead"),
    (None, "area", ["C7"], "No result by area count; 1 white stone counted dead"),
])
def test_how_a_result_was_counted_in_words(result, scoring, dead, words):
    assert count_words(result, scoring, WireGame("words").play(COUNTED).pos, dead) == words
