"""The opponent levels (gobuddy.ai.levels) with the shipped model, built by the real GTP
front end's options: every level answers a plain atari and never fills its own eye,
weak levels keep off the first line early, moves are repeatable given a seed; the
reading of ataris and ladders (gobuddy.ai.atari); the --level / --list-levels flags
of ``python -m engine_worker.gtp`` as a subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engine_worker.gtp import make_player, parse_args
from gobuddy.ai.atari import answers_atari, ladder_captures, rescues
from gobuddy.ai.levels import LEVELS, LevelPlayer, level_named, level_names
from gobuddy.go.coords import BLACK, WHITE, from_gtp, to_gtp
from gobuddy.go.game import Game, Ruleset
from gobuddy.go.position import Position

ROOT = Path(__file__).resolve().parents[2]
NAMES = level_names()

# Black's three stones D5-F5 were just put in atari by white C5; G5 saves them.
ATARI_CENTRE = """
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . O O O . . .
. . O X X X . . .
. . . O O O . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
"""
# Black's two stones C2-D2 on the second line, white's last move E2 took their
# liberty; extending at B2 gives them three liberties again (B1, B3, A2).
ATARI_EDGE = """
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . O . .
. . O O . . . . .
. . X X O . . . .
. . O O . . . . .
"""
# Finished: black's wall has eyes at B9, E7 and H9; white's at B1 and H1. E5 is the
# one open point between the walls. Filling B9, E7 or H9 would be a beginner's worst move.
EYES = """
X . X X X X X . X
X X X X X X X X X
X X X X . X X X X
X X X X X X X X X
X X X X . X X X X
O O O O O O O O O
O O O O O O O O O
O O O O O O O O O
O . O O O O O O O
"""
OWN_EYES = {"B9", "E7", "H9"}


def game_of(board: str, last: str | None = None) -> Game:
    """A game that reaches ``board`` by plays (black's stones, then white's, ``last``
    played last by white); no stone is captured on the way."""
    pos = Position.from_ascii(board)
    size = pos.size
    game = Game(size, Ruleset("chinese", 7.0))
    stones = [(c, p) for c in (BLACK, WHITE) for p in range(size * size) if pos.board[p] == c]
    if last is not None:
        stones.remove((WHITE, from_gtp(last, size)))
        stones.append((WHITE, from_gtp(last, size)))
    for colour, point in stones:
        assert game.play(point, colour) == ()
    assert game.position.board == pos.board
    return game


@pytest.fixture(scope="module")
def players():
    """One player per level, as ``python -m engine_worker.gtp --level NAME`` builds it."""
    return {name: make_player(parse_args(["--level", name, "--threads", "1", "--seed", "7"])) for name in NAMES}


def test_levels_are_listed_weakest_first_ending_at_full():
    assert NAMES == ["30 kyu", "25 kyu", "20 kyu", "15 kyu", "10 kyu", "7 kyu", "5 kyu", "2 kyu", "full"]
    kyu = [int(name.split()[0]) for name in NAMES[:-1]]
    assert kyu == sorted(kyu, reverse=True)
    assert LEVELS[-1].is_full and not any(level.is_full for level in LEVELS[:-1])
    assert level_named("25-kyu").name == "25 kyu" and level_named(" Full ").name == "full"
    with pytest.raises(KeyError, match="30 kyu, 25 kyu"):
        level_named("3 dan")


def test_weaker_levels_see_fewer_moves_hotter_and_more_carelessly():
    styles = [level.style for level in LEVELS if level.style is not None]
    for weaker, stronger in zip(styles, styles[1:]):
        assert weaker.breadth >= stronger.breadth and weaker.temperature > stronger.temperature
        assert weaker.local >= stronger.local
    # Careless moves (uniform over the seen moves) only mean something where the draw is
    # not near-uniform already; the two weakest levels draw at temperature 100 and 6.
    sharp = [style for style in styles if style.temperature <= 3]
    assert len(sharp) >= 4
    for weaker, stronger in zip(sharp, sharp[1:]):
        assert weaker.mistake >= stronger.mistake
    visits = [level.visits for level in LEVELS if level.visits is not None]
    assert visits == sorted(visits)


@pytest.mark.parametrize("board, last, chain, save", [
    (ATARI_CENTRE, "C5", "E5", "G5"),
    (ATARI_EDGE, "E2", "C2", "B2"),
])
@pytest.mark.parametrize("name", NAMES)
def test_every_level_answers_a_plain_atari(players, name, board, last, chain, save):
    game = game_of(board, last)
    assert game.position.liberties(from_gtp(chain, 9)) == 1
    move = players[name].genmove(game, BLACK)
    assert to_gtp(move, 9) == save


@pytest.mark.parametrize("name", NAMES)
def test_no_level_fills_its_own_eye(players, name):
    for white_passed in (False, True):
        game = game_of(EYES)
        if white_passed:
            game.play(game.position.pass_point, WHITE)
        seeds = range(1) if LEVELS[NAMES.index(name)].style is None else range(8)
        for seed in seeds:
            player = players[name]
            if isinstance(player, LevelPlayer):
                player = LevelPlayer(player.evaluator, player.level, seed=seed)
            move = to_gtp(player.genmove(game, BLACK), 9)
            assert move not in OWN_EYES, (name, seed, white_passed)
            assert move in ("E5", "pass")


def test_weakest_level_keeps_off_the_first_line_early(players):
    weakest = players["30 kyu"]
    game = Game(9, Ruleset("chinese", 7.0))
    for vertex in ("E5", "D4", "F3"):  # a few moves, white's last near the edge
        game.play(from_gtp(vertex, 9), BLACK if len(game.moves) % 2 == 0 else WHITE)
    for seed in range(40):
        player = LevelPlayer(weakest.evaluator, weakest.level, seed=seed)
        r, c = divmod(player.genmove(game, WHITE), 9)
        assert 0 < r < 8 and 0 < c < 8, (seed, to_gtp(r * 9 + c, 9))


def _moves_of(player: LevelPlayer, openings: list[list[str]]) -> list[int]:
    out = []
    for opening in openings:
        game = Game(9, Ruleset("chinese", 7.0))
        for i, vertex in enumerate(opening):
            game.play(from_gtp(vertex, 9), BLACK if i % 2 == 0 else WHITE)
        out.append(player.genmove(game, BLACK if len(opening) % 2 == 0 else WHITE))
    return out


OPENINGS = [[], ["E5"], ["E5", "C5"], ["C3", "G7", "E5"], ["D4", "F6", "F4", "D6"], ["E5", "E4", "D4", "F5", "F4"]]


@pytest.mark.parametrize("name", ["30 kyu", "20 kyu", "10 kyu", "7 kyu", "5 kyu"])
def test_moves_are_repeatable_given_the_seed(players, name):
    base = players[name]
    first = _moves_of(LevelPlayer(base.evaluator, base.level, seed=11), OPENINGS)
    again = _moves_of(LevelPlayer(base.evaluator, base.level, seed=11), OPENINGS)
    assert first == again
    if name == "30 kyu":  # a different seed plays differently somewhere
        others = [_moves_of(LevelPlayer(base.evaluator, base.level, seed=s), OPENINGS) for s in (12, 13)]
        assert any(moves != first for moves in others)


# ---- the reading behind the atari answers ------------------------------------------------

# Black D2 in atari (D1); extending runs into a ladder along the first line: lost.
LADDER = """
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . O . . . . .
. . O X O . . . .
. . . . . . . . .
"""
# The same, but white C2 is itself in atari (C1): capturing it saves D2.
CAPTURE_SAVES = """
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . X O . . . . .
. X O X O . . . .
. . . . X . . . .
"""


def test_a_laddered_stone_is_not_saved_a_capture_is():
    ladder = Position.from_ascii(LADDER)
    assert rescues(ladder, BLACK) == []
    trial = ladder.copy()
    trial.play(from_gtp("D1", 9), BLACK)
    assert trial.liberties(from_gtp("D2", 9)) == 2 and ladder_captures(trial, from_gtp("D2", 9))
    saving = {to_gtp(r.move, 9) for r in rescues(Position.from_ascii(CAPTURE_SAVES), BLACK)}
    assert "C1" in saving and saving <= {"C1", "D1"}


def test_only_chains_the_last_move_put_in_atari_are_answered():
    game = game_of(ATARI_CENTRE, "C5")
    assert [to_gtp(r.move, 9) for r in answers_atari(game.position, BLACK, game.position.last_move)] == ["G5"]
    game.play(from_gtp("A9", 9), BLACK)
    game.play(from_gtp("J1", 9), WHITE)  # far away: the old atari is not a fresh one
    assert answers_atari(game.position, BLACK, game.position.last_move) == []


# ---- the front end's flags ------------------------------------------------------------------

def _gtp(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine_worker.gtp", *args], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_list_levels_prints_the_names_weakest_first():
    done = _gtp("--list-levels")
    assert done.returncode == 0
    assert done.stdout.splitlines() == NAMES


@pytest.mark.parametrize("args, complaint", [
    (["--level", "20 kyu", "--visits", "50"], "--level excludes --visits"),
    (["--level", "full", "--time", "1"], "--level excludes --time"),
    (["--level", "10 kyu", "--random"], "--level excludes --random"),
    (["--level", "3 dan"], "no level '3 dan'; the levels are: 30 kyu, 25 kyu"),
])
def test_level_refuses_settings_it_replaces(args, complaint):
    done = _gtp(*args)
    assert done.returncode == 2
    assert complaint in done.stderr


def test_a_level_plays_over_gtp():
    done = _gtp("--level", "15-kyu", "--seed", "3", "--threads", "1",
                stdin="boardsize 9\nclear_board\ngenmove b\nname\nquit\n")
    assert done.returncode == 0, done.stderr
    answers = [line for line in done.stdout.splitlines() if line.startswith("=")]
    vertex = answers[2].removeprefix("=").strip()
    assert 0 <= from_gtp(vertex, 9) < 81


@pytest.mark.parametrize("name", [level.name for level in LEVELS if level.style is not None])
def test_policy_levels_pass_when_the_game_is_over_and_won_not_before(players, name):
    done = game_of(EYES)  # black wins by 2 on the count (45 to 36 + 7)
    done.play(done.position.pass_point, WHITE)
    base = players[name]
    for seed in range(4):
        player = LevelPlayer(base.evaluator, base.level, seed=seed)
        assert player.genmove(done, BLACK) == done.position.pass_point, (name, seed)
    early = Game(9, Ruleset("chinese", 7.0))
    early.play(from_gtp("E5", 9), BLACK)
    early.play(early.position.pass_point, WHITE)  # an opponent passing early does not end it
    for seed in range(4):
        player = LevelPlayer(base.evaluator, base.level, seed=seed)
        assert player.genmove(early, BLACK) != early.position.pass_point, (name, seed)
