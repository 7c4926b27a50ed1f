"""``python -m training.match``: a short real match, its files, and resuming it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from gobuddy.go.sgf import parse_sgf
from tests.training.conftest import GNUGO, needs_gnugo
from training.match import main

pytestmark = [pytest.mark.slow, needs_gnugo]


def run(out, games, engine_b="gnugo:1"):
    return main(["--engine-a", "ours:--random", "--name-a", "ours", "--engine-b", engine_b, "--games", str(games),
                 "--out", str(out),
                 "--max-moves", "40", "--move-timeout", "20", "--gnugo", GNUGO, "--no-progress"])


def test_a_two_game_match_then_one_more(tmp_path, capsys):
    out = tmp_path / "match"
    assert run(out, 2) == 0
    entries = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert sorted((e["index"], e["black"], e["white"]) for e in entries) == [
        (0, "ours", "gnugo-1"), (1, "gnugo-1", "ours")]
    for e in entries:
        (record,) = parse_sgf((out / e["sgf"]).read_bytes())
        assert (record.info.black, record.info.white, record.info.result) == (e["black"], e["white"], e["result"])
        assert len(record.moves()) == e["moves"] <= 40
        assert e["reason"] in ("score", "move_cap", "resign")
        record.position_at()  # every move legal
    summary = json.loads((out / "summary.json").read_text())
    assert summary["games"] == 2 and summary["a_wins"] + summary["a_losses"] + summary["jigo"] == 2
    for name in ("ours", "gnugo-1"):
        timing = summary["seconds_per_move"][name]
        assert timing["moves"] > 0 and 0 <= timing["mean_s"] <= timing["max_s"] < 20
    assert "# ours vs gnugo-1" in (out / "summary.md").read_text()
    assert "Wilson 95%" in capsys.readouterr().out

    assert run(out, 3) == 0  # resume: only game 2 is played
    indices = [json.loads(line)["index"] for line in (out / "games.jsonl").read_text().splitlines()]
    assert sorted(indices) == [0, 1, 2]
    with pytest.raises(SystemExit, match="holds another match"):
        run(out, 3, engine_b="gnugo:2")


def test_command_line_help():
    done = subprocess.run([sys.executable, "-m", "training.match", "--help"], capture_output=True, text=True)
    assert done.returncode == 0 and "--engine-a" in done.stdout and "--parallel" in done.stdout
