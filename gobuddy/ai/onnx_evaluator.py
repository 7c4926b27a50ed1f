"""The evaluator that serves a contract-following ONNX model with onnxruntime on the CPU.

Loading checks the model against the contract (``gobuddy.ai.contract.check_model``) and
refuses a mismatch with ``ModelContractError``. Thread counts are always set explicitly
(one intra-op thread by default: on a shared 2-core machine that is the fastest choice
per process). Queries are encoded with ``gobuddy.ai.features`` and run in batches of at
most ``max_batch``.

Symmetries (``symmetry=``): ``"none"`` runs the identity only; ``"random"`` runs one
random symmetry per position (seeded by ``seed``); ``"average"`` runs all 8 and averages
policy probabilities, value, score and ownership (8x the cost). Policy and ownership are
mapped back to the original orientation before masking and averaging.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from gobuddy.ai import contract, symmetry
from gobuddy.ai.evaluator import Evaluation, Query, masked_softmax
from gobuddy.ai.features import encode_batch

SYMMETRY_MODES = ("none", "random", "average")


@dataclass(frozen=True)
class _Prepared:
    """A batch ready for the network: its planes (one row per position and symmetry),
    legal masks, position count, board size, and the symmetries (``None``: identity)."""

    planes: np.ndarray
    legal: np.ndarray
    count: int
    size: int
    flat_ks: list[int] | None


class OnnxEvaluator:
    """``Evaluator`` (a ``StagedEvaluator``) backed by an onnxruntime ``InferenceSession``.

    Not thread-safe for concurrent ``evaluate`` calls with ``symmetry="random"`` (the
    generator is shared); onnxruntime itself allows concurrent runs."""

    def __init__(self, path: str | Path, intra_threads: int = 1, inter_threads: int = 1,
                 symmetry: str = "none", seed: int | None = None, max_batch: int = 64,
                 spin: bool = False) -> None:
        import onnxruntime as ort

        if symmetry not in SYMMETRY_MODES:
            raise ValueError(f"symmetry must be one of {SYMMETRY_MODES}, got {symmetry!r}")
        if intra_threads < 1 or inter_threads < 1 or max_batch < 1:
            raise ValueError("intra_threads, inter_threads and max_batch must be at least 1")
        self.path = Path(path)
        if not self.path.is_file():
            raise FileNotFoundError(f"model file {self.path} does not exist")
        options = ort.SessionOptions()
        options.intra_op_num_threads = intra_threads
        options.inter_op_num_threads = inter_threads
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        options.add_session_config_entry("session.intra_op.allow_spinning", "1" if spin else "0")
        try:
            self.session = ort.InferenceSession(str(self.path), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own types for unreadable files
            raise contract.ModelContractError(f"{self.path}: onnxruntime cannot load it ({exc})") from exc
        inputs = {i.name: i.shape for i in self.session.get_inputs()}
        outputs = {o.name: o.shape for o in self.session.get_outputs()}
        meta = self.session.get_modelmeta().custom_metadata_map
        self.info = contract.check_model(meta, inputs, outputs, source=str(self.path))
        self.name = self.info.name
        self.board_sizes = self.info.board_sizes
        self.has_score = self.info.has_score
        self.has_ownership = self.info.has_ownership
        self.symmetry = symmetry
        self.max_batch = max_batch
        self._rng = random.Random(seed)
        self._outputs = [contract.POLICY, contract.VALUE]
        if self.has_score:
            self._outputs.append(contract.SCORE_LEAD)
        if self.has_ownership:
            self._outputs.append(contract.OWNERSHIP)

    def run_planes(self, planes: np.ndarray) -> dict[str, np.ndarray]:
        """The raw network outputs for feature planes ``[batch, planes, s, s]`` (any batch
        size; split into runs of ``max_batch``)."""
        x = np.ascontiguousarray(planes, dtype=np.float32)
        if len(x) <= self.max_batch:
            return dict(zip(self._outputs, self.session.run(self._outputs, {contract.INPUT: x})))
        parts = [self.session.run(self._outputs, {contract.INPUT: x[start:start + self.max_batch]})
                 for start in range(0, len(x), self.max_batch)]
        return {name: np.concatenate([p[i] for p in parts]) for i, name in enumerate(self._outputs)}

    def evaluate(self, queries: Sequence[Query]) -> list[Evaluation]:
        """Evaluate positions of one board size (see ``Evaluator``): one feature
        encoding, one network run (per ``max_batch``) and one masked softmax for the
        whole batch. The same as ``finish(p, infer(p))`` with ``p = prepare(queries)``."""
        prepared = self.prepare(queries)
        return self.finish(prepared, self.infer(prepared))

    def prepare(self, queries: Sequence[Query]) -> "_Prepared":
        """The network input of ``queries`` (see ``StagedEvaluator``); ``ValueError`` for
        a board size the model does not support."""
        if not queries:
            return _Prepared(np.zeros((0,)), np.zeros((0, 0), dtype=bool), 0, 0, None)
        size = queries[0].position.size
        if size not in self.board_sizes:
            raise ValueError(f"model {self.name!r} supports board sizes {self.board_sizes}, not {size}x{size}")
        legal = np.array([q.legal for q in queries])
        boards = [q.board for q in queries]
        x = encode_batch([q.position for q in queries], [q.history for q in queries], legal,
                         boards=None if any(b is None for b in boards) else boards)
        count = len(queries)
        if self.symmetry == "none":
            return _Prepared(x, legal, count, size, None)
        if self.symmetry == "random":
            ks = np.array([[self._rng.randrange(symmetry.COUNT)] for _ in range(count)])
        else:
            ks = np.tile(np.arange(symmetry.COUNT), (count, 1))
        per = ks.shape[1]
        flat_ks = [int(k) for k in ks.ravel()]
        batch = np.stack([symmetry.apply_planes(x[i // per], k) for i, k in enumerate(flat_ks)])
        return _Prepared(batch, legal, count, size, flat_ks)

    def infer(self, prepared: "_Prepared") -> dict[str, np.ndarray]:
        """The network outputs for a ``prepare``d batch (onnxruntime releases the GIL)."""
        return self.run_planes(prepared.planes) if prepared.count else {}

    def finish(self, prepared: "_Prepared", out: dict[str, np.ndarray]) -> list[Evaluation]:
        """The evaluations of a ``prepare``d batch from its ``infer`` outputs."""
        if not prepared.count:
            return []
        return self._results(out, prepared.legal, prepared.count, prepared.size, prepared.flat_ks)

    def _results(self, out: dict[str, np.ndarray], legal: np.ndarray, count: int, size: int,
                 flat_ks: list[int] | None) -> list[Evaluation]:
        """Evaluations from the network outputs of ``count`` positions, each run under
        ``len(flat_ks) // count`` symmetries (``flat_ks`` ``None``: the identity only),
        mapped back to the original orientation and averaged."""
        logits = out[contract.POLICY]
        own = out.get(contract.OWNERSHIP)
        value = out[contract.VALUE][:, 0]
        score = out[contract.SCORE_LEAD][:, 0] if self.has_score else None
        if flat_ks is None:
            policy = masked_softmax(logits, legal)
        else:
            per = len(flat_ks) // count
            logits = np.take_along_axis(logits, np.stack([symmetry.inverse_permutation(size, k) for k in flat_ks]), 1)
            policy = masked_softmax(logits, np.repeat(legal, per, axis=0)).reshape(count, per, -1).mean(axis=1)
            value = value.reshape(count, per).mean(axis=1)
            if score is not None:
                score = score.reshape(count, per).mean(axis=1)
            if own is not None:
                own = np.take_along_axis(own, np.stack([symmetry.inverse_permutation(size, k, False) for k in flat_ks]),
                                         1).reshape(count, per, -1).mean(axis=1)
        values = value.tolist()
        scores = score.tolist() if score is not None else [None] * count
        owns = list(own) if own is not None else [None] * count
        return [Evaluation(p, v, s, o) for p, v, s, o in zip(policy, values, scores, owns)]
