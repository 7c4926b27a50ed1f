"""Self-play with the Gumbel root search (``training.selfplay --search gumbel``): the
option end to end with the tiny model, its shard targets, and the PUCT games unchanged."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from gobuddy.ai.evaluator import Evaluation
from gobuddy.go.coords import from_gtp
from gobuddy.go.position import Position
from tests.tiny_model import build_tiny_model
from training.game_shards import read_shard, shard_paths
from training.selfplay import GameSettings, generate, parse_args, play_game


class Hashed:
    """Duck-typed evaluator, the same on every machine: policy and value drawn from a
    generator seeded by the position's Zobrist key."""

    has_score = has_ownership = False
    board_sizes = tuple(range(2, 26))
    name = "hashed"

    def evaluate(self, queries):
        out = []
        for q in queries:
            rng = np.random.default_rng([q.position.key() & 0xFFFFFFFF, q.position.move_count])
            policy = np.where(q.legal, rng.random(q.legal.shape) ** 4, 0.0)
            out.append(Evaluation(policy / policy.sum(), float(rng.uniform(-0.5, 0.5))))
        return out


# sha256 of the game's JSON line, recorded with the PUCT self-play as it was before the
# Gumbel search existed (commit bf48241): the default search must keep every byte.
PUCT_GAME = "872e374dfde2b7dd57b2cd508da0856fb05b41ce27846ef6a1b5b18d79e29f25"


def test_puct_games_are_byte_identical_to_before():
    settings = GameSettings(size=7, komi=7.0, visits=24, fast_visits=6, full_fraction=0.4, max_moves=60,
                            temperature_moves=6, no_resign_fraction=0.0, engine="python")  # Hashed is no ONNX model
    game = play_game(Hashed(), settings, seed=11)
    line = json.loads(game.to_json())
    values = line.pop("root_values")  # recorded since 2026-11-27; every byte before it is as it was
    assert len(values) == len(game.moves)
    assert hashlib.sha256(json.dumps(line, separators=(",", ":")).encode()).hexdigest() == PUCT_GAME


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    return build_tiny_model(size=9, blocks=1, channels=8, seed=5, name="tiny-gumbel").save(
        tmp_path_factory.mktemp("model") / "tiny.onnx")


def test_gumbel_option_plays_games_with_distribution_targets(tmp_path, tiny_model):
    config = parse_args(["--model", str(tiny_model), "--out", str(tmp_path / "selfplay"), "--games", "1",
                         "--search", "gumbel", "--visits", "12", "--fast-visits", "4", "--full-fraction", "0.5",
                         "--max-moves", "30", "--seed", "3", "--no-progress"])
    assert (config.settings.root_search, config.settings.gumbel_k, config.settings.gumbel_fast_k) == ("gumbel", 16, 8)
    (game,) = generate(config)
    assert read_shard(shard_paths(tmp_path / "selfplay")[0]) == [game]
    assert len(game.visits) == len(game.moves) == 30
    full = [v for v in game.visits if v is not None]
    assert 0 < len(full) < len(game.moves)
    pos = Position(9)
    for vertex, target in zip(game.moves, game.visits):
        if target is not None:
            # a distribution in thousandths over legal moves, wider than the 12 simulations reach
            assert abs(sum(target.values()) - 1000) <= len(target) / 2 and len(target) > 16
            assert all(pos.is_legal(from_gtp(v, 9)) for v in target)
        pos.play(from_gtp(vertex, 9))


def test_gumbel_games_follow_from_the_seed():
    settings = GameSettings(size=7, visits=10, fast_visits=3, full_fraction=0.5, max_moves=30, root_search="gumbel")
    first, again = play_game(Hashed(), settings, seed=4), play_game(Hashed(), settings, seed=4)
    assert first == again and first != play_game(Hashed(), settings, seed=5)


@pytest.mark.parametrize("argv, message", [
    (["--search", "alphago"], "--search"),
    (["--gumbel-k", "0"], "gumbel_k"),
])
def test_command_line_refuses_bad_search_settings(argv, message, capsys):
    with pytest.raises(SystemExit):
        parse_args(["--model", "m.onnx", "--games", "1", *argv])
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("search", ["puct", "gumbel"])
def test_a_round_passes_its_selfplay_search_through(tmp_path, search):
    from training.improve import RoundPlan, generator_commands

    (command,) = generator_commands(RoundPlan("r9", root=tmp_path, engine_workers=0, selfplay_search=search))
    assert parse_args(command[3:]).settings.root_search == search
