"""GtpClient against our GTP front end, GNU Go, and scripted engines that misbehave."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from tests.training.conftest import GNUGO, needs_gnugo
from training.gtp_client import EngineFailure, EngineTimeout, GtpClient, GtpError

REPO = Path(__file__).resolve().parents[2]


def test_our_front_end_answers_and_fails_cleanly():
    with GtpClient([sys.executable, "-m", "engine_worker.gtp", "--random", "--seed", "1"], cwd=REPO, timeout=20) as engine:
        assert engine.command("name") == "Go Learning Buddy"
        engine.command("boardsize 9")
        engine.command("clear_board")
        engine.command("play B E5")
        move = engine.command("genmove w")
        assert move.lower() == "pass" or (move[0] in "ABCDEFGHJ" and move != "E5")
        with pytest.raises(GtpError, match="unknown command"):
            engine.command("no_such_command")
        board = engine.command("showboard")  # multi-line, indentation kept
        assert board.splitlines()[0] == "   A B C D E F G H J"
        assert " 5 . . . . X . . . . 5" in board
        assert engine.alive
    assert not engine.alive


@needs_gnugo
def test_gnugo_multiline_answers_and_known_command():
    with GtpClient([GNUGO, "--mode", "gtp", "--level", "1"]) as engine:
        assert engine.command("name") == "GNU Go"
        engine.command("boardsize 9")
        assert engine.known_command("final_status_list")
        assert not engine.known_command("lz-analyze")
        engine.command("play black C3")
        assert engine.command("list_stones black") == "C3"
        assert len(engine.command("showboard").splitlines()) == 11
        with pytest.raises(GtpError, match="illegal move"):
            engine.command("play white C3")


@pytest.mark.parametrize("script, exc, message", [
    ({"hang_on": "genmove"}, EngineTimeout, "no answer to 'genmove b' within 0.5 s"),
    ({"exit_on": "genmove"}, EngineFailure, "exited \\(code 3\\)"),
])
def test_broken_engine_is_killed_and_reported(scripted, script, exc, message):
    engine = GtpClient(scripted(**script), timeout=0.5)
    assert engine.command("boardsize 9") == ""
    started = time.monotonic()
    with pytest.raises(exc, match=message):
        engine.command("genmove b")
    assert time.monotonic() - started < 5
    assert not engine.alive and engine._proc.poll() is not None  # the process is gone
    with pytest.raises(EngineFailure, match="closed"):
        engine.command("name")
    engine.close()  # idempotent


def test_a_program_that_does_not_exist():
    with pytest.raises(EngineFailure, match="cannot start"):
        GtpClient(["/nonexistent/engine", "--gtp"])


def test_chatter_ids_and_a_flood_on_stderr(scripted, tmp_path):
    log = tmp_path / "logs" / "engine.log"
    argv = scripted(chatter="thinking...", id=True, stderr_bytes=200_000)
    with GtpClient(argv, stderr=log, timeout=10) as engine:
        for _ in range(5):  # 1 MB of stderr: the pipe never fills
            assert engine.command("name") == "scripted"
        assert engine.command("12 name") == "scripted"  # the id is stripped
    assert log.stat().st_size >= 1_000_000


def test_close_ends_an_engine_that_ignores_quit(scripted):
    engine = GtpClient(scripted(hang_on="quit"), timeout=5)
    engine.command("name")
    started = time.monotonic()
    engine.close(grace=0.2)
    assert time.monotonic() - started < 5
    assert engine._proc.poll() is not None


def test_commands_must_be_one_line(scripted):
    with GtpClient(scripted()) as engine:
        for bad in ("", "name\nquit"):
            with pytest.raises(ValueError, match="one non-empty line"):
                engine.command(bad)
