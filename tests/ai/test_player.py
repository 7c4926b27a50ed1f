"""The search player through the real GTP engine: genmove, reg_genmove, pass and resign
manners, kgs-genmove_cleanup and lz-analyze (shell.execute, no subprocess)."""

from __future__ import annotations

import re

import pytest

from gobuddy.ai.evaluator import TrompTaylorEvaluator
from gobuddy.ai.onnx_evaluator import OnnxEvaluator
from gobuddy.ai.player import PlayerConfig, SearchPlayer, cleanup_candidates
from gobuddy.go.coords import BLACK, from_gtp, to_gtp
from engine_worker.gtp_engine import GtpEngine
from engine_worker.gtp_manners import register_player
from gobuddy.go.game import Game, Ruleset
from gobuddy.go.position import Position

from .boards import EYES, ONE_DAME

INFO = re.compile(r"info move (\S+) visits (\d+) winrate (\d+) prior (\d+) lcb (\d+) order (\d+) pv ((?:\S+ ?)+?)"
                  r"(?= info move|$)")


def engine_on(board: str, komi: float, evaluator=None, **config) -> GtpEngine:
    """A GTP engine whose board holds ``board``, built with ``play`` commands."""
    rows = [r.split() for r in board.strip().splitlines()]
    size = len(rows)
    player = SearchPlayer(evaluator or TrompTaylorEvaluator(komi), PlayerConfig(**{"visits": 300, **config}))
    engine = GtpEngine(player, Game(size, Ruleset("chinese", komi)))
    register_player(engine, player)
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch in "XO":
                vertex = to_gtp(r * size + c, size)
                assert ask(engine, f"play {'B' if ch == 'X' else 'W'} {vertex}") == ""
    return engine


def ask(engine: GtpEngine, command: str) -> str:
    """The response text of one command; raises on a failure response."""
    out = engine.shell.execute(command)
    assert out.startswith("="), f"{command!r} failed: {out!r}"
    return out[1:].strip()


@pytest.mark.parametrize("name, board, komi, commands, expected", [
    ("the only winning move", ONE_DAME, 4.5, ["genmove B"], "C5"),
    ("behind after a pass: play on", ONE_DAME, 4.5, ["play W pass", "genmove B"], "C5"),
    ("over and won after a pass: pass", EYES, 0.5, ["play W pass", "genmove B"], "pass"),
    ("lost, only own eyes left: no eye filling", EYES, 10.5, ["play W pass", "genmove B"], "pass"),
    ("cleanup: nothing left to capture", EYES, 0.5, ["kgs-genmove_cleanup B"], "pass"),
])
def test_move_table(name, board, komi, commands, expected):
    engine = engine_on(board, komi)
    answers = [ask(engine, c) for c in commands]
    assert answers[-1] == expected, name


def test_genmove_plays_and_reg_genmove_does_not():
    engine = engine_on(ONE_DAME, 4.5)
    assert ask(engine, "reg_genmove B") == "C5"
    assert engine.game.position.board[from_gtp("C5", 5)] == 0
    assert ask(engine, "genmove B") == "C5"
    assert engine.game.position.board[from_gtp("C5", 5)] == BLACK


def test_resigns_after_repeated_hopeless_values_only():
    engine = engine_on(EYES, 0.5, resign_threshold=-0.6, resign_after=2, visits=50)  # white: q about -0.74
    assert ask(engine, "reg_genmove W") != "resign"
    assert ask(engine, "reg_genmove W") == "resign"
    calm = engine_on(EYES, 0.5, resign_threshold=None, visits=50)
    assert ask(calm, "reg_genmove W") != "resign" and ask(calm, "reg_genmove W") != "resign"


def test_cleanup_plays_on_while_dead_stones_remain():
    board = """
    . . . X O . .
    . . . X O . .
    . . . X O . .
    . O . X O . .
    . . . X O . .
    . . . X O . .
    . . . X O . .
    """
    engine = engine_on(board, 0.5, visits=100)
    ask(engine, "play W pass")
    move = ask(engine, "kgs-genmove_cleanup B")
    assert move != "pass" and engine.game.position.board[from_gtp(move, 7)] == BLACK


def test_cleanup_candidates_skip_eyes_and_big_self_ataris():
    pos = Position.from_ascii("""
    . . . . .
    O O O . .
    X X O . .
    . O O . .
    . . . . .
    """)
    candidates = {to_gtp(p, 5) for p in cleanup_candidates(pos)}
    assert "A2" not in candidates       # A3-B3 plus A2 would have one liberty
    assert {"A1", "E5", "D3"} <= candidates
    assert cleanup_candidates(Position.from_ascii(EYES)) == set()


def test_lz_analyze_streams_info_lines(tiny5):
    _, path = tiny5
    engine = engine_on(ONE_DAME, 4.5)
    out = engine.shell.execute("lz-analyze B 5")
    assert out.startswith("=\n") and out.endswith("\n\n")
    lines = [ln for ln in out.splitlines()[1:] if ln]
    assert lines
    moves = INFO.findall(lines[-1])
    assert moves and moves[0][0] == "C5"
    assert [int(m[5]) for m in moves] == list(range(len(moves)))
    for move, visits, winrate, prior, lcb, order, pv in moves:
        assert pv.split()[0] == move and int(lcb) <= int(winrate) <= 10000 and int(visits) >= 1
    for bad in ("lz-analyze B x", "lz-analyze 10 20"):
        assert engine.shell.execute(bad).startswith("? syntax error")


def test_with_the_onnx_model_and_board_size_guard(tiny5):
    _, path = tiny5
    player = SearchPlayer(OnnxEvaluator(path), PlayerConfig(visits=32))
    engine = GtpEngine(player, Game(5, Ruleset("chinese", 7.0)))
    register_player(engine, player)
    for _ in range(4):
        for color in "BW":
            move = ask(engine, f"genmove {color}")
            assert move == "resign" or move == "pass" or from_gtp(move, 5) < 25
    assert engine.shell.execute("boardsize 9").startswith("? unacceptable size")
    assert ask(engine, "boardsize 5") == "" and engine.game.moves == []
