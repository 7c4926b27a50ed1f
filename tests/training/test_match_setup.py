"""``training.match`` refuses to score a match whose engine cannot start or set up a game.

A missing program or model is a broken harness, not a lost game: before, every game
was a forfeit and the other engine's row read 100%.
"""

from __future__ import annotations

import json
import shlex
import stat
import sys

import pytest

from tests.training.conftest import SCRIPTED
from training.engine_spec import parse_engine
from training.gtp_game import GameRules
from training.match import MatchConfig, check_engines, main


def command(argv: list[str]) -> str:
    return " ".join(shlex.quote(a) for a in argv)


def match(out, engine_a: str, engine_b: str, games: int = 2) -> int:
    return main(["--engine-a", engine_a, "--name-a", "a", "--engine-b", engine_b, "--name-b", "b",
                 "--games", str(games), "--out", str(out), "--max-moves", "6", "--move-timeout", "20",
                 "--opening", "0", "--no-progress"])


@pytest.mark.parametrize("broken, said", [
    ("/nonexistent/engine", "cannot start"),                                      # no such program
    ("ours:--model /nonexistent/model.onnx", "model file /nonexistent/model.onnx does not exist"),
    ("exit_on=boardsize", "engine 'b' cannot set up a 9x9 game"),                 # dies when asked
    ("refuse=boardsize", "engine 'b' cannot set up a 9x9 game"),                  # answers ? to boardsize
])
def test_an_engine_that_cannot_set_up_stops_the_match_before_anything_is_written(
        tmp_path, scripted, capsys, broken, said):
    if broken.startswith("exit_on="):
        broken = command(scripted("b", exit_on=broken.split("=")[1]))
    elif broken.startswith("refuse="):
        broken = command(scripted("b", unknown=[broken.split("=")[1]]))
    out = tmp_path / "match"
    assert match(out, command(scripted("a")), broken) == 2
    error = capsys.readouterr().err
    assert said in error and "'b'" in error
    assert not out.exists()  # no games, no summary: nothing to mistake for a result


def test_a_healthy_pair_passes_the_check(tmp_path, scripted):
    rules = GameRules(size=13, komi=6.5)
    config = MatchConfig(parse_engine(command(scripted("a")), name="a"), parse_engine(command(scripted("b")), name="b"),
                         tmp_path / "m", games=2, rules=rules)
    check_engines(config)  # raises when either cannot set up a 13x13 game


def test_an_engine_lost_mid_match_stops_it_and_keeps_the_finished_games(tmp_path, scripted, capsys):
    # A wrapper that works for the check and the first game, then deletes itself:
    # the third start finds no program.
    wrapper = tmp_path / "vanishing-engine"
    argv = scripted("b")
    wrapper.write_text("#!/bin/sh\n"
                       f"n=$(cat {tmp_path}/starts 2>/dev/null || echo 0); echo $((n + 1)) > {tmp_path}/starts\n"
                       f'[ "$n" -ge 1 ] && rm -f "$0"\n'
                       f"exec {command(argv)}\n")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    out = tmp_path / "match"
    assert match(out, command(scripted("a")), str(wrapper), games=4) == 2
    assert "game 1" in capsys.readouterr().err
    entries = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert [e["index"] for e in entries] == [0] and entries[0]["reason"] != "forfeit"
    assert json.loads((out / "summary.json").read_text())["games"] == 1


def test_a_finished_match_is_reported_without_starting_its_engines(tmp_path, scripted, capsys):
    out = tmp_path / "match"
    engine_b = tmp_path / "engine-b"
    engine_b.write_text(f"#!/bin/sh\nexec {command([sys.executable, str(SCRIPTED), str(tmp_path / 'b.json')])}\n")
    (tmp_path / "b.json").write_text(json.dumps({"name": "b"}))
    engine_b.chmod(engine_b.stat().st_mode | stat.S_IEXEC)
    assert match(out, command(scripted("a")), str(engine_b)) == 0
    engine_b.unlink()  # the engine is gone; its finished match still reads back
    assert match(out, command(scripted("a")), str(engine_b)) == 0
    assert "| 2 |" in capsys.readouterr().out
