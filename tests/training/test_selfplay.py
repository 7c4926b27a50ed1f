"""Self-play (``training.selfplay``): move choice, resignation, shards with visit targets,
resuming, and the positions builder turning visits into policy targets."""

from __future__ import annotations

import numpy as np
import pytest

from gobuddy.ai.evaluator import Evaluation, uniform_policy
from gobuddy.ai.mcts import Search, SearchConfig
from tests.tiny_model import build_tiny_model
from gobuddy.go.coords import BLACK, WHITE, from_gtp, to_gtp
from gobuddy.go.position import Position
from gobuddy.go.scoring import area_score, ownership
from training.game_shards import GameSample, read_shard, replay, shard_paths, write_shard
from training.positions import build, positions_of
from training.position_shards import load_shard
from training.selfplay import GameSettings, SelfPlayConfig, choose_move, generate, parse_args, play_game

EYES = """
X X X X X
X . X . X
X X X X X
O O O O O
O . O . O
"""
# Black 14 (11 stones, A5 A3 A1), white 10 (7 stones, E5 E3 E1); C5 is the one dame.
ONE_DAME = """
. X . O .
X X X O O
. X X O .
X X X O O
. X X O .
"""


class Favourite:
    """Duck-typed evaluator: 90% of the policy on one vertex (if legal), value fixed per colour."""

    has_score = has_ownership = False
    board_sizes = tuple(range(2, 26))
    name = "favourite"

    def __init__(self, vertex: str | None = None, black_value: float = 0.0) -> None:
        self.vertex, self.black_value = vertex, black_value

    def evaluate(self, queries):
        out = []
        for q in queries:
            policy = uniform_policy(q.legal)
            if self.vertex is not None:
                p = from_gtp(self.vertex, q.position.size)
                if q.legal[p]:
                    policy = 0.1 * policy
                    policy[p] += 0.9
            out.append(Evaluation(policy, self.black_value * q.position.to_play))
        return out


@pytest.mark.parametrize("board, white_passed, komi, favourite, expected", [
    (EYES, False, 0.5, "B4", "pass"),      # own eyes are never filled: pass is left
    (ONE_DAME, False, 4.5, "C5", "C5"),    # the search's choice stands
    (ONE_DAME, True, 3.5, "C5", "pass"),   # white passed and black wins the count: pass ends it
    (ONE_DAME, False, 4.5, "pass", "C5"),  # passing now loses by 0.5: the other move instead
], ids=["no-eye-filling", "search-choice", "pass-to-win", "no-losing-pass"])
def test_choose_move(board, white_passed, komi, favourite, expected):
    pos = Position.from_ascii(board, to_play=WHITE if white_passed else BLACK)
    if white_passed:
        pos.play(pos.pass_point)
    search = Search(Favourite(favourite), SearchConfig(komi=komi, pipeline=False))
    search.set_position(pos)
    search.run(visits=16)
    assert to_gtp(choose_move(search, pos, 0.0, komi), 5) == expected


def test_a_side_that_is_lost_resigns_unless_resignation_is_disabled():
    settings = GameSettings(size=5, komi=0.5, visits=4, resign_threshold=-0.9, resign_after=2,
                            no_resign_fraction=0.0, temperature_moves=0, max_moves=20, engine="python")
    lost = Favourite(black_value=-1.0)  # every evaluation says black loses (a Python evaluator: Search)
    game = play_game(lost, settings, seed=3)
    # Resignation counts from move 7 (a quarter of 25 points played): black's moves 9 and 11.
    assert (game.result, game.reason, game.winner, len(game.moves)) == ("W+R", "resign", "W", 10)
    # the root values follow the mover: black's searches see -1, white's +1 (values are the side to move's)
    assert game.root_values == [-1.0 if i % 2 == 0 else 1.0 for i in range(10)]
    assert game.margin is None and game.ownership is None

    played_out = play_game(lost, GameSettings(**{**settings.__dict__, "no_resign_fraction": 1.0}), seed=3)
    assert played_out.reason in ("score", "move_cap") and played_out.margin is not None
    assert played_out.notes == ["resignation disabled: B would have resigned at move 11"]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    return build_tiny_model(size=9, blocks=1, channels=8, seed=5, name="tiny-selfplay").save(
        tmp_path_factory.mktemp("model") / "tiny.onnx")


def test_selfplay_writes_valid_games_with_visit_targets_and_resumes(tmp_path, tiny_model):
    out = tmp_path / "selfplay"
    settings = GameSettings(size=9, komi=7.0, visits=8, fast_visits=2, full_fraction=0.5, max_moves=24,
                            temperature_moves=4)
    added = generate(SelfPlayConfig(tiny_model, out, 2, settings, per_shard=10, seed=1, progress=False))
    assert len(added) == 2
    games = read_shard(shard_paths(out)[0])
    assert games == added
    for game in games:
        assert (game.source, game.black, game.size, game.komi) == ("selfplay", "tiny-selfplay", 9, 7.0)
        assert len(game.visits) == len(game.moves) <= 24
        assert len(game.root_values) == len(game.moves)
        assert all(-1.0 <= v <= 1.0 for v in game.root_values) and len(set(game.root_values)) > 1
        full = [v for v in game.visits if v is not None]
        assert 0 < len(full) < len(game.moves)  # playout cap randomisation: some fast moves
        pos = Position(9)
        for vertex, visits in zip(game.moves, game.visits):
            if visits is not None:
                assert sum(visits.values()) >= 7 and all(pos.is_legal(from_gtp(v, 9)) for v in visits)
            pos.play(from_gtp(vertex, 9))
        final = replay(game)
        if game.reason != "resign":
            assert game.margin == area_score(final, 7.0).margin
            assert game.ownership == [int(v) for v in ownership(final)]
            assert game.ownership_source == "area"
    # Resuming: the games on disk count, one more is played (by a worker process).
    more = generate(SelfPlayConfig(tiny_model, out, 3, settings, workers=2, seed=1, progress=False))
    assert len(more) == 1 and len(shard_paths(out)) == 2


def test_positions_builder_turns_visits_into_policy_targets(tmp_path):
    sample = GameSample(size=9, komi=7.0, moves=["E5", "C3", "pass", "pass"], result="B+10", winner="B",
                        margin=10.0, ownership=[1] * 81, source="selfplay",
                        visits=[{"E5": 6, "D4": 2}, None, {"pass": 3, "G7": 1}, {"pass": 4}])
    rows = positions_of(sample)
    policy = rows["policy"]
    assert policy[0, from_gtp("E5", 9)] == 0.75 and policy[0, from_gtp("D4", 9)] == 0.25
    assert policy[1, from_gtp("C3", 9)] == 1.0  # no visits: the move played
    assert policy[2, 81] == 0.75 and policy[2, from_gtp("G7", 9)] == 0.25
    np.testing.assert_allclose(policy.sum(axis=1), 1.0)
    assert list(rows["value"]) == [1, -1, 1, -1]

    write_shard(tmp_path / "games" / "selfplay-000000.jsonl.gz", [sample])
    assert build(tmp_path / "games", tmp_path / "positions", val_every=1000) == (1, 4)
    shard = load_shard(sorted((tmp_path / "positions").glob("*.npz"))[0])
    assert shard["policy"][0, from_gtp("E5", 9)] == np.float16(0.75)


@pytest.mark.parametrize("argv, message", [
    (["--full-fraction", "0"], "full_fraction"),
    (["--visits", "0"], "visits"),
    (["--workers", "0"], "--workers"),
    (["--score-utility", "-1"], "--score-utility must be >= 0"),
])
def test_command_line_refuses_bad_settings(argv, message, capsys):
    with pytest.raises(SystemExit):
        parse_args(["--model", "m.onnx", "--games", "1", *argv])
    assert message in capsys.readouterr().err
