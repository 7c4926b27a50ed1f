"""Engine analyses: keyed by position, shared between games, deepest answer kept."""

from __future__ import annotations

import pytest

from dashboard.ingest import ingest
from dashboard.store import PositionKey
from gobuddy.go.game import position_hash
from tests.dashboard.conftest import T0, WireGame, send


def answer(game: WireGame, visits: int = 100, winrate_black: float = 0.55, final: bool = True,
           board_id: str | None = "board-1", model: str = "gobuddy-9x9-b6c64") -> dict:
    """An engine_answer for the position ``game`` is in now, as a worker sends it."""
    to_play = "B" if game.pos.to_play == 1 else "W"
    mine = winrate_black if to_play == "B" else 1 - winrate_black
    return {"id": f"{game.game_id}:{len(game.history)}", "board_id": board_id, "ts": T0 + 500_000,
            "position_key": {"move_count": len(game.history), "hash": position_hash(game.pos)},
            "to_play": to_play,
            "root": {"visits": visits, "winrate": mine, "winrate_black": winrate_black, "score_lead": 1.5,
                     "value": 2 * mine - 1},
            "moves": [{"move": "C3", "order": 0, "visits": visits - 1, "winrate": mine, "winrate_black": winrate_black,
                       "score_lead": 1.5, "prior": 0.3, "pv": ["C3", "G7"]}],
            "ownership": None, "is_during_search": not final, "model": model, "elapsed_ms": 120.0,
            "worker": "engine-pc1-0"}


def engine(store, message: dict) -> str:
    return ingest(store.sessions, "engine_answer", message).status


def test_the_store_key_is_the_wire_position_hash(store):
    game = WireGame("a0").play("E5 D6 C4")
    send(store, *game.events)
    keys = store.position_keys("a0")
    assert sorted(keys) == [0, 1, 2, 3]
    assert keys[3] == PositionKey(position_hash(game.pos), 9, 7.0, "chinese", "W")


def test_an_engine_answer_is_stored_for_its_game_and_move(store):
    game = WireGame("a1").play("E5 D6")
    send(store, *game.events)
    assert engine(store, answer(game, visits=120)) == "applied"
    found = store.analyses_for_game("a1")
    assert list(found) == [2]
    assert (found[2].visits, found[2].game_id, found[2].move_number, found[2].model) == (120, "a1", 2,
                                                                                        "gobuddy-9x9-b6c64")
    assert found[2].answer["root"]["winrate_black"] == 0.55


def test_the_same_position_in_another_game_shares_the_analysis(store):
    first = WireGame("a2").play("E5 D6 C4")
    second = WireGame("a3", board_id="board-2", t0=T0 + 3_600_000).play("C4 D6 E5")  # same stones, other order
    send(store, *first.events, *second.events)
    assert engine(store, answer(first)) == "applied"
    shared = store.analyses_for_game("a3")
    assert list(shared) == [3] and shared[3].game_id == "a2"
    assert store.get_analysis(store.position_keys("a3")[3]) == shared[3]


def test_other_komi_or_rules_do_not_share(store):
    first = WireGame("a4").play("E5")
    second = WireGame("a5", board_id="board-2", komi=6.5).play("E5")
    send(store, *first.events, *second.events)
    engine(store, answer(first))
    assert store.analyses_for_game("a5") == {}


def test_a_deeper_answer_replaces_a_shallower_one_and_not_the_reverse(store):
    game = WireGame("a6").play("E5")
    send(store, *game.events)
    assert [engine(store, answer(game, visits=v, winrate_black=w)) for v, w in
            ((100, 0.5), (100, 0.6), (50, 0.7), (400, 0.45))] == ["applied", "duplicate", "duplicate", "applied"]
    (stored,) = store.analyses_for_game("a6").values()
    assert (stored.visits, stored.answer["root"]["winrate_black"]) == (400, 0.45)


def test_each_model_keeps_its_own_answer_and_the_deepest_is_shown(store):
    game = WireGame("a7").play("E5")
    send(store, *game.events)
    engine(store, answer(game, visits=100, model="small"))
    engine(store, answer(game, visits=300, model="big"))
    assert store.analyses_for_game("a7")[1].model == "big"
    assert store.analyses_for_game("a7", model="small")[1].visits == 100


@pytest.mark.parametrize("change, reason", [
    (dict(is_during_search=True), "partial answer"),
    (dict(board_id=None), "answer for no board"),
    (dict(board_id="board-9"), "no recent game on board-9"),
    (dict(position_key={"move_count": 1, "hash": "00000000000000ff"}), "no recent game on board-1 has position"),
])
def test_answers_that_match_no_position_are_ignored(store, change, reason):
    game = WireGame("a8").play("E5")
    send(store, *game.events)
    outcome = ingest(store.sessions, "engine_answer", {**answer(game), **change})
    assert outcome.status == "ignored" and reason in outcome.detail
    assert store.analyses_for_game("a8") == {}


def test_save_analysis_directly_for_an_imported_game(store):
    (game_id,) = store.import_sgf("(;SZ[9]KM[7]RU[Chinese];B[ee];W[dc])")
    keys = store.position_keys(game_id)
    reply = {"root": {"visits": 64, "winrate": 0.4, "winrate_black": 0.6}, "moves": []}
    assert store.save_analysis(keys[1], "m", reply, move_count=1, game_id=game_id, move_number=1)
    assert not store.save_analysis(keys[1], "m", reply, move_count=1)
    assert store.analyses_for_game(game_id)[1].visits == 64


def test_an_answer_with_ownership_replaces_one_without_unless_it_searched_less(store):
    """A position analysed without ownership (a board's hint) gets it from a second
    analysis of as many visits; a shallower one, or one over a stored ownership, does not."""
    game = WireGame("a9").play("E5")
    send(store, *game.events)
    owned = [0.5] * 81
    assert engine(store, answer(game, visits=200)) == "applied"
    assert engine(store, {**answer(game, visits=100), "ownership": owned}) == "duplicate"
    assert store.analyses_for_game("a9")[1].answer["ownership"] is None
    assert engine(store, {**answer(game, visits=200, winrate_black=0.6), "ownership": owned}) == "applied"
    stored = store.analyses_for_game("a9")[1]
    assert (stored.visits, stored.answer["ownership"], stored.answer["root"]["winrate_black"]) == (200, owned, 0.6)
    assert engine(store, {**answer(game, visits=200, winrate_black=0.7), "ownership": [0.1] * 81}) == "duplicate"
    assert store.analyses_for_game("a9")[1].answer["root"]["winrate_black"] == 0.6
