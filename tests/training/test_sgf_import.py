"""``python -m training.sgf_import``: a small folder with good, odd and broken files."""

from __future__ import annotations

import pytest

from training.game_shards import iter_samples, shard_paths
from training.sgf_import import import_folder, main

# 5x5: black walls off two columns (B-column), white the rest; both pass.
WALL = ";B[bb];W[cb];B[bc];W[cc];B[bd];W[cd];B[be];W[ce];B[ba];W[ca]"
INVADE = ";B[];W[ac];B[];W[]"  # then white drops a stone at A3 ("ac") that stays there
FILES = {
    "scored.sgf": f"(;FF[4]GM[1]SZ[5]KM[0.5]PB[Ann]PW[Bob]RE[W+5.5]{WALL};B[];W[])",
    # A3 dead: the last node marks it as black territory.
    "marked.sgf": f"(;FF[4]SZ[5]KM[0.5]RE[W+5.5]{WALL}{INVADE}TB[aa][ab][ac][ad][ae]TW[ca:ee])",
    # A3 left on the board, unmarked.
    "dead-left.sgf": f"(;FF[4]SZ[5]KM[0.5]RE[W+5.5]{WALL}{INVADE})",
    # Counted as it stands, black would win: the ownership cannot be trusted.
    "wrong-count.sgf": "(;FF[4]SZ[5]KM[0.5]RE[W+5.5];B[cc];W[];B[])",
    "resigned.sgf": "(;FF[4]SZ[5]KM[0.5]RE[B+R];B[cc];W[dd])",
    "sub/collection.sgf": "(;SZ[5]RE[0];B[cc])(;SZ[9]RE[B+1];B[ee])",
    "broken.sgf": "(;FF[4]SZ[5]RE[B+R];B[cc",
    "illegal.sgf": "(;FF[4]SZ[5]RE[B+1];B[cc];W[cc])",
    "handicap.sgf": "(;FF[4]SZ[5]HA[2]AB[bb][dd]RE[W+1];W[cc])",
    "noresult.sgf": "(;FF[4]SZ[5];B[cc])",
    "twice.sgf": "(;FF[4]SZ[5]RE[B+1];B[cc];B[dd])",
    "notes.txt": "not an sgf",
}


@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "sgf"
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_import_a_folder(folder, tmp_path):
    report = import_folder(folder, tmp_path / "out", per_shard=4)
    assert report.imported == 7 and len(report.shards) == 2
    skipped = dict(report.skipped)
    assert skipped.keys() == {"broken.sgf", "illegal.sgf", "handicap.sgf", "noresult.sgf", "twice.sgf"}
    assert "does not parse: line 1" in skipped["broken.sgf"]
    assert "move 2 (W C3) is illegal: occupied" in skipped["illegal.sgf"]
    assert "handicap" in skipped["handicap.sgf"] and "no result" in skipped["noresult.sgf"]
    assert "must alternate" in skipped["twice.sgf"]
    games = {s.source: s for s in iter_samples(tmp_path / "out")}
    assert sorted(games) == ["sgf:dead-left.sgf", "sgf:marked.sgf", "sgf:resigned.sgf", "sgf:scored.sgf",
                             "sgf:sub/collection.sgf#1", "sgf:sub/collection.sgf#2", "sgf:wrong-count.sgf"]
    scored = games["sgf:scored.sgf"]
    assert (scored.black, scored.white, scored.winner, scored.margin, scored.reason) == ("Ann", "Bob", "W", -5.5, "score")
    assert scored.moves[:2] == ["B4", "C4"] and scored.moves[-2:] == ["pass", "pass"]
    assert scored.ownership == [1, 1, -1, -1, -1] * 5 and scored.ownership_source == "area" and not scored.notes
    marked = games["sgf:marked.sgf"]
    assert marked.dead == ["A3"] and marked.ownership == scored.ownership and marked.ownership_source == "sgf-territory"
    resigned = games["sgf:resigned.sgf"]
    assert (resigned.winner, resigned.margin, resigned.ownership, resigned.reason) == ("B", None, None, "resign")
    jigo = games["sgf:sub/collection.sgf#1"]
    assert (jigo.winner, jigo.margin, jigo.result) == (None, 0.0, "0")
    # A3 left on the board, unmarked: counted as it stands white still wins (by 11.5:
    # A3 and the points beside it), so the ownership stays, with a note.
    dead_left = games["sgf:dead-left.sgf"]
    assert dead_left.ownership[10] == -1 and dead_left.ownership_source == "area"
    assert dead_left.notes == ["our area count of the final position is -11.5 for black, the record says W+5.5"]
    wrong = games["sgf:wrong-count.sgf"]
    assert wrong.ownership is None and wrong.winner == "W" and "ownership dropped" in wrong.notes[-1]


def test_size_filter_refusal_and_command_line(folder, tmp_path, capsys):
    out = tmp_path / "out"
    report = import_folder(folder, out, size=9)
    assert report.imported == 1 and ("sub/collection.sgf#1", "board size 5, not 9") in report.skipped
    with pytest.raises(FileExistsError, match="already holds sgf-"):
        import_folder(folder, out)
    assert main([str(folder), "--out", str(out), "--append", "--prefix", "sgf"]) == 0
    captured = capsys.readouterr()
    assert "imported 7 games into 1 shard(s)" in captured.out
    assert "skipped broken.sgf: does not parse" in captured.err
    assert len(shard_paths(out, "sgf")) == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main([str(empty), "--out", str(tmp_path / "out2")]) == 1


def test_files_that_break_the_standard_are_repaired_and_say_so(tmp_path, capsys):
    root = tmp_path / "mail"
    root.mkdir()
    (root / "mailed.sgf").write_text("Subject: our game\n\n(;FF[4]SZ[5]KM[0.5]RE[White resigns.];B[cc];W[dd])\n")
    report = import_folder(root, tmp_path / "out")
    assert report.imported == 1
    assert report.repaired == [
        ("mailed.sgf", "line 1, column 1: text before the first game tree ('Subject: our game'): skipped"),
        ("mailed.sgf", "line 3, column 22: RE[White resigns.] is not an FF[4] result: read as RE[B+R]")]
    (sample,) = iter_samples(shard_paths(tmp_path / "out", "sgf"))
    assert (sample.winner, sample.reason) == ("B", "resign")
    assert main([str(root), "--out", str(tmp_path / "out2")]) == 0
    assert "repaired mailed.sgf: line 1, column 1: text before the first game tree" in capsys.readouterr().err
