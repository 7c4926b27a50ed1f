"""The teacher's notes in the store (``teaching_notes``): a Play game's taken-back move
kept as a variation with its point loss and a kept mistake noted on its move; the SGF
export writes them (``Taken back: loses 6.5 points; better C3``), ``Game.from_record``
reads the taken-back moves back, an import and a second export give the same file;
deleting the game deletes its notes."""

from __future__ import annotations

import pytest

from dashboard.store import Store
from gobuddy.go.coords import BLACK, from_gtp
from gobuddy.go.game import Game, TakenBack
from gobuddy.go.sgf import parse_sgf
from tests.dashboard.conftest import WireGame, send

def p(vertex: str) -> int:
    return from_gtp(vertex, 9)


def play_game(store: Store) -> str:
    """Black (the learner) plays J1 as move 3, takes it back and plays C3; plays A9 as
    move 5 and keeps it; the moves go over the wire as the Play page sends them."""
    wire = WireGame("web-1-teach", board_id="web-1", mode="vs_engine").play("E5 C4 J1")
    wire.undo()
    wire.play("C3 D3 A9 D2")
    send(store, *wire.events)
    store.note_teaching("web-1-teach", 3, "B", "J1", "taken_back", points_lost=6.5, winrate_lost=0.31,
                        better="C3", level="30 kyu")
    store.note_teaching("web-1-teach", 5, "B", "A9", "kept", points_lost=4.0, winrate_lost=0.12, better="G7",
                        level="30 kyu")
    return "web-1-teach"


def test_the_notes_are_kept_in_move_order(store) -> None:
    game_id = play_game(store)
    notes = store.teaching_notes(game_id)
    assert [(n.move_number, n.vertex, n.decision, n.points_lost, n.better, n.level) for n in notes] == [
        (3, "J1", "taken_back", 6.5, "C3", "30 kyu"), (5, "A9", "kept", 4.0, "G7", "30 kyu")]
    assert [m.vertex for m in store.get_game(game_id).moves] == "E5 C4 C3 D3 A9 D2".split()


def test_a_note_the_table_refuses(store) -> None:
    with pytest.raises(ValueError, match="decision"):
        store.note_teaching("web-1-x", 1, "B", "E5", "ignored")
    with pytest.raises(ValueError, match="number >= 1"):
        store.note_teaching("web-1-x", 0, "B", "E5", "kept")
    assert store.teaching_notes("web-1-x") == []


def test_the_sgf_export_writes_them_and_the_record_reads_them_back(store) -> None:
    game_id = play_game(store)
    text = store.export_sgf(game_id, with_analysis=False)
    assert "(;B[ii]C[Taken back: loses 6.5 points; better C3])" in text
    assert "C[Kept after the teacher's warning: loses 4 points; better G7]" in text
    assert "Variation (not played)" not in text
    game, _ = Game.from_record(parse_sgf(text)[0])
    assert [to for _, to in game.moves][:3] == [p("E5"), p("C4"), p("C3")]
    assert game.variations == [TakenBack(3, BLACK, p("J1"), 6.5, p("C3"))]
    again = store.import_sgf(text)[0]
    assert store.export_sgf(again, with_analysis=False) == text
    assert [(n.move_number, n.vertex, n.decision, n.points_lost, n.better) for n in store.teaching_notes(again)] == [
        (3, "J1", "taken_back", 6.5, "C3"), (5, "A9", "kept", 4.0, "G7")]
    assert "comments" not in store.get_game(again).extra and "variations" not in store.get_game(again).extra


def test_other_comments_and_variations_are_kept_as_before_on_import(store) -> None:
    text = ("(;FF[4]GM[1]SZ[9]KM[7]RU[Chinese];B[ee]C[Kept after the teacher's warning: loses 4 points; better G7"
            "\n\nA fine move];W[cf]C[Kept by me](;B[cg])(;B[ii]C[Taken back: fun]))")
    game_id = store.import_sgf(text)[0]
    notes = store.teaching_notes(game_id)
    assert [(n.move_number, n.vertex, n.decision, n.points_lost, n.better) for n in notes] == [
        (1, "E5", "kept", 4.0, "G7")]
    extra = store.get_game(game_id).extra
    assert extra["comments"] == {"1": "A fine move", "2": "Kept by me"}
    assert extra["variations"] == {"2": [[["B", "J1", "Taken back: fun"]]]}


def test_a_move_taken_back_and_played_again_stays_its_own_variation_through_import(store) -> None:
    wire = WireGame("web-1-again", board_id="web-1", mode="vs_engine").play("E5 C4 pass")
    wire.undo()
    wire.play("pass D4")
    send(store, *wire.events)
    store.note_teaching("web-1-again", 3, "B", "pass", "taken_back", points_lost=7.4, better="D6")
    text = store.export_sgf("web-1-again", with_analysis=False)
    assert ";B[ee];W[cf]\n(;B[];W[df])\n(;B[]C[Taken back: loses 7.4 points; better D6]))" in text
    again = store.import_sgf(text)[0]
    assert store.export_sgf(again, with_analysis=False) == text


def test_deleting_the_game_deletes_its_notes(store) -> None:
    game_id = play_game(store)
    store.delete_game(game_id)
    assert store.teaching_notes(game_id) == []
