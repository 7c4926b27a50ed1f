"""Forced playouts and policy target pruning (KataGo's): the root's forced children
(``SearchConfig.forced_playouts``), the pruning that takes their visits back out of the
policy target (``training.target_pruning``), and self-play recording pruned targets."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from gobuddy.ai.mcts import Search, SearchConfig
from gobuddy.ai.onnx_evaluator import OnnxEvaluator
from gobuddy.go.position import Position
from training.selfplay import GameSettings, main as selfplay_main, play_game, root_visits
from training.target_pruning import pruned_visits

TWIN = Path(__file__).resolve().parents[2] / "models" / "gobuddy-9x9.int8.onnx"


@pytest.mark.parametrize("visits, q, prior, forced, expected", [
    # no forcing: the counts as they are
    ([80, 15, 5], [0.6, 0.2, -0.5], [0.5, 0.3, 0.2], 0.0, [80, 15, 5]),
    # best 80 keeps all; 15 loses what PUCT allows (down to 8.1 of its 7.7 forced); 5 down to 1.5
    ([80, 15, 5], [0.6, 0.2, -0.5], [0.5, 0.3, 0.2], 2.0, [80, 8.135, 1.516]),
    # a child left with one visit or fewer drops out of the target
    ([80, 15, 4], [0.6, 0.2, -0.5], [0.6, 0.35, 0.05], 2.0, [80, 9.231, 0]),
    # a close second on its own merit (its PUCT at 45 visits is below the best's): kept whole
    ([50, 45, 5], [0.3, 0.35, 0.0], [0.5, 0.3, 0.2], 2.0, [50, 45, 5]),
    # unvisited children stay at 0
    ([20, 0, 0], [0.1, 0.0, 0.0], [0.4, 0.3, 0.3], 2.0, [20, 0, 0]),
])
def test_pruned_visits(visits, q, prior, forced, expected):
    n = np.array(visits, dtype=float)
    out = pruned_visits(n, n * np.array(q), np.array(prior), 1.5, forced)
    np.testing.assert_allclose(out, expected, atol=1e-3)


@pytest.fixture(scope="module")
def twin() -> OnnxEvaluator:
    return OnnxEvaluator(TWIN)


def searched(twin, forced: float, seed: int = 0) -> Search:
    search = Search(twin, SearchConfig(komi=7.0, pipeline=False, noise=True, seed=seed, forced_playouts=forced))
    search.set_position(Position(9), ())
    search.run(visits=200)
    return search


def test_forced_playouts_bring_every_root_child_up_to_its_quota(twin):
    forced, plain = searched(twin, 2.0), searched(twin, 0.0)
    for search, reaches in ((forced, True), (plain, False)):
        root = search.root
        quota = np.sqrt(2.0 * root.prior * root.N.sum())
        assert bool((root.N >= quota - 0.5).all()) is reaches
    assert (forced.root.N > 0).sum() > 2 * (plain.root.N > 0).sum()  # the noise-raised moves get looked at


def test_the_recorded_target_takes_the_forced_visits_back_out(twin):
    search = searched(twin, 2.0)
    raw, target = root_visits(search), root_visits(search, 2.0)
    best = max(raw, key=raw.get)
    assert target[best] == raw[best]  # the best move keeps its visits
    assert set(target) < set(raw) and sum(target.values()) < sum(raw.values())
    assert all(target[m] <= raw[m] for m in target)


def test_selfplay_with_forced_playouts_records_pruned_targets(twin):
    settings = GameSettings(size=9, komi=7.0, visits=64, fast_visits=16, full_fraction=0.5, max_moves=20,
                            no_resign_fraction=1.0)
    plain = play_game(twin, settings, seed=7)
    forced = play_game(twin, replace(settings, forced_playouts=2.0), seed=7)
    targets = [v for v in forced.visits if v]
    assert targets and all(sum(v.values()) <= 64 for v in targets)
    assert forced.moves != plain.moves or forced.visits != plain.visits


@pytest.mark.parametrize("argv, message", [
    (["--forced-playouts", "-1"], "forced_playouts must be >= 0"),
    (["--forced-playouts", "2", "--search", "gumbel"], "only with the puct search"),
])
def test_the_command_refuses_forced_playouts_it_cannot_play(argv, message, capsys, tmp_path):
    with pytest.raises(SystemExit):
        selfplay_main(["--model", str(TWIN), "--games", "1", "--out", str(tmp_path)] + argv)
    assert message in capsys.readouterr().err
