"""The live game: moves are the truth, events follow the game_event schema's fields."""

from __future__ import annotations

import pytest

from edge.game import (Game, GameEnded, GameError, GameSettings, Mode, MovePlayed, Passed,
                       StoneMove, Undone)
from gobuddy.go.coords import BLACK, EMPTY, WHITE, from_gtp, to_gtp
from gobuddy.go.position import IllegalMove


def play(game: Game, vertices: str) -> list:
    out = []
    for v in vertices.split():
        out.append(game.pass_move() if v == "pass" else game.play(from_gtp(v, game.size)))
    return out


def test_moves_passes_and_captures() -> None:
    game = Game()
    events = play(game, "C5 D5 E5 A1 D6 pass D4")
    assert events[0] == MovePlayed(1, "B", "C5", ())
    assert events[5] == Passed(6, "W")
    assert events[6] == MovePlayed(7, "B", "D4", ("D5",))
    assert game.move_number == 7 and game.to_play == WHITE
    assert game.position.board[from_gtp("D5", 9)] == EMPTY
    assert game.last_stone_move() == StoneMove(7, BLACK, from_gtp("D4", 9), (from_gtp("D5", 9),))


def test_undo_replays_the_record() -> None:
    game = Game()
    play(game, "C5 D5 E5 A1 D6 pass D4")
    before = game.board_after(6)
    assert game.undo() == Undone(7, "B", "D4")
    assert tuple(game.position.board) == before and game.position.board[from_gtp("D5", 9)] == WHITE
    assert game.undo() == Undone(6, "W", "pass")
    assert game.to_play == WHITE and game.move_number == 5


def test_last_stone_move_skips_passes() -> None:
    game = Game()
    assert game.last_stone_move() is None
    play(game, "E5 pass pass")
    assert game.last_stone_move().point == from_gtp("E5", 9)
    assert game.both_passed()


@pytest.mark.parametrize("moves,vertex,reason", [
    ("E5", "E5", "occupied"),
    ("A2 E5 B1", "A1", "suicide"),
    ("D6 E6 C5 F5 D4 E4 A9 D5 E5", "D5", "ko"),
])
def test_illegal_moves_say_why(moves: str, vertex: str, reason: str) -> None:
    game = Game()
    play(game, moves)
    with pytest.raises(IllegalMove, match=reason):
        game.play(from_gtp(vertex, 9))
    assert game.move_number == len(moves.split())


def test_handicap_game_starts_with_stones_and_white() -> None:
    game = Game(GameSettings(handicap=3, komi=0.5))
    assert [to_gtp(p, 9) for p in game.handicap_points] == ["C3", "G7", "C7"]
    assert all(game.position.board[p] == BLACK for p in game.handicap_points)
    assert game.to_play == WHITE
    play(game, "E5")
    record = game.record()
    assert record.info.handicap == 3 and record.root.setup_black == list(game.handicap_points)
    assert record.moves() == [(WHITE, from_gtp("E5", 9))]


def test_end_by_count_and_by_resignation() -> None:
    game = Game(GameSettings(komi=6.5))
    play(game, "E5 pass pass")
    assert game.end() == GameEnded(3, "B+74.5", "score")
    with pytest.raises(GameError, match="the game is over"):
        game.play(from_gtp("D4", 9))
    other = Game()
    assert other.resign(BLACK) == GameEnded(0, "W+R", "resignation")
    assert other.record().info.result == "W+R"


def test_nothing_to_undo() -> None:
    with pytest.raises(GameError, match="no move to undo"):
        Game().undo()


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
    game = Game(GameSettings(mode=Mode.VS_ENGINE, engine_color=WHITE))
    assert not game.is_engine_turn()
    play(game, "E5")
    assert game.is_engine_turn()
    assert [m.wire for m in Mode] == ["two_players", "two_players", "vs_engine"]
