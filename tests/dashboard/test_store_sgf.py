"""SGF export (moves exactly as played, engine comments) and all-or-nothing import."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from dashboard.store import SgfImportError
from dashboard.store.sgf_io import export_sgf
from gobuddy.go.coords import BLACK, WHITE, color_from_str, from_gtp, to_gtp
from gobuddy.go.sgf import parse_sgf
from tests.dashboard.conftest import WireGame, moves_of, send

GNUGO = shutil.which("gnugo") or "/usr/games/gnugo"

# Passes, a capture (W E6 takes E5, move 8), a white stone on the emptied point, two passes.
PLAYED = "E5 D5 pass E4 pass F5 pass E6 C3 G7 D4 E5 pass pass"


def wire_moves(game: WireGame) -> list[tuple[int, int]]:
    return [(color_from_str(c), from_gtp(v, game.size)) for _, c, v in game.moves()]


def test_an_exported_game_has_exactly_the_moves_played(store):
    game = WireGame("s1").play(PLAYED)
    game.end("B+2.5")
    send(store, *game.events)
    assert store.get_game("s1").moves[7].captures == ("E5",)
    (record,) = parse_sgf(store.export_sgf("s1", with_analysis=False))
    assert record.moves() == wire_moves(game)
    info = record.info
    assert (info.size, info.komi, info.rules, info.black, info.white, info.result, info.date) == (
        9, 7.0, "chinese", "Ana", "Ben", "B+2.5", "2026-01-09")
    assert record.position_at().board == game.pos.board


def test_export_keeps_handicap_stones_and_who_moves_first(store):
    game = WireGame("s2", setup=[("B", "C3"), ("B", "G7")], to_play="W", handicap=2).play("E5 D5 pass")
    send(store, *game.events)
    (record,) = parse_sgf(store.export_sgf("s2"))
    assert sorted(record.root.setup_black) == sorted([from_gtp("C3", 9), from_gtp("G7", 9)])
    assert record.info.handicap == 2 and record.root.to_play is None  # HA[2] already means white first
    assert record.moves() == wire_moves(game)


def test_white_first_without_handicap_is_written_as_PL(store):
    game = WireGame("s3", to_play="W").play("E5 D5")
    send(store, *game.events)
    (record,) = parse_sgf(store.export_sgf("s3"))
    assert record.root.to_play == WHITE and record.moves()[0] == (WHITE, from_gtp("E5", 9))


def reply(to_play: str, winrate_black: float, best: str, lead_black: float | None = None) -> dict:
    mine = winrate_black if to_play == "B" else 1 - winrate_black
    lead = None if lead_black is None else (lead_black if to_play == "B" else -lead_black)
    return {"to_play": to_play, "root": {"visits": 100, "winrate": mine, "winrate_black": winrate_black,
                                         "score_lead": lead},
            "moves": [{"move": best, "order": 0, "winrate": mine, "score_lead": lead, "prior": 0.5}]}


def analysed_game(store, game_id: str, moves: str, views: list[tuple[float, str, float | None]]) -> None:
    """A stored game with an analysis of each position: (black's win rate, best move, black's lead)."""
    game = WireGame(game_id).play(moves)
    send(store, *game.events)
    for n, key in store.position_keys(game_id).items():
        wb, best, lead = views[n]
        store.save_analysis(key, "m", reply(key.to_play, wb, best, lead), move_count=n)


def test_export_writes_the_review_as_comments_and_marks_mistakes(store):
    #  after n moves: black's win rate, the engine's best move, black's score lead
    analysed_game(store, "s4", "E5 D6 C3 G7", [(0.50, "E5", 0.5), (0.55, "C5", 1.0), (0.54, "C3", 0.8),
                                               (0.30, "D4", -6.0), (0.85, "F3", 8.0)])
    (record,) = parse_sgf(store.export_sgf("s4"))
    assert [node.comment for node in record.main_line()] == [
        "Win rate B 50.0% · score B+0.5 · best E5",
        "Loss 0.0 points (good) · best E5 (played) · win rate B 55.0% · score B+1.0",
        "Loss 0.0 points (good) · best C5 · win rate B 54.0% · score B+0.8",
        "Loss 6.8 points (mistake) · best C3 (played) · win rate B 30.0% · score W+6.0\n"
        "Sente: white answers at D4.\nThe engine's answer: white D4.",  # mistakes say why (issue 22)
        "Loss 14.0 points (blunder) · best D4 · win rate B 85.0% · score B+8.0\n"
        "The engine expects about 14 points more at D4 than at the move played.",
    ]
    assert [(n.properties.get("BM"), n.properties.get("DO")) for n in record.main_line()] == [
        (None, None), (None, None), (None, None), (["1"], None), (["2"], None)]
    assert "C[" not in store.export_sgf("s4", with_analysis=False)


def test_without_a_score_head_the_loss_is_in_win_rate_and_inaccuracies_are_doubtful(store):
    analysed_game(store, "s5", "E5 D6", [(0.50, "E5", None), (0.42, "C5", None), (0.38, "C3", None)])
    (record,) = parse_sgf(store.export_sgf("s5"))
    nodes = record.main_line()
    assert nodes[1].comment == ("Loss 8.0% win rate (inaccuracy) · best E5 (played) · win rate B 42.0%\n"
                                "Sente: white answers at C5.\nThe engine's answer: white C5.")
    assert nodes[1].properties.get("DO") == [""] and "BM" not in nodes[1].properties
    assert nodes[2].comment == "Loss 0.0% win rate (good) · best C5 · win rate B 38.0%"


def test_variations_are_written_as_branches_that_gnu_go_and_our_reader_load(store, tmp_path):
    analysed_game(store, "s6", "E5 D6 C3", [(0.5, "E5", 0.5), (0.55, "C5", 1.0), (0.54, "C3", 0.8),
                                            (0.30, "D4", -6.0)])
    with store.session() as s:
        text = export_sgf(s, "s6", variations={1: [[("W", "C5", "tried"), ("B", "D4")], [("W", "F4")]],
                                               3: [[("W", "D4")]]})
    (record,) = parse_sgf(text)
    line = record.main_line()
    assert [to_gtp(n.move[1], 9) for n in line[1:]] == ["E5", "D6", "C3", "D4"]  # from the end: goes on
    assert line[4].comment == "Variation (not played)" and line[3].comment.startswith("Loss 6.8 points")
    after_e5 = line[1]
    assert [to_gtp(c.move[1], 9) for c in after_e5.children] == ["D6", "C5", "F4"]
    tried = after_e5.children[1]
    assert tried.comment == "Variation (not played) · tried" and to_gtp(tried.children[0].move[1], 9) == "D4"
    assert tried.children[0].comment is None and after_e5.children[2].comment == "Variation (not played)"
    with pytest.raises(ValueError, match="from move 9"):
        with store.session() as s:
            export_sgf(s, "s6", variations={9: [[("B", "A1")]]})
    if not shutil.which(GNUGO):
        pytest.skip("gnugo is not installed")
    path = tmp_path / "review.sgf"
    path.write_text(text)
    done = subprocess.run([GNUGO, "--mode", "gtp"], input=f"loadsgf {path}\nlist_stones black\n"
                          "list_stones white\nquit\n", capture_output=True, text=True, timeout=60)
    replies = [r for r in done.stdout.split("\n\n") if r.strip()]
    assert replies[0].startswith("= black"), done.stdout  # the main line to its end: black to move
    assert sorted(replies[1][2:].split()) == ["C3", "E5"] and sorted(replies[2][2:].split()) == ["D4", "D6"]


TWO_GAMES = ("(;GM[1]FF[4]SZ[9]KM[6.5]RU[Japanese]PB[Sai]PW[Akira]BR[3d]DT[2020-05-01]GN[Final]RE[W+R]"
             ";B[ee];W[cc];B[gc]C[a comment];W[])"
             "(;SZ[9]HA[2]AB[cg][gc]KM[0.5];W[ee](;B[dd])(;B[ff]))")


def test_import_stores_every_game_of_the_file(store):
    ids = store.import_sgf(TWO_GAMES.encode())
    assert len(ids) == 2 and all(i.startswith("sgf-") for i in ids)
    first, second = (store.get_game(i) for i in ids)
    g = first.game
    assert (g.source, g.mode, g.black, g.white, g.result, g.rules, g.komi, g.name, g.started_at.year) == (
        "sgf", "imported", "Sai", "Akira", "W+R", "japanese", 6.5, "Final", 2020)
    assert [(m.color, m.vertex) for m in first.moves] == [("B", "E5"), ("W", "C7"), ("B", "G7"), ("W", "pass")]
    assert second.setup == (("B", "C3"), ("B", "G7")) and second.game.to_play == "W"
    assert [(m.color, m.vertex) for m in second.moves] == [("W", "E5"), ("B", "D6")]  # main line only


def test_importing_the_same_file_twice_stores_it_once(store):
    ids = store.import_sgf(TWO_GAMES)
    assert store.import_sgf(TWO_GAMES) == ids
    assert store.list_games().total == 2
    store.delete_game(ids[0])
    assert store.import_sgf(TWO_GAMES) == ids and store.list_games().total == 2


def test_export_then_import_gives_the_same_moves(store):
    game = WireGame("s5", setup=[("B", "G3")], handicap=0).play(PLAYED)
    send(store, *game.events)
    (new_id,) = store.import_sgf(store.export_sgf("s5"))
    assert [(c, v) for _, c, v in moves_of(store, new_id)] == [(c, v) for _, c, v in game.moves()]
    assert store.get_game(new_id).setup == (("B", "G3"),)
    # The other way round: an imported game exports to the same moves and info.
    (record,) = parse_sgf(store.export_sgf(store.import_sgf(TWO_GAMES)[0]))
    (original, _) = parse_sgf(TWO_GAMES)
    assert record.moves() == original.moves()
    assert (record.info.black_rank, record.info.date, record.info.game_name) == ("3d", "2020-05-01", "Final")


GOOD = "(;SZ[9];B[ee])"
# (name, file, words of the error)
BAD_FILES = [
    ("empty", "", "not a valid SGF file: line 1, column 1: empty collection"),
    ("unclosed value", GOOD + "(;SZ[9];C[ee", "line 1, column 24: unclosed value of C"),
    ("illegal move", GOOD + "(;SZ[9];B[ee];W[ee])", "game 2 of 2: move 2 (W E5) is illegal: occupied"),
    ("setup later", GOOD + "(;SZ[9];B[ee];AB[aa])", "game 2 of 2: setup stones after move 1 are not supported"),
    ("long name", GOOD + "(;SZ[9]PB[" + "x" * 65 + "])", "game 2 of 2: black 'xxx"),
    ("off board", "(;SZ[9];B[kk])", "line 1, column 10: bad move B[kk]: SGF point 'kk' is off"),
    ("dead setup", "(;SZ[9]AB[aa]AW[ba][ab])", "the game: setup before the first move: the chain at A9 has no liberties"),
    ("size of 5,000 digits", "(;SZ[" + "9" * 5000 + "])", "line 1, column 5: board size '99999999999999999999'..."),
    ("handicap of 400 digits", "(;SZ[9]HA[" + "9" * 400 + "];B[ee])", "line 1, column 10: HA expects a number"),
]


@pytest.mark.parametrize("name, text, error", BAD_FILES, ids=[case[0] for case in BAD_FILES])
def test_a_file_with_any_error_imports_nothing(store, name, text, error):
    with pytest.raises(SgfImportError) as caught:
        store.import_sgf(text.encode())
    assert error in str(caught.value)
    assert store.list_games().total == 0


def test_a_file_that_breaks_the_standard_imports_with_what_was_repaired(store):
    text = ("From: ana@example.org\n\n(;GM[1]GM[1]SZ[9]PB[Ana]C[a]C[b];AB[aa][ba]AW[ca]PL[W];W[dd];B[ee])\n"
            "(;SZ[9];B[cc])")
    done = store.import_sgf_file(text)
    assert done.warnings == [
        "line 1, column 1: text before the first game tree ('From: ana@example.org'): skipped",
        "line 3, column 3: GM written 2 times in one node: kept one (all equal)",
        "line 3, column 25: C written 2 times in one node: joined them, a blank line between",
        "game 1 of 2: setup after the root, before the first move: folded into the start"]
    detail = store.get_game(done.ids[0])
    assert sorted(detail.setup) == [("B", "A9"), ("B", "B9"), ("W", "C9")]
    assert [(m.color, m.vertex) for m in detail.moves] == [("W", "D6"), ("B", "E5")]
    assert store.import_sgf(text) == done.ids


def test_colours_in_the_sgf_need_not_alternate(store):
    (game_id,) = store.import_sgf("(;SZ[9];B[ee];B[dd])")
    assert [m.color for m in store.get_game(game_id).moves] == ["B", "B"]
    assert [c for c, _ in parse_sgf(store.export_sgf(game_id))[0].moves()] == [BLACK, BLACK]


KIBITZED = ("(;GM[1]FF[4]SZ[9]KM[7]PB[Sai]PW[Akira]C[A friendly game]"
            ";B[ee]C[Black takes the centre](;W[cc];B[gc]C[a comment](;W[cg])(;W[gg]C[better?];B[cg]))"
            "(;W[gg]C[the other corner];B[cc])(;AB[aa];W[bb])(;W[ee]))")


def test_imported_comments_and_variations_are_kept_and_written_back(store):
    done = store.import_sgf_file(KIBITZED)
    (game_id,) = done.ids
    extra = store.get_game(game_id).extra
    assert extra["comments"] == {"0": "A friendly game", "1": "Black takes the centre", "3": "a comment"}
    assert extra["variations"] == {
        "1": [[["W", "G3", "the other corner"], ["B", "C7", None]]],
        "3": [[["W", "G3", "better?"], ["B", "C3", None]]]}
    assert any("sets up stones" in w for w in done.warnings) and any("illegal" in w for w in done.warnings)
    assert [m.vertex for m in store.get_game(game_id).moves] == ["E5", "C7", "G7", "C3"]
    (record,) = parse_sgf(store.export_sgf(game_id))
    line = record.main_line()
    assert [n.comment for n in line] == ["A friendly game", "Black takes the centre", None, "a comment", None]
    assert [to_gtp(c.move[1], 9) for c in line[1].children] == ["C7", "G3"]
    corner = line[1].children[1]
    assert corner.comment == "Variation (not played) · the other corner"
    assert to_gtp(corner.children[0].move[1], 9) == "C7"
    assert [to_gtp(c.move[1], 9) for c in line[3].children] == ["C3", "G3"]
    again = store.import_sgf_file(store.export_sgf(game_id, with_analysis=False))
    assert again.ids == [game_id]  # the same game: stored once


# Black walls in three white stones (D5 E5 F5, in atari at G5 after move 13); white plays
# elsewhere; black's move 15, C8, misses the capture.
CAPTURE = "D4 D5 E4 E5 F4 F5 D6 A1 E6 A2 F6 A3 C5 J9 C8"


def test_a_mistakes_comment_says_why_and_gnu_go_still_loads_the_file(store, tmp_path):
    views = [(0.5, "H8", 2.0)] * 13 + [(0.9, "G5", 15.0), (0.9, "G5", 15.0), (0.5, "G5", 2.0)]
    analysed_game(store, "s7", CAPTURE, views)
    text = store.export_sgf("s7")
    (record,) = parse_sgf(text)
    nodes = record.main_line()
    assert nodes[15].comment == ("Loss 13.0 points (blunder) · best G5 · win rate B 50.0% · score B+2.0\n"
                                 "The engine expects about 13 points more at G5 than at the move played.\n"
                                 "Best G5: Captures 3 stones at D5 E5 F5.")
    assert [n.properties.get("BM") for n in nodes].count(["2"]) == 1  # only C8 is marked: only it says why
    assert sum("Best G5" in (n.comment or "") for n in nodes) == 1
    if not shutil.which(GNUGO):
        pytest.skip("gnugo is not installed")
    path = tmp_path / "why.sgf"
    path.write_text(text)
    done = subprocess.run([GNUGO, "--mode", "gtp"], input=f"loadsgf {path}\nlist_stones white\nquit\n",
                          capture_output=True, text=True, timeout=60)
    replies = [r for r in done.stdout.split("\n\n") if r.strip()]
    assert replies[0].startswith("= white"), done.stdout  # all 15 moves loaded: white to move
    assert sorted(replies[1][2:].split()) == ["A1", "A2", "A3", "D5", "E5", "F5", "J9"]


def test_a_comments_reasons_are_bounded():
    from dashboard.store.sgf_comments import MAX_REASONS, MAX_WHY, why_comment
    from gobuddy.explain import Reason

    many = [Reason("capture", f"captures {i} stones at " + "D4 " * 100, f"{i}") for i in range(10)]
    few = [Reason("capture", f"captures {i} stones at D4", f"{i}") for i in range(5)]
    short = why_comment(few, [], None)
    assert short.splitlines() == [f"Captures {i} stones at D4." for i in range(MAX_REASONS)]
    text = why_comment(many, many, "D4")
    assert MAX_WHY - 2 <= len(text) <= MAX_WHY and text.endswith("…")
    assert why_comment([], [], "D4") == "" and why_comment([], many[:1], "E5").startswith("Best E5: Captures 0")
