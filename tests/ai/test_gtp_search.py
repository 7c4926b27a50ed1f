"""The real GTP front end with a tiny model, as a subprocess: starts fast, genmove is
legal, lz-analyze streams info lines and stops when the next command arrives."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gobuddy.go.coords import from_gtp

from .test_player import INFO

ROOT = Path(__file__).resolve().parents[2]


class Gtp:
    """A GTP subprocess with line reads that time out."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "engine_worker.gtp", *args], cwd=ROOT, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, command: str) -> None:
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    def line(self, timeout: float = 20.0) -> str:
        line = self.lines.get(timeout=timeout)
        if line is None:
            raise AssertionError(f"engine exited: {self.proc.stderr.read()[-2000:]}")
        return line

    def ask(self, command: str) -> str:
        self.send(command)
        first = self.line()
        assert first.startswith("="), f"{command!r} -> {first!r}"
        body = [first[1:].strip()]
        while (line := self.line()) != "":
            body.append(line)
        return "\n".join(body).strip()

    def close(self) -> None:
        try:
            self.send("quit")
            self.proc.wait(timeout=10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


@pytest.fixture
def engine(tiny9):
    _, path = tiny9
    start = time.perf_counter()
    gtp = Gtp("--model", path, "--visits", "64", "--seed", "1")
    try:
        assert gtp.ask("name") == "Go Learning Buddy"
        gtp.startup = time.perf_counter() - start
        yield gtp
    finally:
        gtp.close()


def test_starts_fast_and_plays_legal_moves(engine):
    assert engine.startup < 2.0, f"startup took {engine.startup:.2f} s"
    for color in "bwbw":
        move = engine.ask(f"genmove {color}")
        assert move in ("pass", "resign") or 0 <= from_gtp(move, 9) < 81
    assert len(engine.ask("list_stones black").split()) + len(engine.ask("list_stones white").split()) >= 1
    assert engine.ask("reg_genmove b") != ""
    assert engine.ask("kgs-genmove_cleanup b") != "resign"


def test_lz_analyze_streams_until_the_next_command(engine):
    engine.send("lz-analyze b 10")
    assert engine.line() == "="
    infos = [engine.line(), engine.line()]
    for info in infos:
        moves = INFO.findall(info)
        assert moves and moves[0][5] == "0"
    engine.send("name")
    rest = []
    while (line := engine.line()) != "":
        rest.append(line)
    assert all(line.startswith("info move") for line in rest)
    assert engine.line() == "= Go Learning Buddy"


@pytest.mark.parametrize("options, message", [
    (["--random", "--visits", "10"], "--visits and --time need the search, not --random"),
    (["--random", "--temperature", "1"], "--temperature and --temperature-moves need the search"),
    (["--random", "--model", "m.onnx"], "--random and --model exclude each other"),
    (["--threads", "0"], "--threads must be at least 1, got 0"),
    (["--score-utility", "-0.1"], "--score-utility must be >= 0"),
    (["--score-utility", "nan"], "--score-utility must be >= 0"),
    (["--score-utility", "inf"], "--score-utility must be >= 0"),
    (["--random", "--score-utility", "0.3"], "needs the default search player"),
    (["--level", "full", "--score-utility", "0.3"], "needs the default search player"),
    (["--symmetry", "average", "--search", "native"], "--symmetry average needs the default search player"),
    (["--symmetry", "random", "--random"], "--symmetry random needs the default search player"),
    (["--symmetry", "average", "--level", "full"], "--symmetry average needs the default search player"),
    (["--symmetry", "all"], "invalid choice: 'all'"),
    (["--no-resign", "--random"], "--no-resign needs the default search player"),
    (["--no-resign", "--level", "full"], "--no-resign needs the default search player"),
])
def test_options_are_checked(options, message):
    out = subprocess.run([sys.executable, "-m", "engine_worker.gtp", *options], cwd=ROOT,
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 2 and message in out.stderr


def test_without_options_it_plays_the_shipped_models_with_the_default_budget():
    from engine_worker.gtp import SHIPPED_MODELS, parse_args

    config = parse_args([])
    assert config.models == tuple(str(path) for path in SHIPPED_MODELS) and all(p.is_file() for p in SHIPPED_MODELS)
    assert [p.name for p in SHIPPED_MODELS] == ["gobuddy-9x9.int8.onnx", "gobuddy-13x13.int8.onnx"]
    assert parse_args(["--model", "a.onnx", "--model", "b.onnx"]).models == ("a.onnx", "b.onnx")
    assert config.budget() == (8000, 0.9)  # visits or seconds, whichever comes first
    assert config.search == "auto" and parse_args(["--search", "python"]).search == "python"
    assert config.threads == min(2, os.cpu_count() or 1) and parse_args(["--threads", "1"]).threads == 1


def test_the_score_utility_reaches_the_players_search():
    from engine_worker.gtp import make_player, parse_args

    assert parse_args([]).score_utility == 0.0
    player = make_player(parse_args(["--score-utility", "0.3", "--visits", "8"]))
    assert player.search.config.score_utility == 0.3 and player.search.config.utility is not None
    assert make_player(parse_args(["--visits", "8"])).search.config.utility is None


# (options, the player's resign threshold, its evaluator's symmetry, who searches)
MANNERS = [
    ([], -0.9, "none", "NativeSearch"),
    (["--no-resign"], None, "none", "NativeSearch"),
    (["--symmetry", "average"], -0.9, "average", "Search"),
    (["--symmetry", "random", "--no-resign", "--seed", "3"], None, "random", "Search"),
]


@pytest.mark.parametrize("options, threshold, symmetry, search", MANNERS)
def test_resignation_and_symmetries_reach_the_player(options, threshold, symmetry, search):
    from engine_worker.gtp import make_player, parse_args

    player = make_player(parse_args(["--visits", "8", *options]))
    assert player.config.resign_threshold == threshold
    assert [part.symmetry for part in player.evaluator.by_size.values()] == [symmetry, symmetry]  # 9x9 and 13x13
    assert type(player.search).__name__ == search


@pytest.mark.parametrize("options, budget", [
    ([], (8000, 0.9)),
    (["--visits", "50"], (50, None)),
    (["--time", "2.5"], (None, 2.5)),
    (["--visits", "50", "--time", "2.5"], (50, 2.5)),
])
def test_the_budget_per_move(options, budget):
    from engine_worker.gtp import parse_args

    assert parse_args(options).budget() == budget


def test_without_options_the_random_player_is_not_chosen():
    from engine_worker.gtp import parse_args

    assert parse_args(["--random"]).models == ()


# The default engine (no --model) plays the shipped model of each size it has.
# (command, the answer's first word or a check)
SIZES = [
    ("boardsize 13", "="),  # the 13x13 model
    ("genmove b", "13x13 vertex"),
    ("boardsize 19", "? unacceptable size"),  # no model of that size
    ("boardsize 9", "="),  # back to the 9x9 model
    ("genmove b", "9x9 vertex"),
]


def test_the_default_engine_plays_each_size_it_has_a_model_of():
    gtp = Gtp("--visits", "16", "--threads", "1", "--seed", "3")
    try:
        for command, expected in SIZES:
            gtp.send(command)
            first = gtp.line()
            assert gtp.line() == "", command
            if expected.endswith("vertex"):
                size = int(expected.split("x")[0])
                assert first.startswith("= ") and 0 <= from_gtp(first[2:], size) < size * size, (command, first)
            else:
                assert first == expected or first.startswith(expected + " "), (command, first)
    finally:
        gtp.close()


def test_two_models_of_one_size_are_refused_by_name(tiny9):
    _, path = tiny9
    out = subprocess.run([sys.executable, "-m", "engine_worker.gtp", "--model", path, "--model", path], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "both play 9x9: give one model per board size" in out.stderr, out.stderr


# Every player the front end builds keeps to a game clock, kgs-genmove_cleanup included.
# (options after --model)
CLOCKED = [
    ["--visits", "1000000"],  # the search player: minutes a move without the clock
    ["--level", "20 kyu"],  # a policy level
    ["--level", "2 kyu"],  # a search level
]


@pytest.mark.parametrize("options", CLOCKED, ids=lambda o: " ".join(o))
def test_each_player_keeps_to_the_clock(tiny9, options):
    _, path = tiny9
    gtp = Gtp("--model", path, "--seed", "1", *options)
    try:
        assert gtp.ask("kgs-time_settings byoyomi 0 1 3") == ""  # one second a move
        started = time.perf_counter()
        moves = [gtp.ask(command) for command in ("genmove b", "genmove w", "kgs-genmove_cleanup b")]
        assert all(move != "resign" and from_gtp(move, 9) <= 81 for move in moves), moves
        assert time.perf_counter() - started < 20  # not minutes: each search stopped within its second
    finally:
        gtp.close()
