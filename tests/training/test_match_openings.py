"""Varied, fair matches: random openings shared by each pair of games with colours
swapped (``training.match --opening``), and the search player's ``--temperature``."""

from __future__ import annotations

import json

import pytest

from engine_worker.gtp import make_player, parse_args
from tests.tiny_model import build_tiny_model
from gobuddy.go.coords import BLACK, WHITE, from_gtp
from gobuddy.go.game import Game, Ruleset
from gobuddy.go.position import Position
from gobuddy.go.sgf import parse_sgf
from training.match import main, pair_opening, parse_opening

# Two random players with FIXED seeds (the seed after the colon wins over the per-game
# one the preset adds): each plays the same moves whenever it sees the same position.
FIXED_A, FIXED_B = "ours:--random --seed 1", "ours:--random --seed 2"


def match(out, opening: str) -> list[dict]:
    assert main(["--engine-a", FIXED_A, "--engine-b", FIXED_B, "--games", "4", "--out", str(out),
                 "--max-moves", "16", "--move-timeout", "20", "--opening", opening, "--no-progress"]) == 0
    return sorted((json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()),
                  key=lambda e: e["index"])


@pytest.mark.parametrize("text, expected", [("0", (0, 0)), ("2", (2, 2)), ("2-6", (2, 6)), (" 3 ", (3, 3))])
def test_parse_opening(text, expected):
    assert parse_opening(text) == expected


@pytest.mark.parametrize("text", ["", "x", "4-2", "-1", "2-x"])
def test_bad_openings(text):
    with pytest.raises(ValueError, match="opening"):
        parse_opening(text)


@pytest.mark.parametrize("pair", range(30))
def test_openings_are_legal_off_the_first_line_capture_nothing_and_repeat(pair):
    moves = pair_opening(9, (2, 8), seed=4, pair=pair)
    assert 2 <= len(moves) <= 8 and moves == pair_opening(9, (2, 8), seed=4, pair=pair)
    board = Position(9)
    for vertex in moves:
        point = from_gtp(vertex, 9)
        assert 0 < point // 9 < 8 and 0 < point % 9 < 8, vertex
        assert board.play(point) == [], vertex
    assert pair_opening(9, (0, 0), seed=4, pair=pair) == []


def test_openings_differ_between_pairs_and_seeds():
    openings = {tuple(pair_opening(9, (2, 2), seed, pair)) for seed in range(3) for pair in range(10)}
    assert len(openings) > 25


@pytest.mark.slow
def test_paired_openings_swap_colours_and_make_every_game_distinct(tmp_path):
    a, b = "ours-random-seed-1", "ours-random-seed-2"
    # Without openings, deterministic players replay the same two games.
    plain = match(tmp_path / "plain", "0")
    assert [e["opening"] for e in plain] == [[]] * 4
    summary = json.loads((tmp_path / "plain" / "summary.json").read_text())
    assert summary["distinct_games"] == 2 and summary["opening"]["moves"] == [0, 0]

    entries = match(tmp_path / "paired", "2")
    assert [(e["index"], e["black"], e["white"]) for e in entries] == [
        (0, a, b), (1, b, a), (2, a, b), (3, b, a)]
    openings = [e["opening"] for e in entries]
    assert openings[0] == openings[1] and openings[2] == openings[3] and openings[0] != openings[2]
    assert all(len(o) == 2 for o in openings)
    for e in entries:
        (record,) = parse_sgf((tmp_path / "paired" / e["sgf"]).read_bytes())
        played = record.moves()
        assert [(c, p) for c, p in played[:2]] == [(BLACK, from_gtp(e["opening"][0], 9)),
                                                   (WHITE, from_gtp(e["opening"][1], 9))]
        assert "random opening played by neither engine" in record.info.extra["GC"][0]
    summary = json.loads((tmp_path / "paired" / "summary.json").read_text())
    assert summary["distinct_games"] == 4
    assert summary["opening"] == {"moves": [2, 2], "pairs": {"0": openings[0], "1": openings[2]}}
    # Opening moves count for nobody: every other move is one engine's genmove.
    genmoves = sum(t["moves"] for t in summary["seconds_per_move"].values())
    assert genmoves == sum(e["moves"] - len(e["opening"]) for e in entries)
    assert "4 distinct games of 4" in (tmp_path / "paired" / "summary.md").read_text()
    with pytest.raises(SystemExit, match="holds another match"):  # other openings: not the same match
        match(tmp_path / "paired", "3")


def test_temperature_options_need_the_search_and_default_to_thirty_moves():
    config = parse_args(["--model", "m.onnx", "--temperature", "1"])
    assert (config.temperature, config.temperature_moves) == (1.0, 30)
    assert parse_args(["--model", "m.onnx", "--temperature", "0.5", "--temperature-moves", "4"]).temperature_moves == 4
    assert (parse_args(["--model", "m.onnx"]).temperature, parse_args(["--model", "m.onnx"]).temperature_moves) == (0, 0)
    for argv in (["--random", "--temperature", "1"], ["--model", "m.onnx", "--temperature", "-1"]):
        with pytest.raises(SystemExit):
            parse_args(argv)


def test_temperature_varies_the_search_players_moves(tmp_path):
    model = build_tiny_model(9, blocks=1, channels=8, seed=5, name="tiny").save(tmp_path / "tiny.onnx")

    def first_moves(temperature: str) -> set[int]:
        moves = set()
        for seed in range(6):
            player = make_player(parse_args(["--model", str(model), "--visits", "24", "--seed", str(seed),
                                             "--temperature", temperature]))
            moves.add(player.genmove(Game(9), BLACK))
        return moves

    assert len(first_moves("0")) == 1
    assert len(first_moves("1")) > 1
