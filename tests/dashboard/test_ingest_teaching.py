"""A board's teacher on the wire (``teaching`` game events, as the edge agent sends them)
stored by the recorder's ingest as the game's teaching notes: the taken-back move is a
variation of the stored game's SGF with its point loss, the kept one a comment; a
repeated event is stored once."""

from __future__ import annotations

from dashboard.store import Store
from gobuddy.bus.messages import GameEvent
from gobuddy.go.coords import BLACK, from_gtp
from gobuddy.go.game import Game, TakenBack
from gobuddy.go.sgf import parse_sgf
from tests.dashboard.conftest import WireGame, send


def teaching(wire: WireGame, number: int, color: str, vertex: str, verdict: str, lost: float | None,
             better: str | None) -> dict:
    return wire._add("teaching", number, color=color, vertex=vertex, verdict=verdict, points_lost=lost,
                     winrate_lost=0.25, better=better, level="25 kyu")


def board_game(store: Store) -> str:
    """On board-1, black plays B2 as move 3, lifts it after the teacher's warning (undo,
    then the teaching event) and plays C3; white's A9 (move 4) is kept with TURN DONE."""
    wire = WireGame("board-1-teach", board_id="board-1").play("E5 C4 B2")
    wire.undo()
    teaching(wire, 3, "B", "B2", "taken_back", 6.5, "C3")
    wire.play("C3 A9")
    teaching(wire, 4, "W", "A9", "kept", None, "G7")
    wire.play("D3")
    for event in wire.events:
        GameEvent.from_dict(event)  # each valid on the wire
    outcomes = send(store, *wire.events, wire.events[5])  # the first teaching event comes twice
    assert [o.status for o in outcomes] == ["applied"] * len(wire.events) + ["duplicate"]
    return wire.game_id


def test_the_notes_of_a_board_game(store) -> None:
    game_id = board_game(store)
    notes = store.teaching_notes(game_id)
    assert [(n.move_number, n.color, n.vertex, n.decision, n.points_lost, n.better, n.level) for n in notes] == [
        (3, "B", "B2", "taken_back", 6.5, "C3", "25 kyu"), (4, "W", "A9", "kept", None, "G7", "25 kyu")]
    assert [m.vertex for m in store.get_game(game_id).moves] == "E5 C4 C3 A9 D3".split()


def test_the_sgf_of_a_stored_board_game_keeps_the_taken_back_variation(store) -> None:
    text = store.export_sgf(board_game(store), with_analysis=False)
    assert "(;B[bh]C[Taken back: loses 6.5 points; better C3])" in text
    assert "C[Kept after the teacher's warning: better G7]" in text
    game, _ = Game.from_record(parse_sgf(text)[0])
    assert game.variations == [TakenBack(3, BLACK, from_gtp("B2", 9), 6.5, from_gtp("C3", 9))]
