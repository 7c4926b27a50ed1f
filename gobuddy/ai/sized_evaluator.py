"""One evaluator per board size behind one ``Evaluator``: each batch goes to the
evaluator of its positions' size (the shipped 9x9 and 13x13 models are two files).

``SizedEvaluator.of(evaluators)`` builds it (one evaluator comes back as it is). It
accepts the union of their ``board_sizes``, says ``has_score``/``has_ownership`` only when
every part does, and ``name_for(size)`` names the part of a size (analyses report it:
``gobuddy.ai.analysis``). When every part is a ``StagedEvaluator`` it is one too
(``StagedSizedEvaluator``). A batch holds positions of one size, as ``OnnxEvaluator``
asks (a search's batches do); ``evaluate`` splits a mixed one by size and keeps the order.

Not checked: that the parts were trained alike (their values are taken as they come).
"""

from __future__ import annotations

from typing import Any, Sequence

from gobuddy.ai.evaluator import Evaluation, Query


class SizedEvaluator:
    """Evaluators by board size (see the module docstring)."""

    def __init__(self, by_size: dict[int, Any]) -> None:
        parts = list(dict.fromkeys(by_size.values()))
        self.by_size = dict(sorted(by_size.items()))
        self.board_sizes = tuple(self.by_size)
        self.name = "+".join(part.name for part in parts)
        self.has_score = all(part.has_score for part in parts)
        self.has_ownership = all(part.has_ownership for part in parts)

    @classmethod
    def of(cls, evaluators: Sequence[Any]) -> Any:
        """One evaluator for all of ``evaluators``' sizes; ``ValueError`` when two of
        them accept the same size (which should play it is not for us to guess) or
        there is none."""
        if not evaluators:
            raise ValueError("no evaluator")
        if len(evaluators) == 1:
            return evaluators[0]
        by_size: dict[int, Any] = {}
        for part in evaluators:
            for size in part.board_sizes:
                if size in by_size:
                    raise ValueError(f"{by_size[size].name!r} and {part.name!r} both play {size}x{size}: "
                                     "give one model per board size")
                by_size[size] = part
        staged = all(hasattr(part, "infer") for part in evaluators)
        return StagedSizedEvaluator(by_size) if staged else cls(by_size)

    def name_for(self, size: int) -> str:
        """The name of the model that judges ``size`` (what an analysis reports)."""
        return self.part(size).name

    def part(self, size: int) -> Any:
        """The evaluator of ``size``; ``ValueError`` naming the sizes there are."""
        try:
            return self.by_size[size]
        except KeyError:
            raise ValueError(f"{self.name!r} plays board sizes {self.board_sizes}, not {size}x{size}") from None

    def evaluate(self, queries: Sequence[Query]) -> list[Evaluation]:
        out: list[Evaluation | None] = [None] * len(queries)
        for size in dict.fromkeys(q.position.size for q in queries):
            index = [i for i, q in enumerate(queries) if q.position.size == size]
            for i, ev in zip(index, self.part(size).evaluate([queries[i] for i in index])):
                out[i] = ev
        return out  # type: ignore[return-value]


class StagedSizedEvaluator(SizedEvaluator):
    """A ``SizedEvaluator`` of ``StagedEvaluator`` parts, staged itself: the network of
    the batch's size runs alone in ``infer``."""

    def prepare(self, queries: Sequence[Query]) -> tuple[Any, Any]:
        """(the part, its prepared input) for a batch of one size."""
        part = self.part(queries[0].position.size if queries else self.board_sizes[0])
        return part, part.prepare(queries)

    def infer(self, prepared: tuple[Any, Any]) -> Any:
        return prepared[0].infer(prepared[1])

    def finish(self, prepared: tuple[Any, Any], raw: Any) -> list[Evaluation]:
        return prepared[0].finish(prepared[1], raw)


__all__ = ["SizedEvaluator", "StagedSizedEvaluator"]
