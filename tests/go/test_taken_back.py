"""Taken-back moves (``Game.take_back``): undone and kept as variations with their
point loss and the better move; written to SGF as commented variations and read back;
a game without any writes and reads exactly as before."""

from __future__ import annotations

import pytest

from gobuddy.go.coords import BLACK, WHITE, from_gtp
from gobuddy.go.game import Game, GameError, Ruleset, TakenBack, taken_back_of
from gobuddy.go.sgf import dump_sgf, parse_sgf


def p(vertex: str) -> int:
    return from_gtp(vertex, 9)


def played(game: Game, *vertices: str) -> Game:
    for vertex in vertices:
        game.play(p(vertex))
    return game


def test_take_back_undoes_the_move_and_keeps_it() -> None:
    game = played(Game(9, Ruleset("chinese", 7.0)), "E5", "C4", "J1")
    kept = game.take_back(points_lost=6.5, better=p("C3"))
    assert kept == TakenBack(3, BLACK, p("J1"), 6.5, p("C3"))
    assert game.moves == [(BLACK, p("E5")), (WHITE, p("C4"))] and game.to_play == BLACK
    assert game.variations == [kept]
    game.play(p("C3"))
    assert game.move_number == 3 and game.variations == [kept]


def test_undo_keeps_nothing_and_take_back_of_nothing_fails() -> None:
    game = played(Game(9, Ruleset("chinese", 7.0)), "E5")
    game.undo()
    assert game.variations == []
    with pytest.raises(GameError):
        game.take_back(1.0)


@pytest.mark.parametrize("taken, comment", [
    (TakenBack(3, BLACK, p("J1"), 6.5, p("C3")), "Taken back: loses 6.5 points; better C3"),
    (TakenBack(3, BLACK, p("J1"), 1.0, p("C3")), "Taken back: loses 1 point; better C3"),
    (TakenBack(3, BLACK, p("J1"), 12.0, None), "Taken back: loses 12 points"),
    (TakenBack(3, BLACK, p("J1"), None, p("D4")), "Taken back: better D4"),
    (TakenBack(3, BLACK, p("J1"), None, None), "Taken back"),
])
def test_the_comment_says_it_and_reads_back(taken, comment) -> None:
    assert taken.comment(9) == comment
    assert taken_back_of(comment, 3, (BLACK, p("J1")), 9) == taken


@pytest.mark.parametrize("comment", [None, "", "Variation (not played)", "Took back: loses 3 points",
                                     "Taken back: loses many points"])
def test_other_comments_are_not_taken_back(comment) -> None:
    assert taken_back_of(comment, 3, (BLACK, p("J1")), 9) is None


def test_the_sgf_round_trip_keeps_the_taken_back_variations() -> None:
    game = played(Game(9, Ruleset("chinese", 7.0)), "E5", "C4", "J1")
    game.take_back(6.5, p("C3"))
    played(game, "A9")
    game.take_back(3.2, p("C3"))  # a second try at move 3, taken back too
    played(game, "C3", "D3", "pass")
    game.take_back(12.0, p("D2"))
    played(game, "D2")
    text = dump_sgf(game.record(black="Ana", white="gobuddy-30-kyu"))
    assert "(;B[ii]C[Taken back: loses 6.5 points; better C3])" in text
    assert "(;B[aa]C[Taken back: loses 3.2 points; better C3])" in text
    assert "(;B[]C[Taken back: loses 12 points; better D2])" in text
    again, notes = Game.from_record(parse_sgf(text)[0])
    assert notes == [] and again.moves == game.moves
    assert again.variations == game.variations == [
        TakenBack(3, BLACK, p("J1"), 6.5, p("C3")), TakenBack(3, BLACK, p("A9"), 3.2, p("C3")),
        TakenBack(5, BLACK, 81, 12.0, p("D2"))]
    assert dump_sgf(again.record(black="Ana", white="gobuddy-30-kyu")) == text


def test_a_move_taken_back_and_played_again_is_still_its_own_variation() -> None:
    game = played(Game(9, Ruleset("chinese", 7.0)), "E5")
    game.take_back(7.0, p("D4"))
    played(game, "E5")
    record = game.record()
    assert len(record.root.children) == 2 and record.root.children[1].comment.startswith("Taken back")
    assert Game.from_record(parse_sgf(dump_sgf(record))[0])[0].variations == game.variations


def test_a_game_without_taken_back_moves_records_as_before() -> None:
    game = played(Game(9, Ruleset("chinese", 7.0)), "E5", "C4", "D4")
    text = dump_sgf(game.record())
    assert "(" not in text[1:] and "Taken back" not in text
    assert Game.from_record(parse_sgf(text)[0])[0].variations == []


def test_reading_until_a_move_keeps_the_taken_back_moves_before_it() -> None:
    game = played(Game(9, Ruleset("chinese", 7.0)), "E5", "C4", "J1")
    game.take_back(6.5, p("C3"))
    played(game, "C3", "D3", "J9")
    game.take_back(5.0, p("D2"))
    played(game, "D2")
    record = parse_sgf(dump_sgf(game.record()))[0]
    assert [t.number for t in Game.from_record(record, until=4)[0].variations] == [3]
    assert [t.number for t in Game.from_record(record, until=3)[0].variations] == []
