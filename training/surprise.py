"""Policy surprise weighting (KataGo's): positions whose policy target surprised the
network are written into the training shards more often.

The surprise of a position is the KL divergence from the network's prior (its policy
over the legal moves, before any search) to the position's policy target. Among a
game's positions that carry a target (policy weight > 0), half of the total frequency
goes to all alike (0.5 each) and half in proportion to their surprise, so the game
keeps its number of such positions on average; a weight ``w`` becomes ``floor(w)``
copies and one more with probability ``w - floor(w)`` (so a dull position may be left
out). Positions without a target (random openings, fast searches) are written once.
Copies are not importance-weighted for the policy: the position is simply seen more
often. The value head may be spared the shift (``even_value``): each copy of a position
with frequency weight ``w`` then carries value weight ``1 / w`` (at most 2), so in
expectation every position counts once in the value loss, as unweighted, while the
policy sees the surprising ones more. Without it every copy trains the value alike
(the first A/B's arms, 2026-11-27).

``training.positions --surprise-model M`` applies it to the training split (validation
is written once per position, so its figures compare with unweighted runs). The prior
is the model given there (the one that played the games, for self-play). Not checked:
that the model is that one.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from gobuddy.ai import contract
from gobuddy.ai.evaluator import masked_softmax

UNIFORM_SHARE = 0.5  # the share of a game's frequency given to every targeted position alike


def policy_surprise(logits: np.ndarray, legal: np.ndarray, target: np.ndarray) -> np.ndarray:
    """KL(target || prior) per row, in nats: ``prior`` is the softmax of ``logits`` over
    the ``legal`` moves; rows without a target (all zeros) get 0."""
    prior = masked_softmax(logits, legal)
    t = np.asarray(target, dtype=np.float64)
    safe_t = np.where(t > 0, t, 1.0)
    terms = np.where(t > 0, t * (np.log(safe_t) - np.log(np.maximum(prior, 1e-30))), 0.0)
    return terms.sum(axis=-1)


def frequency_weights(surprise: np.ndarray, targeted: np.ndarray, uniform_share: float = UNIFORM_SHARE
                      ) -> np.ndarray:
    """Each row's frequency weight: 1 for rows not ``targeted``; for the targeted rows,
    ``uniform_share`` plus their share of the remaining ``(1 - uniform_share) * k``
    (``k`` targeted rows) in proportion to ``surprise`` (all 1 when nothing surprised)."""
    weights = np.ones(len(surprise), dtype=np.float64)
    targeted = np.asarray(targeted, dtype=bool)
    k = int(targeted.sum())
    total = float(np.asarray(surprise, dtype=np.float64)[targeted].sum())
    if k and total > 0:
        weights[targeted] = uniform_share + (1 - uniform_share) * k * surprise[targeted] / total
    return weights


def copies(weights: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """How many times each row is written: ``floor(w)``, plus one with probability ``w - floor(w)``."""
    base = np.floor(weights)
    return (base + (rng.random(len(weights)) < weights - base)).astype(np.int64)


class SurpriseWeighting:
    """Copies per position of one game, judged by the ONNX model at ``path`` (float or
    int8; one onnxruntime thread unless told). The draws are seeded by the game's
    moves, so a rebuild writes the same copies."""

    def __init__(self, path: str | Path, threads: int = 1, even_value: bool = False) -> None:
        from gobuddy.ai.onnx_evaluator import OnnxEvaluator

        self.path = Path(path)
        self.even_value = even_value
        self.network = OnnxEvaluator(self.path, intra_threads=threads, max_batch=256)

    def record(self) -> dict[str, str]:
        """How it weights, as ``training.positions`` records it beside the shards."""
        return {"surprise_model": self.digest(), "surprise_value": "even" if self.even_value else "copies"}

    def digest(self) -> str:
        """The model file's SHA-256 (recorded beside the shards it weighted)."""
        return hashlib.sha256(self.path.read_bytes()).hexdigest()

    def draw(self, rows: dict[str, np.ndarray], digest: bytes) -> tuple[np.ndarray, np.ndarray]:
        """``(copies, value_weight)`` of each row of ``training.positions.positions_of(...,
        with_legal=True)``: the value weight of each copy is ``1 / w`` with ``even_value``, else 1."""
        logits = self.network.run_planes(rows["features"].astype(np.float32))[contract.POLICY]
        surprise = policy_surprise(logits, rows["legal"], rows["policy"])
        weights = frequency_weights(surprise, rows["weight"] > 0)
        seed = int.from_bytes(digest[:8], "big")  # the game's digest (GameSample.digest): a rebuild draws alike
        value_weight = 1.0 / weights if self.even_value else np.ones(len(weights))
        return copies(weights, np.random.default_rng(seed)), value_weight
