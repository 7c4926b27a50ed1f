"""Where a player's lost games turned (``training.turning_points``): the turning points of
a game's win rates as a table, which games count as lost, and a run over SGF files with a
small real model as the judge."""

from __future__ import annotations

import json

import pytest

from gobuddy.go.coords import BLACK, WHITE, from_gtp
from gobuddy.go.record import GameRecord
from gobuddy.go.sgf import dump_sgf
from tests.tiny_model import build_tiny_model
from training.turning_points import Rate, lost, main, player_colour, turn_of

# (the player's win rates before its moves: move number, rate, move played; below) ->
# (start, first move below, largest drop, the move it fell after)
TURNS = [
    ([(1, 0.5, "E5"), (3, 0.45, "C3"), (5, 0.2, "G7"), (7, 0.1, "D4")], 0.25, (0.5, 5, 0.25, 3)),
    ([(2, 0.5, "E5"), (4, 0.6, "C3"), (6, 0.55, "G7")], 0.25, (0.5, None, 0.05, 4)),  # never below
    ([(2, 0.2, "E5"), (4, 0.3, "C3")], 0.25, (0.2, 2, -0.1, 2)),  # lost from the start; it only rose
    ([(1, 0.9, "E5"), (3, 0.3, "C3"), (5, 0.29, "G7")], 0.3, (0.9, 5, 0.6, 1)),  # below means strictly below
    ([(1, 0.4, "E5")], 0.25, (0.4, None, None, None)),  # one move: no drop
    ([], 0.25, (None, None, None, None)),
]


@pytest.mark.parametrize("rates, below, expected", TURNS)
def test_a_games_turning_points(rates, below, expected):
    turn = turn_of("g.sgf", "B", "W+R", 60, [Rate(*r) for r in rates], below)
    got = (turn.start, turn.turn, None if turn.drop is None else round(turn.drop, 6), turn.drop_move)
    assert got == expected
    if turn.drop_move is not None:
        assert turn.drop_played == next(r[2] for r in rates if r[0] == turn.drop_move)


# (RE, the player's colour, lost?)
RESULTS = [("W+R", "B", True), ("W+3.5", "B", True), ("B+R", "B", False), ("b+12", "W", True),
           ("0", "B", False), ("Void", "W", False), ("", "B", False), (None, "W", False), ("W+", "W", False)]


@pytest.mark.parametrize("result, colour, expected", RESULTS)
def test_which_results_are_losses(result, colour, expected):
    assert lost(result, colour) is expected


def test_the_players_colour_by_name():
    assert [player_colour("a", "b", name) for name in ("a", "b", "c")] == ["B", "W", None]


def write_game(folder, name, black, white, result, moves):
    line = [(BLACK if i % 2 == 0 else WHITE, from_gtp(v, 9)) for i, v in enumerate(moves)]
    record = GameRecord.from_moves(9, 7.0, line, black=black, white=white, result=result)
    (folder / name).write_text(dump_sgf(record), encoding="utf-8")


MOVES = "E5 C3 G7 D4 C6 F3 E3 E4 D3 F4".split()


@pytest.fixture
def match(tmp_path):
    """A match folder: ours lost game 0 as black, won game 1 as white; game 2 is not ours."""
    folder = tmp_path / "match"
    folder.mkdir()
    write_game(folder, "game-0000.sgf", "ours", "them", "W+R", MOVES)
    write_game(folder, "game-0001.sgf", "them", "ours", "W+4", MOVES[:7])
    write_game(folder, "game-0002.sgf", "x", "y", "B+R", MOVES)
    model = build_tiny_model(size=9, blocks=1, channels=8, seed=5, name="tiny-judge")
    return folder, str(model.save(tmp_path / "judge.onnx"))


def test_a_run_searches_each_of_the_players_moves_in_its_lost_games(match, tmp_path, capsys):
    folder, judge = match
    out = tmp_path / "out"
    assert main(["--games", str(folder), "--player", "ours", "--model", judge, "--visits", "8",
                 "--out", str(out), "--no-progress"]) == 0
    found = json.loads((out / "turning_points.json").read_text())
    assert [g["game"] for g in found["games"]] == ["game-0000.sgf"]  # its loss only
    game = found["games"][0]
    assert (game["colour"], game["result"], game["moves"]) == ("B", "W+R", 10)
    assert 0 <= game["start"] <= 1 and game["drop_move"] in (1, 3, 5, 7)  # one of black's five moves
    assert (out / "turning_points.png").stat().st_size > 0
    assert "| game-0000.sgf | B | W+R | 10 |" in capsys.readouterr().out

    assert main(["--games", str(folder), "--player", "ours", "--model", judge, "--visits", "8", "--all",
                 "--out", str(out), "--no-progress"]) == 0
    everything = json.loads((out / "turning_points.json").read_text())["games"]
    assert [(g["game"], g["colour"]) for g in everything] == [("game-0000.sgf", "B"), ("game-0001.sgf", "W")]
    assert everything[0] == game  # seeded: the same figures every run


def test_a_player_in_no_game_and_a_judge_of_another_size_are_named(match, tmp_path, capsys):
    folder, _ = match
    assert main(["--games", str(folder), "--player", "nobody", "--no-progress"]) == 2
    assert "no game in" in capsys.readouterr().out
    small = str(build_tiny_model(size=5, blocks=1, channels=8, seed=6, name="tiny-5").save(tmp_path / "five.onnx"))
    assert main(["--games", str(folder), "--player", "ours", "--model", small, "--no-progress"]) == 2
    assert "not the games' 9x9" in capsys.readouterr().out


@pytest.mark.parametrize("options, message", [
    (["--visits", "0"], "--visits must be at least 1"),
    (["--below", "1"], "--below must be between 0 and 1"),
    (["--model", "/nonexistent.onnx"], "no such file"),
])
def test_options_are_checked(match, options, message, capsys):
    folder, _ = match
    with pytest.raises(SystemExit):
        main(["--games", str(folder), "--player", "ours", *options])
    assert message in capsys.readouterr().err
