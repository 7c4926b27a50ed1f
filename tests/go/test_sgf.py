"""SGF: reading real-world files exactly, clear errors, and lossless round trips."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gobuddy.go.coords import BLACK, WHITE, color_to_str, from_gtp, to_gtp
from gobuddy.go.position import Position
from gobuddy.go.record import GameInfo, GameRecord, Node
from gobuddy.go.sgf import SgfError, dump_sgf, parse_sgf, read_sgf
from gobuddy.go.sgf_grammar import escape_text, is_raw_value, split_compose, unescape_text

FIXTURES = Path(__file__).parent / "fixtures" / "sgf"


def read(name: str) -> list[GameRecord]:
    return parse_sgf((FIXTURES / name).read_bytes())


def shape(node: Node, size: int) -> str:
    """Moves from ``node`` down as text, variations in parentheses: ``B E5, W C7, (B G7), (B C4)``."""
    parts = []
    while True:
        if node.move is not None:
            color, point = node.move
            parts.append(f"{color_to_str(color)} {to_gtp(point, size)}")
        if len(node.children) != 1:
            break
        node = node.children[0]
    parts += [f"({shape(child, size)})" for child in node.children] if len(node.children) > 1 else []
    return ", ".join(parts)


def gtp_points(points: list[int], size: int) -> str:
    return " ".join(to_gtp(p, size) for p in points)


def info(**fields: object) -> dict:
    return fields


# ---------------------------------------------------------------------- fixtures, exact values
# (file, game index, expected GameInfo fields (others default, komi 0), expected move tree)
GAMES = [
    ("ff3_long_names.sgf", 0, info(size=9, komi=5.5, handicap=2, black="Old Timer", white="Young Blood"),
     "W E5, B pass, W D6"),
    ("collection.sgf", 0, info(size=9, game_name="first"), "B E5, W C7, (B G7, W C3, (B G3), (B G4, W G5)), (B C4)"),
    ("collection.sgf", 1, info(size=13, game_name="second"), "B D10, W K4"),
    ("collection.sgf", 2, info(size=19, game_name="third"), "B Q16, W D4, B Q4, W D16"),
    ("info.sgf", 0, info(size=19, komi=6.5, rules="japanese", handicap=2, black="Cho Hunhyun", white="Lee Changho",
                         black_rank="9d", white_rank="9p", result="W+3.5", date="1995-03-12,13", place="Seoul",
                         event="Kuksu", game_name="Final, game 2",
                         extra={"AP": ["CGoban:3"], "ST": ["2"], "TM": ["3600"], "OT": ["5x30 byo-yomi"],
                                "SO": ["Go Seigen's archive"]}),
     "W D16, B Q4, W pass"),
    ("setup.sgf", 0, info(size=9), "W D6"),
    ("passes.sgf", 0, info(size=19), "B Q16, W pass, B pass, W D16, B pass"),
    ("passes.sgf", 1, info(size=9), "B E5, W pass"),
    ("passes.sgf", 2, info(size=21), "B U2, W pass"),
    ("escapes.sgf", 0, info(size=9, black="Ren\\e"), "B E5, W C7"),
    ("unknown_props.sgf", 0, info(size=9, game_name="unknown props", extra={"XX": ["keep me"]}), "B E5, W C7"),
    ("utf8.sgf", 0, info(size=9, black="José Müller", white="井山裕太", game_name="囲碁 game"), "B E5"),
    ("latin1.sgf", 0, info(size=9, black="Hélène", white="Jürgen"), "B E5"),
    ("no_charset_latin1.sgf", 0, info(size=9, black="François"), "B E5"),
]


@pytest.mark.parametrize("name,index,fields,tree", GAMES, ids=[f"{g[0]}#{g[1]}" for g in GAMES])
def test_fixture_reads_exactly(name, index, fields, tree):
    record = read(name)[index]
    assert record.info == GameInfo(**{"komi": 0.0, **fields})
    assert shape(record.root, record.info.size) == tree


def test_collections_keep_every_game_in_order():
    assert [len(read(n)) for n in ("collection.sgf", "passes.sgf", "info.sgf")] == [3, 3, 1]


# (file, comments along the main line, root node included)
COMMENTS = [
    ("ff3_long_names.sgf", ["FF[3] style: long names", None, None, None]),
    ("info.sgf", [None, None, "Black takes the last corner.", None]),
    ("escapes.sgf", ["Line onestill one\nline two: ]closed] and back\\slash\\\\", "tab here", "crlf\nlinesoft"]),
    ("utf8.sgf", ["碁: café, naïve, Ærø", "良い手 — good move"]),
    ("latin1.sgf", [None, "Très bien, garçon!"]),
    ("no_charset_latin1.sgf", [None, "déjà vu"]),
    ("setup.sgf", [None, "remove two, add two", None]),
]


@pytest.mark.parametrize("name,comments", COMMENTS, ids=[c[0] for c in COMMENTS])
def test_comments_are_unescaped_and_decoded(name, comments):
    assert [n.comment for n in read(name)[0].main_line()] == comments


def test_setup_point_lists_and_rectangles_expand_and_replay():
    record = read("setup.sgf")[0]
    root, second, _ = record.main_line()
    assert gtp_points(root.setup_black, 9) == "A9 B9 C9 A8 B8 C8 E5"
    assert gtp_points(root.setup_white, 9) == "G9 H9 J9 G8 H8 J8 G7 H7 J7"
    assert root.to_play == WHITE
    assert (gtp_points(second.setup_black, 9), gtp_points(second.setup_empty, 9)) == ("B7 B6", "B9 H8")
    assert record.position_at().to_ascii() == "\n".join([
        "X . X . . . O O O",
        "X X X . . . O . O",
        ". X . . . . O O O",
        ". X . O . . . . .",
        ". . . . X . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . . . . . . ."])


def test_unknown_properties_are_kept_raw_in_order():
    first, second = read("unknown_props.sgf")[0].main_line()[1:]
    assert list(first.properties.items()) == [("LB", ["cc:te\\:st", "dd:A"]), ("MN", ["7"]), ("TR", ["aa", "bb"])]
    assert list(second.properties.items()) == [("N", ["a \\] b"]), ("ZZ", ["soft\\\nbreak"])]
    point, label = split_compose(first.properties["LB"][0])
    assert (point, unescape_text(label)) == ("cc", "te:st")


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.sgf")))
def test_fixture_round_trips(name):
    records = read(name)
    text = dump_sgf(records)
    assert parse_sgf(text) == records
    assert parse_sgf(text.encode("utf-8")) == records
    assert dump_sgf(parse_sgf(text)) == text


def test_written_text_is_ff4_with_a_break_every_ten_nodes_and_before_variations():
    record = GameRecord.from_moves(9, 7.0, [(BLACK if i % 2 == 0 else WHITE, 81) for i in range(12)], black="A]")
    record.add_move(record.root, BLACK, from_gtp("E5", 9)).comment = "centre\\"
    assert dump_sgf(record) == (
        "(;FF[4]CA[UTF-8]GM[1]SZ[9]KM[7]RU[Chinese]PB[A\\]]\n"
        "(;B[];W[];B[];W[];B[];W[];B[];W[];B[];W[]\n"
        ";B[];W[])\n"
        "(;B[ee]C[centre\\\\]))\n")
    assert dump_sgf(read("collection.sgf")[:2]) == (
        "(;FF[4]CA[UTF-8]GM[1]SZ[9]KM[0]RU[Chinese]GN[first]\n"
        ";B[ee];W[cc]\n(;B[gc];W[cg]\n(;B[gg])\n(;B[gf];W[ge]))\n(;B[cf]))\n"
        "(;FF[4]CA[UTF-8]GM[1]SZ[13]KM[0]RU[Chinese]GN[second]\n;B[dd];W[jj])\n")


# ---------------------------------------------------------------------- errors
MALFORMED_FILES = [
    ("unclosed_bracket.sgf", 3, 8, "unclosed value of C: expected ']' to close this '['"),
    ("bad_coordinate.sgf", 3, 3, "bad move W[zz]: SGF point 'zz' is off a 9x9 board"),
    ("short_coordinate.sgf", 2, 3, "bad move B[a]: 'a' is not an SGF point"),
    ("stray_text.sgf", 2, 1, "expected '(' to start a game tree, found 'saved' outside any tree"),
    ("missing_semicolon.sgf", 3, 2, "expected ';' to start a node, found 'W'"),
    ("empty.sgf", 3, 1, "empty collection: expected '(' to start a game tree"),
    ("unclosed_tree.sgf", 4, 1,
     "unexpected end of input: expected ')' to close the game tree opened at line 3, column 1"),
    ("extra_paren.sgf", 1, 25, "unbalanced ')': no game tree is open here"),
    ("non_square.sgf", 2, 3, "non-square board SZ[19:9] is not supported"),
]


@pytest.mark.parametrize("name,line,column,reason", MALFORMED_FILES, ids=[m[0] for m in MALFORMED_FILES])
def test_malformed_file_names_line_column_and_expectation(name, line, column, reason):
    data = (FIXTURES / "malformed" / name).read_bytes()
    for strict in (True, False) if name not in REPAIRED_FILES else (True,):
        with pytest.raises(SgfError) as error:
            read_sgf(data, strict=strict)
        assert (error.value.line, error.value.column, error.value.reason) == (line, column, reason)
        assert str(error.value) == f"line {line}, column {column}: {reason}"


REPAIRED_FILES = {  # read leniently: file -> warnings
    "stray_text.sgf": ["line 2, column 1: text after the last game tree ('saved by an old program'): skipped"],
    "unclosed_tree.sgf": ["line 4, column 1: the file ends inside the game tree opened at line 3, column 1: "
                          "closed it"],
    "extra_paren.sgf": ["line 1, column 25: text after the last game tree (')'): skipped"],
}


@pytest.mark.parametrize("name", sorted(REPAIRED_FILES))
def test_malformed_files_that_can_be_repaired_load_with_warnings(name):
    read = read_sgf((FIXTURES / "malformed" / name).read_bytes())
    assert [str(w) for w in read.warnings] == REPAIRED_FILES[name]
    assert len(read.records) == 1


MALFORMED_TEXT = [
    ("", 1, 1, "empty collection: expected '(' to start a game tree"),
    ("()", 1, 2, "expected ';' to start a node, found ')'"),
    ("(;B[aa](;W[bb]);B[cc])", 1, 16, "expected '(' or ')' after a variation, found ';'"),
    ("(;B[aa]\n  [bb])", 2, 3, "B takes one value, found 2"),
    ("(;B)", 1, 4, "expected '[' after property B, found ')'"),
    ("(;add[aa])", 1, 3, "property identifier 'add' has no capital letter"),
    ("(;B[aa]1)", 1, 8, "expected a property, ';', '(' or ')', found '1'"),
    ("(;SZ[9]AB[tt])", 1, 10, "bad point AB[tt]: SGF point 'tt' is off a 9x9 board"),
    ("(;SZ[9]AB[aa:b])", 1, 10, "bad point AB[aa:b]: 'b' is not an SGF point"),
    ("(;SZ[26])", 1, 5, "board size 26 is not supported (expected 2 to 25)"),
    ("(;SZ[" + "9" * 5000 + "])", 1, 5, "board size '99999999999999999999'... is not supported (expected 2 to 25)"),
    ("(;SZ[9]HA[" + "9" * 5000 + "])", 1, 10, "HA expects a number of stones, found '99999999999999999999'..."),
    ("(;SZ[9]HA[x" + "9" * 400 + "])", 1, 10, "HA expects a number of stones, found 'x9999999999999999999'..."),
    ("(;SZ[19:9])", 1, 5, "non-square board SZ[19:9] is not supported"),
    ("(;SZ[nine])", 1, 5, "SZ expects a board size such as SZ[9], found 'nine'"),
    ("(;SZ[9];B[ee]W[aa][bb])", 1, 19, "W takes one value, found 2"),
    ("(;SZ[9];B[e e e])", 1, 10, "bad move B[e e e]: 'eee' is not an SGF point"),
    ("junk (no tree here)", 1, 1, "expected '(' to start a game tree, found 'junk' outside any tree"),
    ("(;GM[2])", 1, 5, "GM[2] is not a game of Go (expected GM[1])"),
    ("(;FF[5])", 1, 5, "unsupported file format FF[5] (expected 1 to 4)"),
    ("(;C[a\\]b\\\\]c])", 1, 12, "property identifier 'c' has no capital letter"),
]


@pytest.mark.parametrize("text,line,column,reason", MALFORMED_TEXT, ids=[m[0][:40] or "empty" for m in MALFORMED_TEXT])
def test_malformed_text_names_line_column_and_expectation(text, line, column, reason):
    for strict in (True, False):
        with pytest.raises(SgfError) as error:
            read_sgf(text, strict=strict)
        assert (error.value.line, error.value.column, error.value.reason) == (line, column, reason)


# (text, warnings read leniently, what the first game is then: info fields and moves)
REPAIRS = [
    ("Subject: our game (round 3)\n\n(;SZ[9];B[ee])\n-- \nAna",
     ["line 1, column 1: text before the first game tree ('Subject: our game (round 3)'): skipped",
      "line 4, column 1: text after the last game tree ('-- Ana'): skipped"], {}, "B E5"),
    ("((;SZ[9];B[ee]))", ["line 1, column 1: text before the first game tree ('('): skipped",
                          "line 1, column 16: text after the last game tree (')'): skipped"], {}, "B E5"),
    ("(;SZ[9];B[ee];W[cc]", ["line 1, column 20: the file ends inside the game tree opened at line 1, column 1: "
                            "closed it"], {}, "B E5, W C7"),
    ("(;SZ[9]C[one]\nC[two];B[ee]C[a]C[b]C[c])",
     ["line 1, column 8: C written 2 times in one node (2 times): joined them, a blank line between"], {}, "B E5"),
    ("(;GM[1]GM[1]SZ[9]PW[White][Black])",
     ["line 1, column 3: GM written 2 times in one node: kept one (all equal)",
      "line 1, column 18: PW has 2 values: kept the first, PW[White]"], {"white": "White"}, ""),
    ("(;FF[3]SZ[9]AddBlack[aa]PLayer[2])",
     ["line 1, column 13: FF[3] property names such as 'AddBlack' (2 times): read by their capital letters "
      "(AddBlack as AB)",
      "line 1, column 31: PL[2] (an old numeric colour): read as PL[W]"], {}, ""),
    ("(;SZ[]KM[]HA[two]RE[White resigns.])", ["line 1, column 5: SZ[] has no size: read as 19, the default",
                                             "line 1, column 9: KM[] has no komi: read as 0",
                                             "line 1, column 13: HA[two] is not a number of stones: read as HA[0]",
                                             "line 1, column 20: RE[White resigns.] is not an FF[4] result: "
                                             "read as RE[B+R]"], {"size": 19, "result": "B+R"}, ""),
    ("(;SZ[9x9]KM[6.5 points]RE[W+Time Over])", ["line 1, column 5: SZ[9x9] is not an SGF size: read as SZ[9]",
                                                "line 1, column 12: KM[6.5 points] is not a number: read as KM[6.5]",
                                                "line 1, column 26: RE[W+Time Over] is not an FF[4] result: "
                                                "read as RE[W+T]"], {"komi": 6.5, "result": "W+T"}, ""),
    ("(;SZ[9]RE[has adjourned.])", ["line 1, column 10: RE[has adjourned.] is not an FF[4] result: "
                                    "kept as written"], {"result": "has adjourned."}, ""),
    ("(;SZ[19];B[tt];W[\n dd ])", ["line 1, column 17: whitespace inside the point W[\n dd ]: dropped it"], {},
     "B pass, W D16"),
    ("(;SZ[9];B[ee]W[cc];B[tt]W[tt])", ["line 1, column 14: a node holds both B and W (2 times): split it in two "
                                       "nodes, in the order written"], {}, "B E5, W C7, B pass, W pass"),
    ("(;SZ[9]AB[aa:ab]AW[ab]PL[X])", ["line 1, column 19: point 'ab' is set twice in one node (AB and AW): kept AW",
                                     "line 1, column 25: PL[X] is not B or W: ignored"], {}, ""),
    ("(;SZ[9];B[ee])\n(;SZ[13];B[dd])", ["line 2, column 2: the file holds 2 games: took the first, left the others"],
     {}, "B E5"),
]


@pytest.mark.parametrize("text,warnings,fields,moves", REPAIRS, ids=[r[0][:30] for r in REPAIRS])
def test_lenient_reading_repairs_with_a_warning_and_strict_reading_refuses(text, warnings, fields, moves):
    record, found = read_sgf(text).first()
    assert [str(w) for w in found] == warnings
    for name, value in fields.items():
        assert getattr(record.info, name) == value
    assert shape(record.root, record.info.size) == moves
    if "games" not in warnings[-1]:
        with pytest.raises(SgfError):
            read_sgf(text, strict=True)


def test_root_setup_and_comments_of_repaired_nodes():
    record = read_sgf("(;SZ[9]AB[aa:ab]AW[ab]C[x]C[y])").records[0]
    assert (record.root.setup_black, record.root.setup_white, record.root.comment) == ([0], [9], "x\n\ny")


def test_written_files_need_no_repair():
    text = dump_sgf(read("collection.sgf") + read("info.sgf") + read("setup.sgf"))
    assert read_sgf(text, strict=True).warnings == []


def test_utf16_with_a_byte_order_mark():
    text = "(;CA[UTF-16]PB[José];B[ee])"
    assert parse_sgf(codecs.BOM_UTF16_LE + text.encode("utf-16-le"))[0].info.black == "José"
    assert parse_sgf(codecs.BOM_UTF16_BE + text.encode("utf-16-be"))[0].info.black == "José"


def test_a_charset_that_does_not_decode_is_a_warning():
    read = read_sgf(b"(;CA[UTF-8]PB[\xe9])")
    assert read.records[0].info.black == "é"
    assert [str(w) for w in read.warnings] == ["line 1, column 1: CA[UTF-8] does not decode the file: read it as latin-1"]


def test_illegal_moves_are_read_and_only_replay_complains():
    record = parse_sgf("(;SZ[5];B[cc];W[cc])")[0]
    assert record.moves() == [(BLACK, 12), (WHITE, 12)]
    with pytest.raises(ValueError, match=r"^move 2 \(W C3\) is illegal: occupied$"):
        record.position_at()


def test_charset_fallbacks_and_byte_order_mark():
    assert parse_sgf(b"\xef\xbb\xbf(;PB[\xc3\xa9])")[0].info.black == "é"
    assert parse_sgf("\ufeff(;PB[é])")[0].info.black == "é"
    assert parse_sgf(b"(;CA[no-such-charset]PB[\xc3\xa9])")[0].info.black == "é"
    assert parse_sgf(b"(;CA[UTF-8]PB[\xe9])")[0].info.black == "é"  # declared wrongly: latin-1
    assert parse_sgf("(;CA[ISO-8859-1]PB[é])")[0].info.black == "é"  # str input is already decoded


# (raw value, Text, SimpleText)
UNESCAPE = [
    ("a\\]b", "a]b", "a]b"),
    ("back\\\\slash", "back\\slash", "back\\slash"),
    ("soft\\\nbreak", "softbreak", "softbreak"),
    ("soft\\\r\nbreak", "softbreak", "softbreak"),
    ("two\r\nlines\rhere", "two\nlines\nhere", "two lines here"),
    ("tab\there\\\tand", "tab here and", "tab here and"),
    ("\\:colon\\x", ":colonx", ":colonx"),
]


@pytest.mark.parametrize("raw,text,simple", UNESCAPE)
def test_unescape_text(raw, text, simple):
    assert unescape_text(raw) == text and unescape_text(raw, simple=True) == simple


def test_escape_and_compose_helpers():
    assert escape_text("a]b\\c:d") == "a\\]b\\\\c:d"
    assert split_compose("aa:cc") == ("aa", "cc")
    assert split_compose("x\\:y:z\\:w") == ("x\\:y", "z\\:w")
    assert split_compose("\\\\:b") == ("\\\\", "b")
    assert split_compose("no colon\\:") is None
    assert [is_raw_value(v) for v in ("a\\]", "a]", "a\\", "a\\\\")] == [True, False, False, True]


def test_dump_refuses_what_it_cannot_write_faithfully():
    record = GameRecord.from_moves(9, 7.0, [(BLACK, 40)])
    node = record.main_line()[-1]
    for props, message in [({"N": ["a]b"]}, "not raw SGF"), ({"B": ["aa"]}, "interpreted"),
                           ({"lb": ["x"]}, "not an SGF identifier"), ({"N": []}, "has no value")]:
        node.properties = props
        with pytest.raises(ValueError, match=message):
            dump_sgf(record)
    node.properties = {}
    record.root.properties = {"N": ["x"]}
    with pytest.raises(ValueError, match="belong in info.extra"):
        dump_sgf(record)
    record.root.properties = {}
    record.info.extra = {"KM": ["5"]}
    with pytest.raises(ValueError, match="interpreted"):
        dump_sgf(record)
    record.info.extra = {}
    node.move = (BLACK, 99)
    with pytest.raises(ValueError, match="not a point"):
        dump_sgf(record)


def test_deeply_nested_variations_need_no_recursion():
    depth = 3000
    text = "(;SZ[9]" + "(;C[x]" * depth + ")" * (depth + 1)
    record = parse_sgf(text)[0]
    assert len(record.main_line()) == depth + 1
    assert parse_sgf(dump_sgf(record)) == [record]


# ---------------------------------------------------------------------- properties
SPECIAL = st.sampled_from(list("]\\:[;()\n") + ["碁", "é", "Æ", " ", "\\]", ":\\"])
TEXT = st.lists(SPECIAL | st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\t\v\f"),
                max_size=12).map("".join)
SIMPLE = TEXT.map(lambda s: s.replace("\n", " "))
KOMI = st.sampled_from([0.0, 0.5, 5.5, 6.5, 7.0, 7.5, -2.5, 375.0]) | st.floats(-1e9, 1e9)
SIZES = st.sampled_from([9, 9, 13, 19]) | st.integers(2, 19)


@st.composite
def infos(draw, size: int) -> GameInfo:
    extra = draw(st.dictionaries(st.sampled_from(["AP", "SO", "GC", "US", "XX"]),
                                 st.lists(TEXT.map(escape_text), min_size=1, max_size=2), max_size=3))
    return GameInfo(
        size=size, komi=draw(KOMI),
        rules=draw(st.sampled_from(["chinese", "japanese", "aga", "tromp-taylor", "Ing house rules"])),
        handicap=draw(st.integers(0, 9)), black=draw(SIMPLE), white=draw(SIMPLE), black_rank=draw(SIMPLE),
        white_rank=draw(SIMPLE), result=draw(st.none() | SIMPLE.filter(bool)), date=draw(SIMPLE),
        place=draw(SIMPLE), event=draw(SIMPLE), game_name=draw(SIMPLE), extra=extra)


@st.composite
def records(draw) -> GameRecord:
    """A random legal game tree: setup stones, moves and variations, comments, markup."""
    size = draw(SIZES)
    rng = draw(st.randoms(use_true_random=False))
    record = GameRecord(draw(infos(size)))
    pos = Position(size)
    for p in rng.sample(range(size * size), rng.randint(0, min(4, size * size - 1))):
        trial = pos.copy()
        trial.place(p, BLACK)
        if all(trial.liberties(q) for q in range(size * size) if trial.board[q]):
            pos = trial
            record.root.setup_black.append(p)
    nodes = [record.root]
    for _ in range(draw(st.integers(0, 30))):
        parent = nodes[-1] if rng.random() < 0.8 else rng.choice(nodes)
        here = record.position_at(parent)
        if rng.random() < 0.1:
            stones = [p for p in range(size * size) if here.board[p]]
            child = parent.add_child(Node(setup_empty=stones[:1], to_play=rng.choice([BLACK, WHITE])))
        else:
            child = record.add_move(parent, here.to_play, rng.choice(here.legal_moves() + [size * size]))
        if rng.random() < 0.3:
            child.comment = draw(TEXT)
        if rng.random() < 0.2:
            child.properties = {"N": [escape_text(draw(TEXT))], "LB": ["aa:" + escape_text(draw(TEXT))]}
        nodes.append(child)
    return record


@settings(max_examples=100, deadline=None)
@given(records())
def test_random_records_round_trip_through_sgf(record):
    for node in record.nodes():
        if not node.children:
            record.position_at(node)  # the generator made legal games
    text = dump_sgf(record)
    assert parse_sgf(text) == [record]
    assert dump_sgf(parse_sgf(text)) == text


@settings(max_examples=30, deadline=None)
@given(st.lists(records(), min_size=1, max_size=3))
def test_random_collections_round_trip_through_sgf(collection):
    text = dump_sgf(collection)
    assert parse_sgf(text.encode("utf-8")) == collection
    assert dump_sgf(parse_sgf(text)) == text

