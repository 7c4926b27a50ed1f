"""Our GTP front end and GNU Go 3.8 in lockstep: the same moves to both, the same
verdicts and the same stones after every move.

Random games (the playout policy, both colours, simple ko as GNU Go plays) with
deliberate illegal attempts mixed in: occupied points, suicides, ko recaptures; now
and then a pass or the same colour twice, and some games start from a fixed handicap.
Each game goes to both engines in one pipelined batch: every ``play`` answer and every
``list_stones`` after it must be identical text. At the end of each game our
``printsgf`` file is loaded by both and compared again. Handicap points and the scores
of the finished positions of ``test_gtp`` are compared with GNU Go's too.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from gobuddy.go.coords import BLACK, WHITE, color_to_str, to_gtp
from gobuddy.go.handicap import fixed_handicap_points, max_fixed_handicap
from gobuddy.go.playout import random_move
from gobuddy.go.position import Position

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
GNUGO = shutil.which("gnugo") or "/usr/games/gnugo"
ILLEGAL_RATE = 0.12  # share of moves preceded by an attempted suicide or occupied point
ODD_RATE = 0.02  # share of moves replaced by a pass or played by the wrong colour


class Pipe:
    """A GTP process fed whole batches: a writer thread sends, the caller reads."""

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.proc = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self._writer: threading.Thread | None = None

    def send(self, commands: list[str]) -> None:
        data = "".join(c + "\n" for c in commands).encode()

        def write() -> None:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

        self._writer = threading.Thread(target=write, daemon=True)
        self._writer.start()

    def receive(self, count: int) -> list[str]:
        readline = self.proc.stdout.readline
        answers = []
        for _ in range(count):
            lines = [readline()]
            while lines[-1] not in (b"\n", b""):
                lines.append(readline())
            if lines[-1] == b"":
                raise EOFError(f"{self.argv[0]} stopped answering")
            answers.append(b"".join(lines).decode().strip())
        self._writer.join()
        return answers

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def both(ours: Pipe, gnugo: Pipe, commands: list[str]) -> tuple[list[str], list[str]]:
    ours.send(commands)
    gnugo.send(commands)
    return ours.receive(len(commands)), gnugo.receive(len(commands))


@pytest.fixture
def engines(request):
    size = request.param
    ours = Pipe([sys.executable, "-m", "engine_worker.gtp", "--random", "--simple-ko", "--komi", "7",
                 "--boardsize", str(size)])
    gnugo = Pipe([GNUGO, "--mode", "gtp", "--chinese-rules", "--komi", "7", "--boardsize", str(size)])
    yield size, ours, gnugo
    ours.close()
    gnugo.close()


def illegal_attempt(pos: Position, rng: random.Random) -> int | None:
    """A point the side to move may not play: the ko recapture whenever there is one
    (mostly), else now and then a suicide or an occupied point."""
    color = pos.to_play
    if pos.ko is not None and rng.random() < 0.8:
        return pos.ko
    if rng.random() >= ILLEGAL_RATE:
        return None
    if rng.random() < 0.6:
        suicides = [p for p in range(pos.n) if pos.board[p] == 0
                    and pos.illegal_reason(p, color) == "suicide"]
        if suicides:
            return rng.choice(suicides)
    stones = [p for p in range(pos.n) if pos.board[p] != 0]
    return rng.choice(stones) if stones else None


def game_commands(size: int, rng: random.Random) -> tuple[list[str], Position, int]:
    """The commands of one random game and the mirror position it should end in;
    also the number of illegal attempts in it."""
    commands = ["clear_board"]
    stones = rng.randint(2, max_fixed_handicap(size)) if rng.random() < 0.1 else 0
    pos = Position(size, superko=False, to_play=WHITE if stones else BLACK)
    if stones:
        commands.append(f"fixed_handicap {stones}")
        for p in fixed_handicap_points(size, stones):
            pos.place(p, BLACK)
    illegal = 0
    passes = 0
    while passes < 2 and pos.move_count < 3 * size * size:
        color = pos.to_play
        point = illegal_attempt(pos, rng)
        if point is not None:
            assert pos.illegal_reason(point, color) is not None
            commands.append(f"play {color_to_str(color)} {to_gtp(point, size)}")
            illegal += 1
        move = random_move(pos, rng)
        if rng.random() < ODD_RATE:
            if rng.random() < 0.5:
                move = pos.pass_point
            else:
                color = -color
                move = random_move(pos, rng, color)
        pos.play(move, color)
        passes = passes + 1 if move == pos.pass_point else 0
        commands += [f"play {color_to_str(color)} {to_gtp(move, size)}",
                     "list_stones black", "list_stones white"]
    commands += ["captures black", "captures white"]
    return commands, pos, illegal


def same(command: str, a: str, b: str) -> bool:
    """Equal answers; handicap points compare as sets (GNU Go lists them in board order)."""
    if command.startswith("fixed_handicap"):
        return sorted(a.split()) == sorted(b.split())
    return a == b


def first_difference(commands: list[str], ours: list[str], theirs: list[str]) -> str | None:
    for i, (command, a, b) in enumerate(zip(commands, ours, theirs)):
        if not same(command, a, b):
            history = [c for c in commands[:i] if c.startswith(("play", "fixed"))]
            return (f"command {i} {command!r}: ours {a!r}, GNU Go {b!r}\n"
                    f"after: {' | '.join(history)}")
    return None


GAMES = {9: 200, 19: 50}


@pytest.mark.parametrize("engines,games", list(GAMES.items()), indirect=["engines"],
                         ids=["9x9x200", "19x19x50"])
def test_random_games_agree_move_by_move(engines, games, tmp_path):
    size, ours, gnugo = engines
    rng = random.Random(20240 + size)
    total_moves = total_illegal = 0
    for game in range(games):
        commands, mirror, illegal = game_commands(size, rng)
        sgf = tmp_path / f"game{game}.sgf"
        a, b = both(ours, gnugo, commands)
        ours.send([f"printsgf {sgf}"])
        assert ours.receive(1) == ["="]
        problem = first_difference(commands, a, b)
        assert problem is None, f"game {game}: {problem}"
        # the moves the mirror found legal were legal, the attempts were refused
        plays = [(c, r) for c, r in zip(commands, a) if c.startswith("play")]
        assert sum(r == "? illegal move" for _, r in plays) == illegal, f"game {game}"
        assert a[-4:-2] == [f"= {' '.join(to_gtp(p, size) for p, v in enumerate(mirror.board) if v == c)}".strip()
                            for c in (BLACK, WHITE)]
        total_moves += len(plays) - illegal
        total_illegal += illegal
        reload = [f"loadsgf {sgf}", "list_stones black", "list_stones white",
                  "captures black", "captures white"]
        a2, b2 = both(ours, gnugo, reload)
        assert a2[0] == "=" and b2[0].startswith("="), f"game {game}: loadsgf {a2[0]!r} {b2[0]!r}"
        assert a2[1:] == b2[1:] == a[-4:], f"game {game}: after loadsgf"
    assert total_illegal > games  # the attempts really happened, several per game
    assert total_moves > games * size * size // 2


@pytest.mark.parametrize("engines", [19], indirect=True)
def test_fixed_handicap_points_agree(engines):
    _, ours, gnugo = engines
    commands = []
    for size in range(7, 20):
        for stones in range(1, 11):
            commands += [f"boardsize {size}", "clear_board", f"fixed_handicap {stones}"]
    a, b = both(ours, gnugo, commands)
    for i, (command, mine, theirs) in enumerate(zip(commands, a, b)):
        assert mine[0] == theirs[0], (command, mine, theirs)
        if commands[i - 2] == "boardsize 12" and mine != "? invalid number of stones":
            # GNU Go moves the corner stones to the fourth line from 12x12, the GTP
            # specification (and GoGui, gomill) from 13x13
            assert all(v[0] in "CK" and v[1:] in ("3", "10") for v in mine[1:].split()), mine
            assert all(v[0] in "DJ" and v[1:] in ("4", "9") for v in theirs[1:].split()), theirs
        elif mine[0] == "=":
            assert same(command, mine, theirs), (command, mine, theirs)
    assert sum(r.startswith("= ") for r in a) == 3 + 6 * 3 + 6 * 8  # 7x7, even sizes, odd sizes


SCORED = [
    # (size, komi, black stones, white stones) of test_gtp's finished positions
    ("dead stone", 0.5, ". X . X O . O / X X X X O O O / . X . X O . O / X X X X O O O / "
                        ". X . X O X . / X X X X O . O / . X . X O O O"),
    ("seki", 7, ". X O . X O . / X X O . X O O / . X O O X O . / X X X X O O O / "
                ". X . X O . O / X X X X O O O / . X . X O . O"),
    ("seki with eyes", 4, ". X X . O O . / X X X O O O O / O O O X X X X / . O O X X . X / "
                          "O O O X X X X / . O O X X . X / O O O X X X X"),
]


@pytest.mark.parametrize("engines", [7], indirect=True)
@pytest.mark.parametrize("name,komi,board", SCORED, ids=[s[0] for s in SCORED])
def test_final_score_and_status_agree(engines, name, komi, board):
    size, ours, gnugo = engines
    rows = [r.split() for r in board.split("/")]
    commands = ["clear_board", f"komi {komi}"]
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch != ".":
                commands.append(f"play {'b' if ch == 'X' else 'w'} {to_gtp(r * size + c, size)}")
    commands += ["final_score", "final_status_list dead", "final_status_list seki"]
    a, b = both(ours, gnugo, commands)
    assert set(a[:-3]) == set(b[:-3]) == {"="}  # every stone went down in both
    assert a[-3] == b[-3].replace(".0", "")  # GNU Go writes W+4.0 where we write W+4
    for mine, theirs in zip(a[-2:], b[-2:]):
        assert sorted(mine[1:].split()) == sorted(theirs[1:].split())
