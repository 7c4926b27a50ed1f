"""The onnxruntime evaluator against the numpy reference of the same tiny network."""

from __future__ import annotations

import numpy as np
import pytest

from gobuddy.ai import symmetry
from gobuddy.ai.evaluator import Query, masked_softmax
from gobuddy.ai.features import encode_batch
from gobuddy.ai.onnx_evaluator import OnnxEvaluator
from gobuddy.go.coords import BLACK, WHITE
from gobuddy.go.position import Position

BOARDS = [
    ("""
     . . . . .
     . X O . .
     X O . O .
     . X O . .
     . . . . .
     """, BLACK),
    ("""
     X X O . .
     . X O . .
     X X O O .
     . X X O .
     X . X O .
     """, WHITE),
]


def queries() -> list[Query]:
    return [Query.of(Position.from_ascii(text, to_play=color)) for text, color in BOARDS]


def test_equals_the_numpy_reference(tiny5):
    model, path = tiny5
    qs = queries()
    got = OnnxEvaluator(path).evaluate(qs)
    ref = model.forward(encode_batch([q.position for q in qs], [q.history for q in qs]))
    for i, (q, ev) in enumerate(zip(qs, got)):
        assert np.allclose(ev.policy, masked_softmax(ref["policy"][i], q.legal), atol=1e-5)
        assert ev.policy[~q.legal].sum() == 0 and abs(ev.policy.sum() - 1) < 1e-9
        assert ev.value == pytest.approx(float(ref["value"][i, 0]), abs=1e-5)
        assert ev.score_lead == pytest.approx(float(ref["score_lead"][i, 0]), abs=1e-4)
        assert np.allclose(ev.ownership, ref["ownership"][i], atol=1e-5)


def test_symmetry_averaging_is_invariant_under_turning_the_board(tiny5):
    _, path = tiny5
    ev = OnnxEvaluator(path, symmetry="average")
    text, color = BOARDS[1]
    grid = np.array([[{"X": 1, "O": -1, ".": 0}[c] for c in row.split()] for row in text.strip().splitlines()])
    base = ev.evaluate([Query.of(Position.from_ascii(text, to_play=color))])[0]
    for k in (1, 6):
        turned = "\n".join(" ".join({1: "X", -1: "O", 0: "."}[int(v)] for v in row)
                           for row in symmetry.apply_planes(grid, k))
        other = ev.evaluate([Query.of(Position.from_ascii(turned, to_play=color))])[0]
        assert np.allclose(other.policy, symmetry.forward(base.policy, 5, k), atol=1e-6)
        assert other.value == pytest.approx(base.value, abs=1e-6)
        assert np.allclose(other.ownership, symmetry.forward(base.ownership, 5, k), atol=1e-6)


def test_random_symmetry_is_one_of_the_eight_and_repeatable(tiny5):
    model, path = tiny5
    q = queries()[0]
    x = encode_batch([q.position])[0]
    singles = []
    for k in range(8):
        out = model.forward(np.ascontiguousarray(symmetry.apply_planes(x, k))[None])
        singles.append(masked_softmax(symmetry.inverse(out["policy"][0], 5, k), q.legal))
    first = [e.policy for e in OnnxEvaluator(path, symmetry="random", seed=7).evaluate([q] * 6)]
    again = [e.policy for e in OnnxEvaluator(path, symmetry="random", seed=7).evaluate([q] * 6)]
    for p, r in zip(first, again):
        assert np.array_equal(p, r)
        assert any(np.allclose(p, s, atol=1e-5) for s in singles)


def test_batches_larger_than_max_batch_are_split(tiny5):
    _, path = tiny5
    qs = queries() * 5
    small = OnnxEvaluator(path, max_batch=3).evaluate(qs)
    whole = OnnxEvaluator(path).evaluate(qs)
    for a, b in zip(small, whole):
        assert np.allclose(a.policy, b.policy, atol=1e-6) and a.value == pytest.approx(b.value, abs=1e-6)


def test_refusals(tiny5):
    _, path = tiny5
    with pytest.raises(ValueError, match=r"supports board sizes \(5,\), not 9x9"):
        OnnxEvaluator(path).evaluate([Query.of(Position(9))])
    with pytest.raises(ValueError, match="symmetry must be one of"):
        OnnxEvaluator(path, symmetry="all")
    with pytest.raises(ValueError, match="at least 1"):
        OnnxEvaluator(path, intra_threads=0)


@pytest.mark.parametrize("mode", ["none", "random", "average"])
def test_the_three_stages_give_what_evaluate_gives(tiny5, mode):
    _, path = tiny5
    whole, staged = OnnxEvaluator(path, symmetry=mode, seed=4), OnnxEvaluator(path, symmetry=mode, seed=4)
    qs = queries()
    prepared = staged.prepare(qs)
    for a, b in zip(whole.evaluate(qs), staged.finish(prepared, staged.infer(prepared))):
        assert np.array_equal(a.policy, b.policy) and a.value == b.value and a.score_lead == b.score_lead
        assert np.array_equal(a.ownership, b.ownership)
    assert staged.finish(staged.prepare([]), staged.infer(staged.prepare([]))) == []


class WholeOnly:
    """An ONNX evaluator seen through ``evaluate`` alone (no stages)."""

    def __init__(self, inner: OnnxEvaluator) -> None:
        self.inner = inner
        self.name, self.has_score, self.has_ownership = inner.name, inner.has_score, inner.has_ownership
        self.board_sizes = inner.board_sizes

    def evaluate(self, queries):
        return self.inner.evaluate(queries)


def test_a_pipelined_search_builds_the_same_tree_with_stages_or_without(tiny9):
    from gobuddy.ai.mcts import Search, SearchConfig

    _, path = tiny9
    position = Position.from_ascii("""
        . . . . . . . . .
        . . . . . . . . .
        . . X O . . . . .
        . . X O . . . . .
        . . . X O . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        """, to_play=BLACK)
    trees = []
    for evaluator in (OnnxEvaluator(path), WholeOnly(OnnxEvaluator(path))):
        search = Search(evaluator, SearchConfig(batch_size=8, pipeline=True))
        search.set_position(position)
        search.run(visits=300)
        trees.append((search.root.moves.tolist(), search.root.N.tolist(), search.root.W.tolist()))
    assert trees[0] == trees[1] and sum(trees[0][1]) == 299
