"""A game's own events on the wire (``gobuddy.bus.game_events.from_game``), the one
conversion the edge's journal and the Play page share: each valid against the schema."""

from gobuddy.bus.game_events import GameEnded, MovePlayed, Passed, Undone, from_game
from gobuddy.bus.validation import validate
from gobuddy.go.coords import BLACK, from_gtp
from gobuddy.go.game import Game, Ruleset
from gobuddy.go.game import Undone as GoUndone

IDS = dict(board_id="board-1", game_id="g1")


def test_moves_passes_undo_and_a_count_in_wire_form():
    game = Game.from_gtp(9, Ruleset("chinese", 7.0), "B", (), [("B", "B1"), ("W", "A1"), ("B", "B2"),
                                                              ("W", "J9"), ("B", "A2")])  # B A2 captures A1
    capture = from_game(game.played[-1], 9, **IDS, seq=5)
    game.play(game.pass_point)
    passed = from_game(game.played[-1], 9, **IDS, seq=6)
    undone = from_game(GoUndone(game.undo()), 9, **IDS, seq=7)
    ended = from_game(game.count([from_gtp("J9", 9)]), 9, **IDS, seq=8)
    resigned = from_game(Game(9).resign(BLACK), 9, **IDS, seq=1)

    assert capture == MovePlayed(**IDS, seq=5, move_number=5, color="B", vertex="A2", captures=("A1",), ts=capture.ts)
    assert passed == Passed(**IDS, seq=6, move_number=6, color="W", ts=passed.ts)
    assert undone == Undone(**IDS, seq=7, move_number=6, color="W", vertex="pass", ts=undone.ts)
    assert (ended.result, ended.reason, ended.dead) == ("B+74", "score", ("J9",))
    assert isinstance(resigned, GameEnded) and resigned.dead is None and "dead" not in resigned.to_dict()
    for event in (capture, passed, undone, ended, resigned):
        validate("game_event", event.to_dict())
