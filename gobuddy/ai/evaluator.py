"""The evaluator interface: a batch of positions (with history) in, for each one a policy
over legal moves, a value, and optionally a score lead and ownership out.

Every perspective is the SIDE TO MOVE of the evaluated position: ``value`` in [-1, 1]
(+1 = the side to move wins), ``score_lead`` in points, ``ownership`` in [-1, 1] per point
(+ = the side to move owns it). ``policy`` has ``size*size + 1`` entries (pass last), is
zero on illegal moves and sums to 1.

Two evaluators live here for tests and measurements; the real one is
``gobuddy.ai.onnx_evaluator.OnnxEvaluator``:

- ``UniformEvaluator``: uniform policy, value 0: costs (almost) nothing.
- ``TrompTaylorEvaluator``: uniform policy, value and score from the Tromp-Taylor area
  count of the position as it stands (meaningful on a nearly finished board).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol, Sequence

import numpy as np

from gobuddy.ai.features import History
from gobuddy.go.position import Position
from gobuddy.go.scoring import ownership


@dataclass(frozen=True, slots=True)
class Query:
    """One position to evaluate: the position, its history (previous boards, most
    recent first), its legal mask (``Position.legal_mask()``) and, when the caller has
    it, its board as ``features.board_array(position)`` (else ``None``; evaluators
    that encode features use it instead of reading the position again). Not checked:
    that the mask and the board belong to the position."""

    position: Position
    history: History
    legal: np.ndarray
    board: np.ndarray | None = None

    @classmethod
    def of(cls, position: Position, history: History = ()) -> "Query":
        """A query with the legal mask computed."""
        return cls(position, history, position.legal_mask())


@dataclass(frozen=True, slots=True)
class Evaluation:
    """The judgement of one position, from the side to move's point of view."""

    policy: np.ndarray
    value: float
    score_lead: float | None = None
    ownership: np.ndarray | None = None


class Evaluator(Protocol):
    """Anything that judges batches of positions.

    ``name`` is reported in analyses; ``has_score``/``has_ownership`` say whether
    ``score_lead``/``ownership`` are filled; ``board_sizes`` are the sizes accepted.
    ``evaluate`` returns one ``Evaluation`` per query, in order; it may raise
    ``ValueError`` for a board size it does not support."""

    name: str
    has_score: bool
    has_ownership: bool
    board_sizes: tuple[int, ...]

    def evaluate(self, queries: Sequence[Query]) -> list[Evaluation]: ...


class StagedEvaluator(Evaluator, Protocol):
    """An evaluator whose ``evaluate`` is three stages, so that a search can run the
    middle one on another thread: ``prepare(queries)`` (Python: checks and features),
    ``infer(prepared)`` (the network alone, which releases the GIL), ``finish(prepared,
    raw)`` (Python: the ``Evaluation`` list). ``evaluate(q)`` equals
    ``finish(p, infer(p))`` with ``p = prepare(q)``. ``prepare`` and ``finish`` are
    called from one thread; ``infer`` may be called from another."""

    def prepare(self, queries: Sequence[Query]) -> Any: ...

    def infer(self, prepared: Any) -> Any: ...

    def finish(self, prepared: Any, raw: Any) -> list[Evaluation]: ...


def masked_softmax(logits: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Softmax over the legal entries of each row (illegal ones get exactly 0), in
    float64.

    Works on one row or a batch (one set of numpy operations for the whole batch). A
    row with no legal entry is refused with ``ValueError`` (pass is always legal, so it
    means a malformed mask)."""
    legal = np.asarray(legal, dtype=bool)
    if not legal.any(axis=-1).all():
        raise ValueError("masked_softmax: a row has no legal move (pass must always be legal)")
    x = np.where(legal, logits.astype(np.float64), -np.inf)
    x -= x.max(axis=-1, keepdims=True)
    np.exp(x, out=x)
    x /= x.sum(axis=-1, keepdims=True)
    return x


def uniform_policy(legal: np.ndarray) -> np.ndarray:
    """Equal probability on every legal move."""
    p = legal.astype(np.float64)
    return p / p.sum()


class UniformEvaluator:
    """Uniform policy over legal moves and value 0: the free evaluator (all board sizes)."""

    name = "uniform"
    has_score = False
    has_ownership = False
    board_sizes = tuple(range(2, 26))

    def evaluate(self, queries: Sequence[Query]) -> list[Evaluation]:
        return [Evaluation(uniform_policy(q.legal), 0.0) for q in queries]


class TrompTaylorEvaluator:
    """Uniform policy; value ``tanh(lead / scale)`` where ``lead`` is the Tromp-Taylor area
    margin for the side to move with ``komi``; ownership from the same count.

    A controlled evaluator for tests: exact on finished boards, naive elsewhere (empty
    regions touching both colours count for nobody)."""

    has_score = True
    has_ownership = True
    board_sizes = tuple(range(2, 26))

    def __init__(self, komi: float = 7.0, scale: float = 3.0) -> None:
        self.komi = komi
        self.scale = scale
        self.name = f"tromp-taylor(komi {komi:g})"

    def evaluate(self, queries: Sequence[Query]) -> list[Evaluation]:
        out = []
        for q in queries:
            owner = ownership(q.position)
            lead = (float(owner.sum()) - self.komi) * q.position.to_play
            out.append(Evaluation(uniform_policy(q.legal), math.tanh(lead / self.scale), lead,
                                  owner.astype(np.float64) * q.position.to_play))
        return out
