"""``python -m training.engine_games``: mix parsing, openings, a tiny run and its resumption."""

from __future__ import annotations

import random

import pytest

from gobuddy.go.coords import from_gtp
from tests.training.conftest import GNUGO, needs_gnugo
from training.engine_games import Player, main, parse_mix, random_opening
from training.game_shards import iter_samples, replay, shard_paths


@pytest.mark.parametrize("text, players", [
    ("gnugo:5-10", [Player("gnugo", 5, 10)]),
    ("gnugo:7,pachi:1000-3000*2.5", [Player("gnugo", 7, 7), Player("pachi", 1000, 3000, 2.5)]),
])
def test_parse_mix(text, players):
    assert parse_mix(text) == players


@pytest.mark.parametrize("text, message", [
    ("leela:5", "KIND:LOW"), ("gnugo:9-3", "LOW <= HIGH"), ("gnugo:5-12", "levels run from 0 to 10"),
    ("pachi:100-2000", "at least 500"), ("", "empty"),
])
def test_bad_mixes(text, message):
    with pytest.raises(ValueError, match=message):
        parse_mix(text)


def test_pachi_playouts_are_drawn_in_hundreds():
    rng = random.Random(1)
    values = [Player("pachi", 1000, 3000).draw(rng) for _ in range(50)]
    assert all(1000 <= v <= 3000 and v % 100 == 0 for v in values) and len(set(values)) > 5


@pytest.mark.parametrize("seed", range(20))
def test_random_openings_stay_off_the_first_line(seed):
    moves = random_opening(9, 6, random.Random(seed))
    assert len(moves) == 6 and len(set(moves)) == 6
    for vertex in moves:
        row, col = divmod(from_gtp(vertex, 9), 9)
        assert 0 < row < 8 and 0 < col < 8


@pytest.mark.slow
@needs_gnugo
def test_two_tiny_games_then_resume(tmp_path, capsys):
    out = tmp_path / "games"
    args = ["--out", str(out), "--mix", "gnugo:1", "--workers", "2", "--per-shard", "1", "--max-moves", "40",
            "--opening", "2-4", "--seed", "5", "--gnugo", GNUGO, "--finisher", "none", "--no-progress"]
    assert main(["--games", "2", *args]) == 0
    assert len(shard_paths(out, "engine")) == 2
    assert main(["--games", "3", *args]) == 0
    assert "added 1 games; 3 in" in capsys.readouterr().out
    samples = list(iter_samples(out))
    assert len(samples) == 3 and len({tuple(s.moves) for s in samples}) == 3
    for s in samples:
        assert (s.size, s.komi, s.black, s.white, s.source) == (9, 7.0, "gnugo-1", "gnugo-1", "engine")
        assert 2 <= s.opening <= 4 and s.reason in ("score", "move_cap") and len(s.moves) <= 40
        assert len(s.ownership) == 81 and s.winner == ("B" if s.margin > 0 else "W" if s.margin < 0 else None)
        replay(s)


def test_an_engine_that_never_starts_stops_the_run(tmp_path, capsys):
    out = tmp_path / "games"
    assert main(["--games", "50", "--out", str(out), "--mix", "gnugo:1", "--gnugo", "/nonexistent/gnugo",
                 "--workers", "2", "--no-progress"]) == 1
    assert "10 games in a row were dropped" in capsys.readouterr().err
    assert shard_paths(out) == []
