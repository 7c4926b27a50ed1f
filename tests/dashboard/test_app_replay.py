"""The Replay page (AppTest, real SQLite; real Mosquitto and the stand-in engine worker
where the engine is asked): stepping, stored analyses on the board, mistakes ordered
by loss a click away, the graph, analysing a whole game over the bus, trying a move."""

from __future__ import annotations

from dashboard.store import Store
from tests.e2e.fixtures import (_migrated_sqlite, app_broker, app_db_url, app_store, boards,  # noqa: F401
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
              "prior": 0.2, "pv": [v]} for i, v in enumerate([BEST[n], "B2", "H8", "J1", "A1"])]
    return {"id": f"t-{n}", "board_id": None, "position_key": {"move_count": n, "hash": key_hash},
            "to_play": to_play, "root": {"visits": 100, "winrate": wr, "winrate_black": WINRATES[n],
                                          "score_lead": None, "value": 0.0},
            "moves": moves, "ownership": None, "is_during_search": False, "model": "test-model",
            "elapsed_ms": 5.0, "worker": "test", "ts": 1}


def stored_game(store: Store, analysed: bool = True) -> str:
    game_id = store.import_sgf(SGF)[0]
    if analysed:
        for n, key in store.position_keys(game_id).items():
            store.save_analysis(key, "test-model", answer(n, key.to_play, key.hash), move_count=n, game_id=game_id)
    return game_id


def shown_move(at) -> int:
    svg = boards(at)[0]
    return int(svg.split('data-move-count="')[1].split('"')[0])


def test_stepping_through_a_game(open_app, app_store):
    game_id = stored_game(app_store)
    at = open_app("views/replay.py")
    no_exceptions(at)
    assert at.selectbox(key="replay_game").value == game_id
    assert shown_move(at) == 0 and boards(at)[0].count('class="rec"') == 5
    steps = [("replay_next", 1), ("replay_next", 2), ("replay_prev", 1), ("replay_last", 5), ("replay_next", 5),
             ("replay_first", 0)]
    for key, expected in steps:
        at.button(key=key).click().run()
        no_exceptions(at)
        assert shown_move(at) == expected, key
    at.slider(key="replay_move").set_value(3).run()
    assert shown_move(at) == 3
    svg = boards(at)[0]
    assert svg.count('class="stone') == 3 and 'class="last-move" data-vertex="A9"' in svg
    assert any(m.value.startswith("Next: move 4, white G3") for m in at.markdown)


def test_mistakes_are_ordered_by_loss_and_a_click_away(open_app, app_store):
    stored_game(app_store)
    at = open_app("views/replay.py")
    labels = [b.label for b in at.button if b.key and b.key.startswith("replay_mistake_")]
    # black's A9: 50% -> 20%; white's G3 lost 5 (doubtful) and black's D6 1 (okay): not listed
    assert labels == ["Move 3 · Black A9 · −30.0 % win rate · blunder (best D4)"]
    at.button(key="replay_mistake_3").click().run()
    no_exceptions(at)
    assert shown_move(at) == 2
    assert any("move 3, black A9: lost 30.0 % win rate (blunder), the engine preferred D4" in m.value
               for m in at.markdown)
    report = at.dataframe[-1].value
    assert list(report["player"]) == ["Black", "White"] and list(report["moves judged"]) == [3, 2]
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


def test_trying_another_move(open_app, app_store, app_broker, stand_in_worker):
    stored_game(app_store)
    at = open_app("views/replay.py", app_broker)
    at.text_input(key="replay_try_text_0").set_value("C3").run()
    at.button(key="replay_try_button").click().run(timeout=60)
    no_exceptions(at)
    said = [m.value for m in at.markdown if m.value.startswith("After black C3")]
    assert said and "the engine's best here, E5, gives 55.0%" in said[0]
    tried = [b for b in boards(at) if 'data-move-count="1"' in b]
    assert tried and 'class="last-move" data-vertex="C3"' in tried[0]
    at.text_input(key="replay_try_text_0").set_value("Z9").run()
    at.button(key="replay_try_button").click().run()
    assert any("Z9 is not possible" in w.value for w in at.warning)
