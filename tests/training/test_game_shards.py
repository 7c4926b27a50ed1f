"""The shard format: round trips, atomic writes, naming, validation."""

from __future__ import annotations

import gzip
import json

import pytest

from gobuddy.go.coords import CoordinateError
from gobuddy.go.position import IllegalMove
from training.game_shards import (GameSample, count_games, iter_samples, next_shard_path, ownership_grid,
                                  read_shard, replay, shard_paths, write_shard)


def sample(moves=("C3", "D3", "pass", "pass"), **fields) -> GameSample:
    base = dict(size=5, komi=0.5, moves=list(moves), result="B+4.5", winner="B", margin=4.5,
                ownership=[1, 1, 1, -1, -1] * 5, black="gnugo-5", white="pachi-1000", opening=1)
    return GameSample(**{**base, **fields})


def test_round_trip_through_a_shard(tmp_path):
    games = [sample(), sample(moves=["B2"], result="W+R", winner="W", margin=None, ownership=None,
                              reason="resign", opening=0)]
    path = tmp_path / "engine-000000.jsonl.gz"
    assert write_shard(path, games) == 2
    assert read_shard(path) == games
    assert json.loads(gzip.open(path, "rt").readline())["v"] == 1
    assert list(tmp_path.iterdir()) == [path]  # no temp file left behind
    assert ownership_grid(games[0]) == ["XXXOO"] * 5


def test_shard_names_counting_and_iteration(tmp_path):
    assert next_shard_path(tmp_path, "engine").name == "engine-000000.jsonl.gz"
    write_shard(tmp_path / "engine-000000.jsonl.gz", [sample()] * 3)
    write_shard(tmp_path / "engine-000007.jsonl.gz", [sample()])
    write_shard(tmp_path / "sgf-000000.jsonl.gz", [sample()] * 2)
    (tmp_path / ".engine-000008.jsonl.gz.123.tmp").write_text("half a shard")
    assert next_shard_path(tmp_path, "engine").name == "engine-000008.jsonl.gz"
    assert [p.name for p in shard_paths(tmp_path, "engine")] == ["engine-000000.jsonl.gz", "engine-000007.jsonl.gz"]
    assert (count_games(tmp_path, "engine"), count_games(tmp_path, "sgf"), count_games(tmp_path)) == (4, 2, 6)
    assert len(list(iter_samples(tmp_path))) == 6
    with pytest.raises(FileExistsError):
        write_shard(tmp_path / "engine-000007.jsonl.gz", [sample()])


def test_a_failed_write_leaves_nothing(tmp_path):
    def broken():
        yield sample()
        raise RuntimeError("engine crashed")

    with pytest.raises(RuntimeError):
        write_shard(tmp_path / "engine-000000.jsonl.gz", broken())
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("fields, error, message", [
    ({"ownership": [1] * 24}, ValueError, "ownership has 24 points, expected 25"),
    ({"ownership": [2] * 25}, ValueError, "values must be -1, 0 or \\+1"),
    ({"winner": "black"}, ValueError, "winner must be"),
    ({"moves": ["Z9"]}, CoordinateError, "Z9"),
    ({"opening": 9}, ValueError, "opening 9"),
    ({"size": 1}, CoordinateError, "board size"),
    ({"root_values": [0.5]}, ValueError, "root_values has 1 entries for"),
    ({"root_values": [1.5, 0.0, 0.0, 0.0]}, ValueError, "root_values must be in \\[-1, 1\\]"),
])
def test_bad_samples_are_refused(fields, error, message):
    with pytest.raises(error, match=message):
        sample(**fields)


def test_bad_lines_name_the_file_and_line(tmp_path):
    path = tmp_path / "engine-000000.jsonl.gz"
    with gzip.open(path, "wt") as out:
        out.write(sample().to_json() + "\n")
        out.write(json.dumps({"v": 99}) + "\n")
    with pytest.raises(ValueError, match="engine-000000.jsonl.gz, line 2: game sample format 99"):
        read_shard(path)


def test_replay_checks_legality():
    assert str(replay(sample())).splitlines()[2] == ". . X O ."
    with pytest.raises(IllegalMove, match="C3: occupied"):
        replay(sample(moves=["C3", "C3"], opening=0))
