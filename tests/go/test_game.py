"""The one home of a game: ruleset, record, derived position, hash and the event fold."""

import pytest

from gobuddy.go.coords import BLACK, WHITE, from_gtp
from gobuddy.go.game import Game, GameError, Ruleset, position_hash
from gobuddy.go.position import Position

CHINESE = Ruleset("chinese", 7.0)
JAPANESE = Ruleset("japanese", 6.5)


def gtp_game(moves: str, size: int = 9, ruleset: Ruleset = CHINESE, setup=(), to_play="B") -> Game:
    """A game from ``"B D4, W pass, ..."``."""
    pairs = [tuple(m.split()) for m in moves.split(",") if m.strip()]
    return Game.from_gtp(size, ruleset, to_play, setup, pairs)


@pytest.mark.parametrize("name, superko, scoring", [
    ("chinese", True, "area"),
    ("aga", True, "area"),
    ("japanese", False, "territory"),
    ("korean", False, "territory"),
])
def test_ruleset_ko_and_scoring_follow_the_name(name, superko, scoring):
    assert (Ruleset(name).superko, Ruleset(name).scoring) == (superko, scoring)


def test_position_is_derived_from_the_moves():
    game = gtp_game("B C3, W D3, B D4, W E4, B E3, W pass, B D2")  # black captures D3
    assert game.position.to_ascii() == Position.from_ascii("""
        .........
        .........
        .........
        .........
        .........
        ...XO....
        ..X.X....
        ...X.....
        .........""").to_ascii()
    assert game.played[-1].captured == (from_gtp("D3", 9),)
    assert game.position.captures[BLACK] == 1
    assert game.move_number == 7 and game.to_play == WHITE


@pytest.mark.parametrize("moves, error", [
    ("B D4, W D4", "move 2 (W D4) is illegal: occupied"),
    ("B 4D", "move 1: '4D' is not a GTP vertex"),
    ("B D4, X E5", "move 2: 'X' is not a colour"),
    ("B J10", "move 1: 'J10' is off a 9x9 board"),
])
def test_an_illegal_record_names_the_move(moves, error):
    with pytest.raises(GameError) as caught:
        gtp_game(moves)
    assert error in str(caught.value)
    assert caught.value.move_number == int(error.split()[1].rstrip(":"))


# A ko on E5/F5: black F5 takes the white stone at E5; white may not retake at once.
KO_SETUP = [("B", "D5"), ("B", "E4"), ("B", "E6"), ("W", "F4"), ("W", "F6"), ("W", "G5"), ("W", "E5")]


def test_ko_rule_follows_the_ruleset():
    for ruleset in (CHINESE, JAPANESE):
        game = Game.from_gtp(9, ruleset, "B", KO_SETUP, [("B", "F5")])  # takes E5
        assert game.played[-1].captured == (from_gtp("E5", 9),)
        with pytest.raises(GameError, match=r"move 2 \(W E5\) is illegal: ko"):
            game.play_gtp("W", "E5")


def test_superko_only_under_superko_rules():
    # Take, pass, pass, retake: legal under the simple ko rule (the passes lift the
    # ko), a repetition of the start position under positional superko.
    line = [("B", "F5"), ("W", "pass"), ("B", "pass")]
    simple = Game.from_gtp(9, JAPANESE, "B", KO_SETUP, line)
    simple.play_gtp("W", "E5")  # retaking after the ko was "broken" by passes
    strict = Game.from_gtp(9, CHINESE, "B", KO_SETUP, line)
    with pytest.raises(GameError, match="superko"):
        strict.play_gtp("W", "E5")


@pytest.mark.parametrize("setup, error, index", [
    ([("B", "D4"), ("W", "D4")], "setup stone 2: D4 is set twice", 1),
    ([("B", "pass")], "setup stone 1: 'pass' is not a point", 0),
    ([("Q", "D4")], "setup: 'Q' is not a colour", 0),
    ([("W", "A1"), ("B", "A2"), ("B", "B1")], "setup: the chain at A1 has no liberties", None),
])
def test_bad_setup_is_named(setup, error, index):
    with pytest.raises(GameError) as caught:
        Game.from_gtp(9, CHINESE, "B", setup)
    assert error in str(caught.value)
    assert caught.value.move_number == 0 and caught.value.setup_index == index


def test_handicap_puts_fixed_stones_and_white_moves_first():
    game = Game.with_handicap(9, CHINESE, 2)
    assert sorted(game.gtp_setup()) == [("B", "C3"), ("B", "G7")]
    assert game.to_play == WHITE and game.handicap == 2


def test_undo_restores_the_position_and_its_hash():
    game = gtp_game("B C3, W D3, B D4, W E4, B E3, W pass")
    before = game.hash()
    game.play_gtp("B", "D2")  # captures D3
    assert game.hash() != before
    undone = game.undo()
    assert (undone.color, undone.point, undone.captured) == (BLACK, from_gtp("D2", 9), (from_gtp("D3", 9),))
    assert game.hash() == before and game.position.captures[BLACK] == 0
    assert game.board_after(game.move_number) == tuple(game.position.board)


def test_position_hash_is_sixteen_hex_digits_of_the_key():
    game = gtp_game("B E5")
    assert position_hash(game.position) == format(game.position.key(), "016x")
    assert len(game.hash()) == 16 and game.hash() != gtp_game("").hash()


def test_the_same_stones_with_another_side_to_move_hash_differently():
    game = gtp_game("B E5")
    other = gtp_game("B E5")
    other.set_to_play(BLACK)
    assert game.hash() != other.hash()


def test_positions_and_position_at_agree_with_board_after():
    game = gtp_game("B C3, W D3, B D4, W E4, B E3, W pass, B D2")
    for n, pos in game.positions():
        assert tuple(pos.board) == game.board_after(n) == tuple(game.position_at(n).board)


@pytest.mark.parametrize("setup, moves, to_play, first, now", [
    ((), (), None, BLACK, BLACK),
    ((), (), "W", WHITE, WHITE),
    ((("B", "C3"), ("B", "G7")), (("W", "E5"),), "B", WHITE, BLACK),  # a handicap game: white moved first
    ((), (("B", "E5"),), "B", BLACK, BLACK),  # the wire says black is to play again
    ((), (("B", "E5"), ("W", "D5")), None, BLACK, BLACK),  # as the moves leave it
])
def test_a_position_on_the_wire_says_who_is_to_play_after_its_moves(setup, moves, to_play, first, now):
    game = Game.from_position(9, CHINESE, setup, moves, to_play)
    assert (game.first_to_play, game.to_play, game.gtp_moves()) == (first, now, list(moves))


def test_a_wire_position_that_changes_the_side_to_move_clears_the_ko():
    ko = (("B", "D5"), ("W", "E5"), ("B", "C4"), ("W", "F4"), ("B", "D3"), ("W", "E3"), ("B", "E4"), ("W", "D4"))
    assert Game.from_position(9, JAPANESE, (), ko).position.illegal_reason(from_gtp("E4", 9), BLACK) == "ko"
    cleared = Game.from_position(9, JAPANESE, (), ko, "W").position
    assert cleared.to_play == WHITE and cleared.ko is None


def test_strict_turns_names_who_should_have_played():
    with pytest.raises(GameError, match="move 2: B played E5 but W was to play"):
        Game.from_gtp(9, CHINESE, "B", (), [("B", "D4"), ("B", "E5")], strict_turns=True)
    assert Game.from_gtp(9, CHINESE, "B", (), [("B", "D4"), ("B", "E5")]).move_number == 2  # GTP allows it


# ---- the event fold ---------------------------------------------------------------------

EVENTS = [  # (kind, colour, vertex, move_number, moves after, changed)
    ("move", "B", "D4", 1, ["B D4"], True),
    ("pass", "W", None, 2, ["B D4", "W pass"], True),
    ("problem", None, None, 2, ["B D4", "W pass"], False),
    ("undo", "W", "pass", 2, ["B D4"], True),
    ("move", "W", "E5", 2, ["B D4", "W E5"], True),
]


def test_events_fold_into_the_record():
    game = Game(9, CHINESE)
    for kind, color, vertex, number, after, changed in EVENTS:
        assert game.apply(kind, color, vertex, number) is changed
        assert [f"{c} {v}" for c, v in game.gtp_moves()] == after
    assert game.apply("game_ended", result="W+R") and game.result == "W+R"


@pytest.mark.parametrize("kind, color, vertex, number, error", [
    ("move", "W", "E5", 3, "move of W E5 is numbered 3, but the next move is 2"),
    ("undo", "B", "E5", None, "undo of move 1 (B E5), but the last move is 1 (B D4)"),
    ("undo", "B", "D4", 2, "undo of move 2 (B D4), but the last move is 1 (B D4)"),
    ("move", "W", "D4", 2, "move 2 (W D4) is illegal: occupied"),
])
def test_an_event_that_does_not_fit_is_named_and_changes_nothing(kind, color, vertex, number, error):
    game = gtp_game("B D4")
    before = (game.moves, game.hash())
    with pytest.raises(GameError) as caught:
        game.apply(kind, color, vertex, number)
    assert error in str(caught.value)
    assert (game.moves, game.hash()) == before


def test_a_count_lifts_the_dead_stones_and_names_them():
    # black walls off the left, white's C5 stone inside black's area is dead
    game = gtp_game("B E1, W F1, B E2, W F2, B E3, W F3, B E4, W F4, B E5, W F5, B E6, W F6, B E7, W F7, "
                    "B E8, W F8, B E9, W F9, B pass, W C5, B pass, W pass")  # 45 - 36 - 7 komi
    ended = game.count([from_gtp("C5", 9), from_gtp("C5", 9)])
    assert (ended.result, ended.reason, ended.dead) == ("B+2", "score", (from_gtp("C5", 9),))
    assert game.result == "B+2"


def test_a_count_without_dead_stones_and_a_resignation_differ_in_dead():
    assert gtp_game("B E5, W pass, B pass").count().dead == ()
    assert gtp_game("B E5").resign(WHITE).dead is None


def test_a_count_of_an_empty_point_is_refused_and_the_game_stays_open():
    game = gtp_game("B E5, W pass, B pass")
    with pytest.raises(ValueError):
        game.count([from_gtp("A1", 9)])
    assert game.result is None and not game.ended


def test_undo_with_nothing_to_undo_is_an_error():
    with pytest.raises(GameError, match="no move to undo"):
        Game(9, CHINESE).apply("undo", "B", "D4", 1)


def test_board_size_is_a_parameter():
    game = gtp_game("B K10, W C3", size=19)
    assert game.size == 19 and game.position.board[from_gtp("K10", 19)] == BLACK
    assert game.gtp_moves() == [("B", "K10"), ("W", "C3")]


# ---- records ----------------------------------------------------------------------------

def test_record_round_trip_keeps_setup_moves_and_result():
    game = Game.with_handicap(9, CHINESE, 2)
    game.play_gtp("W", "E5")
    game.play_gtp("B", "pass")
    game.result = "W+R"
    back, notes = Game.from_record(game.record(black="Ana"))
    assert notes == []
    assert (back.gtp_setup(), back.gtp_moves(), back.result, back.to_play) == (
        game.gtp_setup(), game.gtp_moves(), "W+R", game.to_play)
    assert back.hash() == game.hash()


def test_from_record_stops_before_a_move_and_forgets_the_result():
    record = gtp_game("B D4, W E5, B F6").record(result="B+3")
    game, _ = Game.from_record(record, until=3)
    assert game.gtp_moves() == [("B", "D4"), ("W", "E5")] and game.result is None


def test_from_record_plays_a_superko_repeat_with_a_note_and_names_other_illegal_moves():
    line = [("B", "F5"), ("W", "pass"), ("B", "pass"), ("W", "E5")]
    record = Game.from_gtp(9, JAPANESE, "B", KO_SETUP, line).record(rules="chinese")
    game, notes = Game.from_record(record)
    assert game.move_number == 4
    assert notes == ["move 4 repeats an earlier position (positional superko): played all the same"]
    from gobuddy.go.record import GameRecord

    bad = GameRecord.from_moves(9, 7.0, [(BLACK, from_gtp("D4", 9)), (WHITE, from_gtp("D4", 9))])
    with pytest.raises(GameError, match=r"move 2 \(W D4\) is illegal: occupied"):
        Game.from_record(bad)
