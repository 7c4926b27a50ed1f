"""GTP conformance of ``python -m engine_worker.gtp`` over a real pipe, plus the shell's
streaming commands in-process."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from engine_worker.gtp_shell import GtpError, GtpShell, parse, preprocess
from tests.go.test_scoring import SEKI, SEKI_WITH_EYES

ROOT = Path(__file__).resolve().parents[2]
FRONT_END = [sys.executable, "-m", "engine_worker.gtp", "--random"]


class Engine:
    """One front-end process; ``send`` writes a command and returns its response
    without the closing empty line."""

    def __init__(self, *options: str) -> None:
        self.proc = subprocess.Popen([*FRONT_END, *options], cwd=ROOT, text=True, bufsize=1,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def send(self, line: str) -> str:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        lines = []
        while True:
            text = self.proc.stdout.readline()
            if not text:
                raise EOFError(f"engine closed its output after {line!r}")
            if text == "\n":
                return "".join(lines).rstrip("\n")
            lines.append(text)

    def close(self) -> int:
        if self.proc.poll() is None:
            self.proc.stdin.close()
        return self.proc.wait(timeout=10)


@pytest.fixture
def engine():
    e = Engine("--seed", "1")
    yield e
    e.close()


def transcript(stdin: str, *options: str) -> str:
    done = subprocess.run([*FRONT_END, *options], cwd=ROOT, input=stdin.encode("latin-1"),
                          capture_output=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout.decode()


def test_framing_ids_comments_case_and_control_characters():
    stdin = ("1 protocol_version\n"
             "name\n"
             "NAME\n"
             "# a comment line\n"
             "   \t \n"
             "\n"
             "2 name # a trailing comment\n"
             "3\tknown_command\tplay\n"
             "4 known_command PLAY\n"
             "5 na\x01m\x7fe\r\n"
             "6\n"
             "-7 name\n"
             "8 boardsize x\n"
             "12345678901234567890 version\n"
             "9 quit\n"
             "10 name\n")
    assert transcript(stdin) == (
        "=1 2\n\n"
        "= Go Learning Buddy\n\n"
        "? unknown command\n\n"
        "=2 Go Learning Buddy\n\n"
        "=3 true\n\n"
        "=4 false\n\n"
        "=5 Go Learning Buddy\n\n"
        "?6 unknown command\n\n"
        "? unknown command\n\n"
        "?8 syntax error\n\n"
        "=12345678901234567890 0.1.0\n\n"
        "=9 \n\n")


# (command, response) in order on one 5x5 engine: success texts and the spec's errors.
COMMANDS = [
    ("boardsize 0", "? unacceptable size"), ("boardsize 26", "? unacceptable size"),
    ("boardsize x", "? syntax error"), ("boardsize", "? syntax error"),
    ("boardsize 5", "="), ("komi x", "? syntax error"), ("komi nan", "? syntax error"),
    ("komi", "? syntax error"), ("komi 0.5", "="), ("komi -3", "="), ("komi 0", "="),
    ("undo", "? cannot undo"),
    ("play b", "? syntax error"), ("play x A1", "? syntax error"), ("play b Z9", "? syntax error"),
    ("play b A6", "? syntax error"), ("play b I1", "? syntax error"), ("play b A1 B1", "? syntax error"),
    ("play b B1", "="), ("play black a2", "="), ("play W a1", "? illegal move"),
    ("play w B1", "? illegal move"), ("play w E5", "="), ("play B PASS", "="),
    ("list_stones black", "= A2 B1"), ("list_stones white", "= E5"), ("list_stones x", "? syntax error"),
    ("captures black", "= 0"), ("play w A1", "? illegal move"),
    ("play b E4", "="), ("play b D5", "="), ("captures black", "= 1"), ("list_stones white", "="),
    ("undo", "="), ("undo", "="), ("list_stones white", "= E5"), ("captures black", "= 0"),
    ("fixed_handicap 2", "? board not empty"), ("place_free_handicap 2", "? board not empty"),
    ("set_free_handicap C3 D4", "? board not empty"),
    ("clear_board", "="), ("list_stones black", "="), ("undo", "? cannot undo"),
    ("fixed_handicap 2", "? invalid number of stones"),
    ("set_free_handicap C3", "? bad vertex list"), ("set_free_handicap C3 C3", "? bad vertex list"),
    ("set_free_handicap C3 pass", "? bad vertex list"), ("set_free_handicap C3 X9", "? syntax error"),
    ("set_free_handicap C3 D4", "="), ("list_stones black", "= D4 C3"), ("undo", "? cannot undo"),
    ("boardsize 9", "="), ("fixed_handicap 1", "? invalid number of stones"),
    ("fixed_handicap 10", "? invalid number of stones"), ("fixed_handicap x", "? syntax error"),
    ("fixed_handicap 3", "= C3 G7 C7"), ("list_stones black", "= C7 G7 C3"),
    ("clear_board", "="), ("place_free_handicap 1", "? invalid number of stones"),
    ("place_free_handicap 4", "= C3 G7 C7 G3"), ("clear_board", "="),
    ("place_free_handicap 81", "? invalid number of stones"),
    ("time_settings 300 30 5", "="), ("time_settings 300 30", "? syntax error"),
    ("time_settings a 30 5", "? syntax error"), ("time_left b 120 0", "="),
    ("time_left x 120 0", "? syntax error"), ("time_left w 1.5 0", "? syntax error"),
    ("time_settings " + "9" * 5000 + " 0 0", "? syntax error"), ("boardsize " + "9" * 19, "? syntax error"),
    ("komi " + "9" * 5000, "? syntax error"),
    ("final_status_list good", "? syntax error"), ("final_status_list", "? syntax error"),
    ("loadsgf", "? syntax error"), ("loadsgf /nonexistent/game.sgf", "? cannot load file"),
    ("printsgf a b", "? syntax error"), ("known_command", "? syntax error"),
    ("known_command lz-analyze", "= false"), ("genmove x", "? syntax error"),
    ("protocol_version", "= 2"), ("final_score", "= 0"), ("komi 7", "="), ("final_score", "= W+7"),
]


def test_each_command_answers_in_the_spec_wording(engine):
    got = [(command, engine.send(command)) for command, _ in COMMANDS]
    assert got == [(command, response if response != "=" else "= ") for command, response in COMMANDS]


def test_list_commands_names_the_standard_set(engine):
    names = engine.send("list_commands").removeprefix("= ").split("\n")
    required = {"protocol_version", "name", "version", "known_command", "list_commands", "quit",
                "boardsize", "clear_board", "komi", "play", "genmove", "undo", "showboard",
                "fixed_handicap", "place_free_handicap", "set_free_handicap", "time_settings",
                "time_left", "final_score", "final_status_list", "loadsgf", "printsgf",
                "list_stones", "captures", "reg_genmove"}
    assert required <= set(names)
    assert all(engine.send(f"known_command {n}") == "= true" for n in names)


def test_showboard(engine):
    for command in ["boardsize 5", "play b C3", "play w D4", "play b pass"]:
        engine.send(command)
    assert engine.send("showboard") == "\n".join([
        "= ",
        "   A B C D E",
        " 5 . . . . . 5",
        " 4 . . . O . 4",
        " 3 . . X . . 3",
        " 2 . . . . . 2",
        " 1 . . . . . 1",
        "   A B C D E",
        "black (X) has captured 0 stones, white (O) has captured 0 stones",
        "white to play, komi 7, move 3",
    ])


def test_genmove_plays_a_legal_move_and_reg_genmove_does_not(engine):
    engine.send("boardsize 5")
    seen = set()
    for color in "bwbwbw":
        vertex = engine.send(f"genmove {color}").removeprefix("= ")
        assert vertex not in seen
        seen.add(vertex)
        stones = engine.send(f"list_stones {color}").removeprefix("= ").split()
        assert vertex.lower() == "pass" or vertex in stones
    before = engine.send("list_stones black"), engine.send("list_stones white")
    assert engine.send("reg_genmove b").startswith("= ")
    assert (engine.send("list_stones black"), engine.send("list_stones white")) == before


def sgf_setup(board: str, komi: float) -> str:
    """An SGF game whose root sets up the ASCII ``board`` (X black, O white)."""
    rows = board.split()
    size = round(len(rows) ** 0.5)
    letters = "abcdefghijklmnopqrs"
    points = {"X": [], "O": []}
    for i, ch in enumerate(rows):
        if ch in points:
            points[ch].append(f"[{letters[i % size]}{letters[i // size]}]")
    return f"(;FF[4]GM[1]SZ[{size}]KM[{komi}]AB{''.join(points['X'])}AW{''.join(points['O'])})"


# Finished positions (SEKI and SEKI_WITH_EYES come from test_scoring). DEAD_STONE: black F3 is dead in
# white's three-point area; SEKI: two shared liberties D7, D6; SEKI_WITH_EYES: eye
# against eye (A7, G7) with the shared liberty D7.
DEAD_STONE = """
. X . X O . O
X X X X O O O
. X . X O . O
X X X X O O O
. X . X O X .
X X X X O . O
. X . X O O O
"""


def test_final_score_and_status_from_loaded_positions(engine, tmp_path):
    dead = tmp_path / "dead.sgf"
    dead.write_text(sgf_setup(DEAD_STONE, 0.5))
    assert engine.send(f"loadsgf {dead}") == "= "
    assert engine.send("final_status_list dead") == "= F3"
    assert engine.send("final_status_list seki") == "= "
    alive = engine.send("final_status_list alive").removeprefix("= ").split("\n")
    assert [line.split()[0] for line in alive] == ["B7", "E7"]  # one chain of each colour
    assert engine.send("final_score") == "= B+6.5"
    seki = tmp_path / "seki.sgf"
    seki.write_text(sgf_setup(SEKI, 7))
    assert engine.send(f"loadsgf {seki}") == "= "
    assert engine.send("final_status_list dead") == "= "
    assert engine.send("final_status_list seki") == "= C7 C6 C5 D5\nE7 E6 E5"
    assert engine.send("final_score") == "= W+4"
    seki.write_text(sgf_setup(SEKI_WITH_EYES, 4))
    assert engine.send(f"loadsgf {seki}") == "= "
    assert engine.send("final_status_list dead") == "= "
    assert engine.send("final_status_list seki") == "= B7 C7 A6 B6 C6\nE7 F7 D6 E6 F6 G6"
    assert engine.send("final_score") == "= 0"


def test_printsgf_loadsgf_round_trip(engine, tmp_path):
    engine.send("boardsize 9")
    engine.send("komi 6.5")
    engine.send("fixed_handicap 2")
    for i in range(60):
        engine.send(f"genmove {'wb'[i % 2]}")
    stones = engine.send("list_stones black"), engine.send("list_stones white")
    captures = engine.send("captures black"), engine.send("captures white")
    path = tmp_path / "game.sgf"
    assert engine.send(f"printsgf {path}") == "= "
    text = engine.send("printsgf").removeprefix("= ")
    assert path.read_text().strip() == text.strip()
    assert "HA[2]" in text and "KM[6.5]" in text
    engine.send("boardsize 13")
    assert engine.send(f"loadsgf {path}") == "= "
    assert (engine.send("list_stones black"), engine.send("list_stones white")) == stones
    assert (engine.send("captures black"), engine.send("captures white")) == captures
    assert engine.send("printsgf").removeprefix("= ") == text
    # the move history came along: undo works, and a move number stops early
    assert engine.send("undo") == "= "
    assert engine.send(f"loadsgf {path} 2") == "= "
    assert len(engine.send("list_stones white").split()) == 2  # "=" and the first move
    assert engine.send("list_stones black") == "= G7 C3"
    assert engine.send("undo") == "= "
    assert engine.send("undo") == "? cannot undo"
    assert engine.send(f"loadsgf {path} 0") == "? syntax error"


@pytest.mark.parametrize("content", ["not sgf at all", "(;SZ[5];B[aa];W[aa])", "(;SZ[30])"])
def test_loadsgf_refuses_bad_files_and_keeps_the_game(engine, tmp_path, content):
    path = tmp_path / "bad.sgf"
    path.write_text(content)
    engine.send("boardsize 5")
    engine.send("play b C3")
    assert engine.send(f"loadsgf {path}") == "? cannot load file"
    assert engine.send("list_stones black") == "= C3"


def test_options_set_size_komi_and_ko_rule():
    e = Engine("--boardsize", "5", "--komi", "0.5", "--simple-ko")
    try:
        assert e.send("final_score") == "= W+0.5"
        assert e.send("play b E5") == "= "
    finally:
        e.close()
    bad = subprocess.run([*FRONT_END, "--boardsize", "1"], cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode == 2 and "--boardsize must be from 2 to 25" in bad.stderr


def test_a_missing_model_is_one_clear_line_not_a_traceback():
    bad = subprocess.run([sys.executable, "-m", "engine_worker.gtp", "--model", "/nonexistent/model.onnx"],
                         cwd=ROOT, capture_output=True, text=True, input="name\n")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.strip() == "python -m engine_worker.gtp: error: model file /nonexistent/model.onnx does not exist"


def test_quit_ends_the_process_and_start_up_is_fast():
    start = time.monotonic()
    e = Engine()
    assert e.send("name") == "= Go Learning Buddy"
    assert time.monotonic() - start < 2.0
    assert e.send("quit") == "= "
    assert e.proc.wait(timeout=5) == 0


# ---------------------------------------------------------------- the shell itself
@pytest.mark.parametrize("raw,clean", [
    ("name\n", "name"), ("  name  # c\n", "  name  "), ("#x\n", ""), (" \t\n", ""),
    ("a\tb\n", "a b"), ("na\x00me\x1b\r\n", "name"),
])
def test_preprocess(raw, clean):
    assert preprocess(raw) == clean


def test_parse_and_execute():
    assert parse("12 play b A1") == parse("12   play  b A1")
    assert parse("12 play b A1").id == 12 and parse("play b A1").id is None
    shell = GtpShell()
    shell.register("echo", lambda args: " ".join(args))
    shell.register("fail", lambda args: (_ for _ in ()).throw(GtpError("no way")))
    shell.register("crash", lambda args: 1 / 0)
    shell.register("lines", lambda args: "a\n\n\nb\n")
    assert shell.execute("3 echo x  y") == "=3 x y\n\n"
    assert shell.execute("fail") == "? no way\n\n"
    assert shell.execute("4 crash").startswith("?4 internal error: ZeroDivisionError")
    assert shell.execute("lines") == "= a\nb\n\n"
    assert shell.execute("# nothing") == ""

    def stream_once(args, stream):
        stream.write("first")
        while not stream.wait(10):  # execute() interrupts at once: no 10 s wait
            stream.write("never")

    shell.register("stream_once", stream_once, streaming=True)
    assert shell.execute("5 stream_once") == "=5\nfirst\n\n"
    with pytest.raises(ValueError):
        shell.register("two words", print)


def test_streaming_command_stops_at_the_next_command():
    shell = GtpShell()
    shell.register("name", lambda args: "streamer")

    def count(args, stream):
        n = 0
        while not stream.wait(0.005):
            n += 1
            stream.write(f"info {n}")

    shell.register("count", count, streaming=True)
    read_fd, write_fd = os.pipe()
    inp = os.fdopen(read_fd, "r")
    out = io.StringIO()
    server = threading.Thread(target=shell.run, args=(inp, out))
    server.start()
    with os.fdopen(write_fd, "w") as w:
        w.write("7 count\n")
        w.flush()
        deadline = time.monotonic() + 5
        while out.getvalue().count("info") < 3 and time.monotonic() < deadline:
            time.sleep(0.005)
        w.write("8 name\n")
    server.join(timeout=5)
    text = out.getvalue()
    head, rest = text.split("\n\n", 1)
    assert head.startswith("=7\ninfo 1\ninfo 2\ninfo 3")
    assert rest == "=8 streamer\n\n"
