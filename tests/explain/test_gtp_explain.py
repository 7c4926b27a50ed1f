"""``gobuddy-explain`` on a ``GtpEngine`` in process (rules only with the random
player; with the shipped model, the judged reasons too), and once through the real
front end ``python -m engine_worker.gtp`` (skipped until its ``main`` registers it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engine_worker.gtp_explain import register
from engine_worker.gtp_engine import GtpEngine
from gobuddy.go.game import Game
from gobuddy.go.playout import RandomPlayer

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "models" / "gobuddy-9x9.onnx"
# White's D4 E4 E5 inside black's stones: black E6 captures all three.
SETUP = ["play B C4", "play B D3", "play B E3", "play B F4", "play B F5", "play B D5",
         "play W D4", "play W E4", "play W E5"]


def answer(engine: GtpEngine, line: str) -> str:
    return engine.shell.execute(line).rstrip("\n").rstrip(" ")


@pytest.fixture
def rules_engine() -> GtpEngine:
    engine = GtpEngine(RandomPlayer(seed=1), Game(9))
    register(engine, engine.player)
    for line in SETUP:
        assert answer(engine, line) == "="
    return engine


def test_capture_line_kind_first(rules_engine) -> None:
    assert answer(rules_engine, "gobuddy-explain B E6") == "= capture 3 stones at D4 E4 E5"


def test_a_colour_out_of_turn_and_an_id(rules_engine) -> None:
    assert answer(rules_engine, "7 gobuddy-explain black E6") == "=7 capture 3 stones at D4 E4 E5"
    assert answer(rules_engine, "gobuddy-explain W E6").startswith("= save the group at E5 from atari (3 stones)")


@pytest.mark.parametrize("line,error", [
    ("gobuddy-explain B", "? syntax error"),
    ("gobuddy-explain B E6 E7", "? syntax error"),
    ("gobuddy-explain X E6", "? syntax error"),
    ("gobuddy-explain B I5", "? syntax error"),
    ("gobuddy-explain B K5", "? syntax error"),
    ("gobuddy-explain B E10", "? syntax error"),
    ("gobuddy-explain B D4", "? illegal move"),
])
def test_errors_in_gtp_words(rules_engine, line: str, error: str) -> None:
    assert answer(rules_engine, line) == error


def test_an_illegal_ko_retake_is_an_illegal_move() -> None:
    engine = GtpEngine(RandomPlayer(seed=1), Game(9))
    register(engine, engine.player)
    for line in ["play B D6", "play B C5", "play B D4", "play W E6", "play W F5", "play W E4", "play W D5",
                 "play B E5"]:
        assert answer(engine, line) == "="
    assert answer(engine, "gobuddy-explain W D5") == "? illegal move"
    assert answer(engine, "gobuddy-explain B D5").startswith("= ko fills the ko at D5")


def test_nothing_to_say_is_an_empty_success(rules_engine) -> None:
    assert answer(rules_engine, "gobuddy-explain B C7") == "="
    assert answer(rules_engine, "gobuddy-explain B pass") == "="


def test_other_board_sizes(rules_engine) -> None:
    assert answer(rules_engine, "boardsize 13") == "="
    for line in ["play W A7", "play B A8", "play B B7"]:
        assert answer(rules_engine, line) == "="
    assert answer(rules_engine, "gobuddy-explain B A6") == "= capture 1 stone at A7"


def test_the_command_is_listed(rules_engine) -> None:
    assert "gobuddy-explain" in answer(rules_engine, "list_commands").split()
    assert answer(rules_engine, "known_command gobuddy-explain") == "= true"


@pytest.mark.skipif(not MODEL.exists(), reason="the shipped model is not in this checkout")
def test_with_the_shipped_model_the_judged_reasons_join() -> None:
    from engine_worker.gtp import GtpConfig, make_player

    player = make_player(GtpConfig(models=(str(MODEL),), visits=50, threads=1))
    engine = GtpEngine(player, Game(9))
    register(engine, player, visits=60)
    for line in SETUP:
        assert answer(engine, line) == "="
    good = answer(engine, "gobuddy-explain B E6").removeprefix("= ").splitlines()
    assert good[0] == "capture 3 stones at D4 E4 E5"
    bad = answer(engine, "gobuddy-explain B A1").removeprefix("= ").splitlines()
    kinds = [line.split()[0] for line in bad]
    assert "territory" in kinds, bad
    lost = next(line for line in bad if line.startswith("territory"))
    assert "more at E6 than at the move played" in lost and float(lost.split()[2]) >= 5, lost
    assert answer(engine, "genmove B") == "= E6"  # genmove's own search is untouched


FRONT_END_WIRED = "gtp_explain" in (ROOT / "engine_worker" / "gtp.py").read_text(encoding="utf-8")


@pytest.mark.skipif(not FRONT_END_WIRED, reason="engine_worker/gtp.py main() does not register gobuddy-explain yet")
def test_the_real_front_end_answers() -> None:
    script = "\n".join([*SETUP, "gobuddy-explain B E6", "gobuddy-explain B D4", "gobuddy-explain B Z1", "quit"]) + "\n"
    done = subprocess.run([sys.executable, "-m", "engine_worker.gtp", "--random"], cwd=ROOT, input=script,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    answers = done.stdout.split("\n\n")
    assert answers[len(SETUP):len(SETUP) + 3] == ["= capture 3 stones at D4 E4 E5", "? illegal move", "? syntax error"]
