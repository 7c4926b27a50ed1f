"""Game record: tree building, main line, replay to a position (captures, ko, setup)."""

from __future__ import annotations

import pytest

from gobuddy.go.coords import BLACK, WHITE, color_from_str, from_gtp, to_gtp
from gobuddy.go.position import IllegalMove
from gobuddy.go.record import GameInfo, GameRecord, Node, GameError


def moves(text: str, size: int) -> list[tuple[int, int]]:
    """``"B E5, W pass"`` -> [(BLACK, flat), (WHITE, pass)]."""
    out = []
    for item in text.split(","):
        color, vertex = item.split()
        out.append((color_from_str(color), from_gtp(vertex, size)))
    return out


def points(text: str, size: int) -> list[int]:
    return [from_gtp(v, size) for v in text.split()]


def board(text: str) -> str:
    return "\n".join(" ".join(line.split()) for line in text.strip().splitlines())


KO_SHAPE = "B B5, W C5, B A4, W B4, B B3, W C3, B E1, W D4"

# (name, size, setup black, setup white, moves, expected board, black captures, white captures, to play)
REPLAYS = [
    ("empty", 5, "", "", "", """
        . . . . .
        . . . . .
        . . . . .
        . . . . .
        . . . . .""", 0, 0, BLACK),
    ("corner capture", 5, "", "", "B B5, W A5, B A4", """
        . X . . .
        X . . . .
        . . . . .
        . . . . .
        . . . . .""", 1, 0, WHITE),
    ("two stones captured on the edge", 5, "", "", "B A3, W A4, B B4, W A5, B B5", """
        . X . . .
        . X . . .
        X . . . .
        . . . . .
        . . . . .""", 2, 0, WHITE),
    ("ko capture", 5, "", "", KO_SHAPE + ", B C4", """
        . X O . .
        X . X O .
        . X O . .
        . . . . .
        . . . . X""", 1, 0, WHITE),
    ("ko retaken after a pass each", 5, "", "", KO_SHAPE + ", B C4, W pass, B pass, W A1, B pass, W B4", """
        . X O . .
        X O . O .
        . X O . .
        . . . . .
        O . . . X""", 1, 1, BLACK),
    ("handicap stones, white first", 5, "B4 D2", "", "W C3", """
        . . . . .
        . X . . .
        . . O . .
        . . . X .
        . . . . .""", 0, 0, BLACK),
    ("capture next to setup stones", 5, "A5 B4", "B5", "W A3, B C5", """
        X . X . .
        . X . . .
        O . . . .
        . . . . .
        . . . . .""", 1, 0, WHITE),
    ("2x2 board", 2, "", "", "B A1, W B2, B A2, W pass, B B1, W pass", """
        X .
        X X""", 1, 0, BLACK),
]


@pytest.mark.parametrize("name,size,ab,aw,line,expected,bcap,wcap,to_play", REPLAYS, ids=[r[0] for r in REPLAYS])
def test_replay_gives_board(name, size, ab, aw, line, expected, bcap, wcap, to_play):
    record = GameRecord.from_moves(size, 7.5, moves(line, size) if line else [],
                                   points(ab, size), points(aw, size), handicap=2 if ab and not aw else 0)
    pos = record.position_at()
    assert pos.to_ascii() == board(expected)
    assert pos.captures == {BLACK: bcap, WHITE: wcap}
    assert pos.to_play == to_play


def test_handicap_of_two_or_more_gives_white_the_first_move():
    assert GameRecord.from_moves(9, 0.5, [], points("C3 G7", 9), handicap=2).position_at().to_play == WHITE
    assert GameRecord.from_moves(9, 0.5, [], points("C3", 9), handicap=1).position_at().to_play == BLACK


ILLEGAL = [
    ("ko", KO_SHAPE + ", B C4, W B4", 10, "move 10 (W B4) is illegal: ko"),
    ("superko after passes", KO_SHAPE + ", B C4, W pass, B pass, W B4", 12, "move 12 (W B4) is illegal: superko"),
    ("occupied", "B C3, W C3", 2, "move 2 (W C3) is illegal: occupied"),
    ("suicide", "B A2, W E5, B B1, W A1", 4, "move 4 (W A1) is illegal: suicide"),
]


@pytest.mark.parametrize("name,line,number,message", ILLEGAL, ids=[r[0] for r in ILLEGAL])
def test_illegal_move_in_record_names_move_and_vertex(name, line, number, message):
    record = GameRecord.from_moves(5, 7.5, moves(line, 5))  # building does not check
    with pytest.raises(GameError) as info:
        record.position_at()
    assert str(info.value) == message
    assert info.value.move_number == number
    assert isinstance(info.value, IllegalMove)


def test_superko_can_be_turned_off():
    record = GameRecord.from_moves(5, 7.5, moves(KO_SHAPE + ", B C4, W pass, B pass, W B4", 5))
    pos = record.position_at(superko=False)
    assert not pos.superko and pos.captures[WHITE] == 1


def test_setup_empties_replaces_and_sets_side_to_move():
    record = GameRecord.from_moves(5, 7.5, [], points("A5 B5 C5", 5), points("E1", 5))
    node = record.root.add_child(Node(setup_empty=points("B5", 5), setup_white=points("A5", 5), to_play=WHITE))
    record.add_move(node, WHITE, from_gtp("E5", 5))
    assert record.position_at(node).to_play == WHITE
    assert record.position_at().to_ascii() == board("""
        O . X . O
        . . . . .
        . . . . .
        . . . . .
        . . . . O""")


def test_setup_leaving_a_dead_chain_is_a_replay_error():
    record = GameRecord.from_moves(5, 7.5, moves("B C3", 5), points("B5", 5), points("A5", 5))
    record.add_move(record.main_line()[-1], WHITE, from_gtp("D4", 5))
    record.main_line()[-1].add_child(Node(setup_black=points("A4", 5)))
    with pytest.raises(GameError, match=r"^setup after move 2: the chain at A5 has no liberties$"):
        record.position_at(record.main_line()[-1])
    own = GameRecord.from_moves(5, 7.5, [], points("A5", 5), points("B5 A4", 5))
    with pytest.raises(GameError, match=r"^setup before the first move: the chain at A5 has no liberties$"):
        own.position_at()
    twice = GameRecord.from_moves(5, 7.5, [], [3], [3])
    with pytest.raises(GameError, match=r"^setup before the first move: point 3 is named twice$"):
        twice.position_at()


def test_add_move_builds_a_tree_and_reuses_identical_children():
    size = 9
    record = GameRecord.from_moves(size, 7.0, moves("B E5, W C3", size), black="Ann", white="Bob")
    e5 = record.root.children[0]
    assert record.add_move(e5, WHITE, from_gtp("C3", size)) is e5.children[0]
    variation = record.add_move(e5, WHITE, from_gtp("G7", size))
    assert e5.children == [e5.children[0], variation] and variation.parent is e5
    record.add_move(variation, BLACK, size * size)
    assert record.moves() == moves("B E5, W C3", size)
    assert [n.move for n in record.main_line()] == [None] + moves("B E5, W C3", size)
    assert variation.path() == [record.root, e5, variation] and variation.children[0].move_number() == 3
    assert record.position_at(variation.children[0]).to_ascii().count("O") == 1
    assert len(list(record.nodes())) == 5
    assert record.info == GameInfo(size=9, komi=7.0, black="Ann", white="Bob")


def test_add_move_refuses_what_is_not_a_move_of_this_record():
    record = GameRecord.from_moves(9, 7.0, [])
    with pytest.raises(ValueError, match="not a colour"):
        record.add_move(record.root, 0, 3)
    with pytest.raises(ValueError, match="82 is not a point of a 9x9 board"):
        record.add_move(record.root, BLACK, 82)
    with pytest.raises(ValueError, match="not part of this record"):
        record.add_move(Node(), BLACK, 3)
    with pytest.raises(ValueError, match="not part of this record"):
        record.position_at(Node())
    with pytest.raises(ValueError, match="81 is not a point"):
        GameRecord.from_moves(9, 7.0, [], setup_black=[81])


def test_records_compare_by_content():
    a = GameRecord.from_moves(9, 7.0, moves("B E5, W C3", 9))
    b = GameRecord.from_moves(9, 7.0, moves("B E5, W C3", 9))
    assert a == b
    b.main_line()[-1].comment = "hm"
    assert a != b
    c = GameRecord.from_moves(9, 7.0, moves("B E5", 9))
    c.add_move(c.root.children[0], WHITE, from_gtp("C3", 9))
    assert a == c
    c.add_move(c.root, BLACK, from_gtp("D4", 9))
    assert a != c
    assert a != GameRecord.from_moves(9, 6.5, moves("B E5, W C3", 9))


def test_deep_records_need_no_recursion():
    size = 19
    record = GameRecord.from_moves(size, 7.0, [(BLACK if i % 2 == 0 else WHITE, size * size) for i in range(3000)])
    other = GameRecord.from_moves(size, 7.0, record.moves())
    assert record == other and len(record.main_line()) == 3001
    assert record.position_at().move_count == 3000


# (SGF main line, expected start as ASCII, side to move at the start, moves after it (GTP), dropped, notes)
LINEAR = [
    ("(;SZ[3]AB[aa]AW[cc];B[bb])", "X . .|. . .|. . O", "B", "B B2", 0, []),
    ("(;SZ[3];AB[aa]PL[W];AW[cc];W[bb])", "X . .|. . .|. . O", "W", "W B2", 0,
     ["setup after the root, before the first move: folded into the start"] * 2),
    ("(;SZ[3];B[aa];W[cc];AE[aa]AB[ba];W[bb])", ". X .|. . .|. . O", "B", "W B2", 2,
     ["setup after move 2: the position there is the start, the 2 move(s) before it are not kept"]),
    ("(;SZ[3];B[aa];PL[B]W[cc])", ". . .|. . .|. . .", "B", "B A3, W C1", 0, []),
]


@pytest.mark.parametrize("sgf,start,to_play,moves,dropped,notes", LINEAR)
def test_linear_line_folds_setup_into_the_start(sgf, start, to_play, moves, dropped, notes):
    from gobuddy.go.position import Position
    from gobuddy.go.sgf import parse_sgf

    line = parse_sgf(sgf)[0].linear_line()
    pos = Position(3)
    for p in line.setup_black:
        pos.place(p, BLACK)
    for p in line.setup_white:
        pos.place(p, WHITE)
    assert pos.to_ascii().replace("\n", "|") == start
    assert ("B" if line.to_play == BLACK else "W") == to_play
    assert ", ".join(f"{'B' if c == BLACK else 'W'} {to_gtp(p, 3)}" for c, p in line.moves) == moves
    assert (line.dropped, line.notes) == (dropped, notes)
