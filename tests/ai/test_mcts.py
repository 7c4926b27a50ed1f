"""PUCT search behaviour on positions with known answers, under a controlled evaluator:
uniform policy and a value from the Tromp-Taylor count as it stands (small, nearly
finished boards, where that count is the truth)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from gobuddy.ai.evaluator import TrompTaylorEvaluator, UniformEvaluator
from gobuddy.ai.mcts import Search, SearchConfig
from gobuddy.go.coords import BLACK, WHITE, from_gtp, to_gtp
from gobuddy.go.position import Position

from .boards import ATARI, CAPTURE, EYES, ONE_DAME


def search_on(board: str, to_play: int, komi: float, opponent_passed: bool = False, visits: int = 300,
              **config) -> Search:
    pos = Position.from_ascii(board, to_play=-to_play if opponent_passed else to_play)
    if opponent_passed:
        pos.play(pos.pass_point)
    search = Search(TrompTaylorEvaluator(komi), SearchConfig(komi=komi, seed=1, **config))
    search.set_position(pos)
    search.run(visits=visits)
    return search


def best(search: Search) -> str:
    return to_gtp(search.choose(), search.root.position.size)


@pytest.mark.parametrize("name, board, to_play, komi, passed, expected", [
    ("capture the last-liberty stone", CAPTURE, BLACK, 0.5, False, "A3"),
    ("save the stone in atari", ATARI, BLACK, 0.5, False, "C3"),
    ("the only winning move, black", ONE_DAME, BLACK, 4.5, False, "C5"),
    ("the only winning move, white", ONE_DAME, WHITE, 4.5, False, "C5"),
    ("behind after a pass: play on, do not pass", ONE_DAME, BLACK, 4.5, True, "C5"),
    ("game over and won: pass", EYES, BLACK, 0.5, True, "pass"),
    ("settled and ahead: pass rather than fill an eye", EYES, BLACK, 0.5, False, "pass"),
])
def test_known_answers(name, board, to_play, komi, passed, expected):
    assert best(search_on(board, to_play, komi, passed)) == expected, name


def test_terminal_values_are_the_exact_tromp_taylor_result():
    s = search_on(EYES, BLACK, 0.5, opponent_passed=True)
    root = s.root
    i = int(np.flatnonzero(root.moves == root.position.pass_point)[0])
    child = root.children[i]
    assert child.terminal == (-1.0, -4.5)  # white to move after the game ended B+4.5
    assert s.child_q(root, i) == 1.0       # from black's side: a sure win
    assert s.pv(root, i) == [root.position.pass_point]


def test_visit_bookkeeping_leaves_no_virtual_loss():
    s = search_on(ONE_DAME, BLACK, 4.5, visits=400, batch_size=16)
    stack = [s.root]
    while stack:
        node = stack.pop()
        if not node.expanded:
            continue
        assert np.array_equal(node.N, np.round(node.N)), "virtual loss left behind"
        assert abs(node.N.sum() - (node.visits - 1)) < 1e-9 and abs(node.nsum - node.N.sum()) < 1e-9
        visited = node.N > 0
        assert np.all(np.abs(node.W[visited] / node.N[visited]) <= 1 + 1e-9)
        assert not node.pending
        stack.extend(c for c in node.children if c is not None)
    assert s.root.visits == 400


def test_collisions_on_a_narrow_tree_are_undone():
    s = Search(UniformEvaluator(), SearchConfig(batch_size=16))
    pos = Position.from_ascii(EYES)
    s.set_position(pos)
    stats = s.run(visits=60)
    assert stats.collisions > 0
    assert s.root.visits == 60 and np.array_equal(s.root.N, np.round(s.root.N))


def test_tree_reuse_across_moves():
    s = search_on(ONE_DAME, BLACK, 4.5, visits=300)
    kept = s.root.visits
    pos = s.root.position.copy()
    pos.play(from_gtp("C5", 5))
    pos.play(from_gtp("E5", 5))
    assert s.set_position(pos)
    assert 0 < s.root.visits < kept and s.root.parent is None
    other = Position.from_ascii(CAPTURE)
    assert not s.set_position(other) and s.root.visits == 0


def test_limits_time_stop_and_early_stop():
    pos = Position.from_ascii(ONE_DAME)
    s = Search(TrompTaylorEvaluator(4.5), SearchConfig(komi=4.5))
    s.set_position(pos)
    stats = s.run(visits=5000, early_stop=True)
    assert stats.stopped_by == "settled" and s.root.visits < 5000
    s.clear()
    s.set_position(pos)
    stats = s.run(seconds=0.15)
    assert stats.stopped_by == "time" and 0.15 <= stats.elapsed < 1.0
    stop = threading.Event()
    stop.set()
    s.clear()
    s.set_position(pos)
    stats = s.run(stop=stop)
    assert stats.stopped_by == "stop" and stats.batches == 1
    with pytest.raises(ValueError, match="needs visits, seconds or a stop"):
        s.run()


def test_noise_and_temperature_for_self_play():
    pos = Position(5)
    s = Search(UniformEvaluator(), SearchConfig(noise=True, seed=5))
    s.set_position(pos)
    s.run(visits=200)
    root = s.root
    assert np.allclose(root.prior_raw, 1 / 26) and not np.allclose(root.prior, root.prior_raw)
    assert abs(root.prior.sum() - 1) < 1e-9
    picks = {s.choose(temperature=1.0) for _ in range(50)}
    assert len(picks) > 3
    assert all(root.N[np.flatnonzero(root.moves == m)[0]] > 0 for m in picks)
    assert s.choose() == int(root.moves[s.ranked()[0]])


def test_a_failing_evaluator_resets_the_tree():
    class Broken(UniformEvaluator):
        calls = 0

        def evaluate(self, queries):
            self.calls += 1
            if self.calls > 3:
                raise RuntimeError("model crashed")
            return super().evaluate(queries)

    s = Search(Broken())
    s.set_position(Position(5))
    with pytest.raises(RuntimeError, match="model crashed"):
        s.run(visits=100)
    assert s.root is None
