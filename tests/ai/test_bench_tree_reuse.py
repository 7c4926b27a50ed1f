"""The tree-reuse bench plays real searches with the shipped model and its figures are
shares: each player's first search starts from nothing, later ones keep part of the tree."""

from __future__ import annotations

from pathlib import Path

from bench.bench_tree_reuse import play
from gobuddy.ai.onnx_evaluator import OnnxEvaluator
from gobuddy.ai.player import PlayerConfig, SearchPlayer
from gobuddy.go.coords import BLACK, WHITE

SHIPPED = Path(__file__).resolve().parents[2] / "models" / "gobuddy-9x9.onnx"


def test_a_game_reuses_part_of_the_tree() -> None:
    players = {c: SearchPlayer(OnnxEvaluator(SHIPPED), PlayerConfig(visits=96, resign_threshold=None))
               for c in (BLACK, WHITE)}
    shares = play(players, 96, seed=3, max_moves=24)
    assert len(shares) == 22 and all(0.0 <= s <= 1.0 for s in shares)
    assert shares[0] == shares[1] == 0.0  # each player's first search starts from nothing
    assert sum(s > 0 for s in shares[2:]) >= 5  # later ones keep what their search and the reply left
