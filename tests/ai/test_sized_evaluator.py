"""``SizedEvaluator``: the shipped 9x9 and 13x13 int8 twins behind one evaluator give
each position what its own size's model gives it, in a mixed batch too, staged or not."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gobuddy.ai.evaluator import Query, UniformEvaluator
from gobuddy.ai.onnx_evaluator import OnnxEvaluator
from gobuddy.ai.sized_evaluator import SizedEvaluator, StagedSizedEvaluator
from gobuddy.go.coords import from_gtp
from gobuddy.go.position import Position

MODELS = Path(__file__).resolve().parents[2] / "models"


@pytest.fixture(scope="module")
def parts() -> dict[int, OnnxEvaluator]:
    return {n: OnnxEvaluator(MODELS / f"gobuddy-{n}x{n}.int8.onnx") for n in (9, 13)}


def position(size: int, moves: str) -> Position:
    pos = Position(size)
    for vertex in moves.split():
        pos.play(from_gtp(vertex, size))
    return pos


# (board size, moves): the positions of one mixed batch
POSITIONS = [(9, "E5 C3"), (13, "G7 D4 K10"), (9, ""), (13, "")]


def test_each_position_gets_its_own_sizes_model(parts):
    both = SizedEvaluator.of([parts[9], parts[13]])
    assert isinstance(both, StagedSizedEvaluator) and both.board_sizes == (9, 13)
    assert both.name == f"{parts[9].name}+{parts[13].name}"
    queries = [Query.of(position(n, moves)) for n, moves in POSITIONS]
    mixed = both.evaluate(queries)
    for (n, _), query, got in zip(POSITIONS, queries, mixed):
        alone = parts[n].evaluate([query])[0]
        assert got.policy.shape == (n * n + 1,)
        np.testing.assert_allclose(got.policy, alone.policy, atol=1e-6)
        assert got.value == pytest.approx(alone.value, abs=1e-6)
    staged = [q for (n, _), q in zip(POSITIONS, queries) if n == 13]
    prepared = both.prepare(staged)
    for got, alone in zip(both.finish(prepared, both.infer(prepared)), parts[13].evaluate(staged)):
        np.testing.assert_allclose(got.policy, alone.policy, atol=1e-6)


def test_a_size_without_a_model_is_refused_by_name(parts):
    both = SizedEvaluator.of([parts[9], parts[13]])
    with pytest.raises(ValueError, match=r"plays board sizes \(9, 13\), not 19x19"):
        both.evaluate([Query.of(Position(19))])


@pytest.mark.parametrize("sizes, error", [
    ([], "no evaluator"),
    ([(9,), (9, 13)], "both play 9x9: give one model per board size"),
])
def test_what_cannot_be_built(sizes, error):
    evaluators = []
    for i, board_sizes in enumerate(sizes):
        e = UniformEvaluator()
        e.board_sizes, e.name = board_sizes, f"part-{i}"
        evaluators.append(e)
    with pytest.raises(ValueError, match=error):
        SizedEvaluator.of(evaluators)


def test_one_evaluator_comes_back_as_it_is_and_unstaged_parts_make_an_unstaged_whole(parts):
    assert SizedEvaluator.of([parts[9]]) is parts[9]
    small = UniformEvaluator()
    small.board_sizes = (5,)
    mixed = SizedEvaluator.of([parts[9], small])
    assert type(mixed) is SizedEvaluator and not hasattr(mixed, "infer")
    assert mixed.board_sizes == (5, 9) and not mixed.has_score
