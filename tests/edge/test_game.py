"""The game on the board: settings, and the board's changes returning the game's own events.

The record, replay and position are ``gobuddy.go.game.Game``'s (``tests/go/test_game.py``);
here: what the board adds (modes, settings refused, a closed game refused, counting)."""

from __future__ import annotations

import pytest

from edge import game as board_game
from edge.game import GameSettings, Mode
from gobuddy.go.coords import BLACK, EMPTY, WHITE, from_gtp, to_gtp
from gobuddy.go.game import Ended, Game, GameError, Played, Undone


def play(game: Game, vertices: str) -> list:
    return [board_game.pass_move(game) if v == "pass" else board_game.play(game, from_gtp(v, game.size))
            for v in vertices.split()]


def P(vertex: str) -> int:
    return from_gtp(vertex, 9)


def test_moves_passes_and_captures_are_the_records_own_moves() -> None:
    game = GameSettings().new_game()
    events = play(game, "C5 D5 E5 A1 D6 pass D4")
    assert events[0] == Played(1, BLACK, P("C5"))
    assert events[5] == Played(6, WHITE, game.pass_point)
    assert events[6] == Played(7, BLACK, P("D4"), (P("D5"),))
    assert list(game.played) == events
    assert game.move_number == 7 and game.to_play == WHITE and game.position.board[P("D5")] == EMPTY


def test_undo_names_the_move_taken_back() -> None:
    game = GameSettings().new_game()
    play(game, "C5 D5 E5 A1 D6 pass D4")
    before = game.board_after(6)
    assert board_game.undo(game) == Undone(Played(7, BLACK, P("D4"), (P("D5"),)))
    assert tuple(game.position.board) == before and game.position.board[P("D5")] == WHITE
    assert board_game.undo(game) == Undone(Played(6, WHITE, game.pass_point))
    assert game.to_play == WHITE and game.move_number == 5


@pytest.mark.parametrize("moves,vertex,reason", [
    ("E5", "E5", "occupied"),
    ("A2 E5 B1", "A1", "suicide"),
    ("D6 E6 C5 F5 D4 E4 A9 D5 E5", "D5", "ko"),
    ("E5", "pass", "use pass_move"),
])
def test_illegal_moves_say_why_and_change_nothing(moves: str, vertex: str, reason: str) -> None:
    game = GameSettings().new_game()
    play(game, moves)
    with pytest.raises(GameError, match=reason):
        board_game.play(game, game.pass_point if vertex == "pass" else P(vertex))
    assert game.move_number == len(moves.split())


def test_simple_ko_setting_allows_a_repeat_that_superko_refuses() -> None:
    # Black takes a ko, both sides pass twice, White retakes: a whole-board repeat.
    moves = "D6 E6 C5 F5 D4 E4 A9 D5 E5 pass pass"
    for superko, legal in ((True, False), (False, True)):
        game = GameSettings(superko=superko).new_game()
        play(game, moves)
        assert (game.position.illegal_reason(P("D5")) is None) is legal


def test_handicap_game_starts_with_stones_and_white() -> None:
    game = GameSettings(handicap=3, komi=0.5).new_game()
    assert [to_gtp(p, 9) for p in game.setup_black] == ["C3", "G7", "C7"]
    assert all(game.position.board[p] == BLACK for p in game.setup_black)
    assert game.to_play == WHITE and game.handicap == 3
    play(game, "E5")
    record = game.record()
    assert record.info.handicap == 3 and record.root.setup_black == list(game.setup_black)
    assert record.moves() == [(WHITE, P("E5"))]


def test_end_by_count_and_by_resignation_then_nothing_more() -> None:
    game = GameSettings(komi=6.5).new_game()
    play(game, "E5 pass pass")
    ended = board_game.end(game, (P("E5"),))
    assert ended == Ended(3, "W+6.5", "score", (P("E5"),))
    for change in (lambda: board_game.play(game, P("D4")), lambda: board_game.pass_move(game),
                   lambda: board_game.undo(game), lambda: board_game.end(game)):
        with pytest.raises(GameError, match="the game is over"):
            change()
    assert game.move_number == 3
    other = GameSettings().new_game()
    assert board_game.resign(other, BLACK) == Ended(0, "W+R", "resignation")
    assert other.record().info.result == "W+R"


def test_dead_stones_are_lifted_before_the_count() -> None:
    game = GameSettings(komi=0.5).new_game()
    play(game, "E5 A1 pass pass")
    assert board_game.end(game, dead=(P("A1"),)).result == "B+80.5"


def test_nothing_to_undo() -> None:
    with pytest.raises(GameError, match="no move to undo"):
        board_game.undo(GameSettings().new_game())


@pytest.mark.parametrize("kwargs,message", [
    ({"handicap": 1}, "handicap must be 0 or from 2 up"),
    ({"mode": Mode.VS_ENGINE}, "needs engine_color"),
    ({"engine_color": WHITE}, "only for vs_engine"),
    ({"komi": 6.3}, "multiple of 0.5"),
])
def test_bad_settings(kwargs: dict, message: str) -> None:
    with pytest.raises(GameError, match=message):
        GameSettings(**kwargs)


def test_engine_turn_and_wire_modes() -> None:
    game = GameSettings(mode=Mode.VS_ENGINE, engine_color=WHITE).new_game()
    assert not game.is_engine_turn()
    play(game, "E5")
    assert game.is_engine_turn()
    board_game.resign(game, WHITE)
    assert not game.is_engine_turn()
    assert [m.wire for m in Mode] == ["two_players", "two_players", "vs_engine"]
