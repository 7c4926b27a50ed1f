"""Self-play with the Gumbel root search (``training.selfplay --search gumbel``): the
option end to end with the tiny model, its shard targets, and the PUCT games unchanged."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from gobuddy.ai.evaluator import Evaluation
from gobuddy.go.coords import from_gtp
from gobuddy.go.position import Position
from tests.tiny_model import build_tiny_model
from training.game_shards import read_shard, shard_paths
from training.selfplay import GameSettings, SelfPlayConfig, generate, parse_args, play_game


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
                            temperature_moves=6, no_resign_fraction=0.0)
    game = play_game(Hashed(), settings, seed=11)
    assert hashlib.sha256(game.to_json().encode()).hexdigest() == PUCT_GAME
