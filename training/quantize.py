"""Int8 twin of a model: ``python -m training.quantize``.

    python -m training.quantize --model models/gobuddy-9x9.onnx [--out models/gobuddy-9x9.int8.onnx]
                                [--data POSITION_SHARDS] [--positions 1024] [--seed 0]

Static quantization with onnxruntime (QDQ: weights int8 per output channel, activations
uint8, MinMax ranges from calibration positions) of the residual trunk (the stem and the
blocks, where nearly all the arithmetic is) runs the network about 2.5x faster on these
CPUs (bench/RESULTS.md), so a search at the same time budget gets that many more visits.
The heads stay in float: a head's range is only as wide as the calibration positions
made it, and a 13x13 score lead of 170 points was clipped to the 64 that the
calibration games had reached (a 9-point mean error); in float the heads cost nothing
measurable and agree better (top move 96% rather than 94-95%). The int8 file keeps the
model contract (tensor names, metadata); its model name gains ``-int8`` and its
provenance names the source and the calibration.

Calibration and check positions are positions of games, never random boards: the
features of position shards (``--data``), else positions of games the source plays
against itself by its raw policy (seeded), so a clean checkout can quantize the shipped
model without data. The int8 file is written only when it agrees with its source on
positions it was not calibrated on (``Agreement.problems``: top move, policy
divergence, value, score lead, ownership); else ``QuantizeError`` names what differs.
Not checked here: the playing strength (a match does that; see the model card).
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from gobuddy.ai.contract import INPUT, META_MODEL_NAME, META_PROVENANCE, OWNERSHIP, POLICY, SCORE_LEAD, VALUE
from gobuddy.ai.evaluator import masked_softmax
from gobuddy.ai.features import board_array, encode, push_history
from gobuddy.ai.onnx_evaluator import OnnxEvaluator
from gobuddy.go.position import Position

# How far the int8 outputs may be from the source's on check positions.
MIN_TOP_MOVE = 0.90  # share of positions where both put the same move first
MAX_POLICY_KL = 0.02  # mean KL divergence of the policy, nats
MAX_VALUE_ERROR = 0.03  # mean absolute difference of the value, on -1..1
MAX_SCORE_ERROR = 1.0  # points, mean absolute difference of the score lead
MAX_OWNERSHIP_ERROR = 0.03  # mean absolute difference per point, on -1..1


class QuantizeError(RuntimeError):
    """The int8 model would not be the source's twin; the message says how it differs."""


@dataclass(frozen=True)
class Agreement:
    """How closely the int8 model follows its source on the check positions."""

    positions: int
    top_move: float
    policy_kl: float
    value_error: float
    score_error: float | None
    ownership_error: float | None

    def problems(self) -> list[str]:
        """What is outside the bounds (``MIN_TOP_MOVE`` ...); empty when it agrees."""
        out = []
        if self.top_move < MIN_TOP_MOVE:
            out.append(f"the same top move in only {self.top_move:.1%} of positions (at least {MIN_TOP_MOVE:.0%})")
        if self.policy_kl > MAX_POLICY_KL:
            out.append(f"policy divergence {self.policy_kl:.4f} nats (at most {MAX_POLICY_KL})")
        if self.value_error > MAX_VALUE_ERROR:
            out.append(f"value off by {self.value_error:.4f} on average (at most {MAX_VALUE_ERROR})")
        if self.score_error is not None and self.score_error > MAX_SCORE_ERROR:
            out.append(f"score lead off by {self.score_error:.2f} points on average (at most {MAX_SCORE_ERROR})")
        if self.ownership_error is not None and self.ownership_error > MAX_OWNERSHIP_ERROR:
            out.append(f"ownership off by {self.ownership_error:.4f} a point (at most {MAX_OWNERSHIP_ERROR})")
        return out

    def line(self) -> str:
        extra = "" if self.score_error is None else f", score lead {self.score_error:.2f} points"
        return (f"{self.positions} positions: same top move {self.top_move:.1%}, policy KL {self.policy_kl:.4f}, "
                f"value {self.value_error:.4f}{extra}")


def policy_game_positions(model: Path, count: int, seed: int) -> np.ndarray:
    """Feature planes of ``count`` positions from games ``model`` plays against itself,
    each move drawn from its raw policy over the legal moves (seeded: the same
    positions every time). A game ends at two passes or twice ``size**2`` moves."""
    evaluator = OnnxEvaluator(model)
    size = evaluator.board_sizes[0]
    rng = random.Random(seed)
    planes: list[np.ndarray] = []
    while len(planes) < count:
        position, history = Position(size), ()
        while position.passes < 2 and position.move_count < 2 * size * size and len(planes) < count:
            legal = position.legal_mask()
            features = encode(position, history, legal)
            planes.append(features)
            logits = evaluator.run_planes(features[None])[POLICY][0]
            policy = masked_softmax(logits, legal)
            point = rng.choices(range(len(policy)), weights=policy.tolist())[0]
            history = push_history(history, board_array(position))
            position.play(point)
    return np.stack(planes).astype(np.float32)


def shard_positions(folder: Path, count: int, seed: int) -> np.ndarray:
    """Feature planes of ``count`` positions drawn (seeded) from the shards in ``folder``."""
    shards = sorted(folder.glob("*.npz"))
    if not shards:
        raise QuantizeError(f"--data {folder}: no position shards (*.npz) there")
    rng = np.random.default_rng(seed)
    features = np.concatenate([np.load(s)["features"] for s in rng.permutation(shards)[:8]])
    if len(features) < count:
        raise QuantizeError(f"--data {folder}: {len(features)} positions, {count} wanted")
    return features[rng.choice(len(features), count, replace=False)].astype(np.float32)


def agreement(source: Path, twin: Path, planes: np.ndarray) -> Agreement:
    """Compare the outputs of ``twin`` with those of ``source`` on ``planes``."""
    a, b = OnnxEvaluator(source).run_planes(planes), OnnxEvaluator(twin).run_planes(planes)
    log_a = a[POLICY] - np.logaddexp.reduce(a[POLICY], axis=1, keepdims=True)
    log_b = b[POLICY] - np.logaddexp.reduce(b[POLICY], axis=1, keepdims=True)
    kl = float((np.exp(log_a) * (log_a - log_b)).sum(axis=1).mean())

    def error(name: str) -> float | None:
        return float(np.abs(a[name] - b[name]).mean()) if name in a and name in b else None

    return Agreement(len(planes), float((a[POLICY].argmax(1) == b[POLICY].argmax(1)).mean()), kl,
                     float(np.abs(a[VALUE] - b[VALUE]).mean()), error(SCORE_LEAD), error(OWNERSHIP))


TRUNK = ("/stem/", "/blocks/")  # ONNX node-name prefixes of training.network's trunk
METHOD = ("onnxruntime static QDQ of the trunk: int8 weights per channel, uint8 activations, MinMax; "
          "heads in float")  # recorded in each twin's provenance; a new method, a new text


def heads_of(model) -> list[str]:
    """Names of the nodes of ``model`` (an ``onnx.ModelProto``) outside the residual trunk;
    ``QuantizeError`` when it has no trunk by those names (not a network of ours)."""
    names = [node.name for node in model.graph.node]
    if not any(name.startswith(TRUNK) for name in names):
        raise QuantizeError(f"no residual trunk (nodes named {' or '.join(TRUNK)}) in the model")
    return [name for name in names if not name.startswith(TRUNK)]


def quantize(source: Path, out: Path, calibration: np.ndarray, check: np.ndarray) -> Agreement:
    """Write the int8 twin of ``source`` to ``out``, calibrated on ``calibration``, if it
    agrees with ``source`` on ``check`` (else ``QuantizeError``, and ``out`` untouched)."""
    import onnx
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    from training.make_model import file_digest  # (make_model imports this module)

    class Batches(CalibrationDataReader):
        def __init__(self) -> None:
            self.start = 0

        def get_next(self) -> dict[str, np.ndarray] | None:
            if self.start >= len(calibration):
                return None
            self.start += 32
            return {INPUT: calibration[self.start - 32:self.start]}

    with tempfile.TemporaryDirectory(prefix="gobuddy-quantize-") as tmp:
        prepared, quantized = Path(tmp, "prepared.onnx"), Path(tmp, "int8.onnx")
        quant_pre_process(str(source), str(prepared), skip_symbolic_shape=True)
        quantize_static(str(prepared), str(quantized), Batches(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        nodes_to_exclude=heads_of(onnx.load(str(prepared))))
        twin, original = onnx.load(str(quantized)), onnx.load(str(source))
        meta = {p.key: p.value for p in original.metadata_props}
        provenance = json.loads(meta.get(META_PROVENANCE, "{}") or "{}")
        provenance["quantized"] = {"from": meta.get(META_MODEL_NAME, source.name), "source_sha256": file_digest(source),
                                   "method": METHOD, "calibration_positions": len(calibration)}
        meta.update({META_MODEL_NAME: meta.get(META_MODEL_NAME, source.stem) + "-int8",
                     META_PROVENANCE: json.dumps(provenance)})
        del twin.metadata_props[:]
        for key, value in meta.items():
            twin.metadata_props.add(key=key, value=value)
        onnx.save(twin, str(quantized))
        found = agreement(source, quantized, check)
        problems = found.problems()
        if problems:
            raise QuantizeError(f"the int8 model of {source} is not its twin ({found.line()}): " + "; ".join(problems))
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp_out = out.with_name(out.name + ".tmp")
        tmp_out.write_bytes(quantized.read_bytes())
        tmp_out.replace(out)
    return found


def twin_path(model: Path) -> Path:
    """Where the int8 twin of ``model`` lives: ``gobuddy-9x9.onnx`` -> ``gobuddy-9x9.int8.onnx``."""
    return model.with_name(model.stem + ".int8.onnx")


def make_twin(model: Path, *, positions: int = 1024, check_positions: int = 1024, seed: int = 0,
              data: Path | None = None) -> Agreement:
    """Write ``twin_path(model)``, calibrated on positions of ``data`` or of ``model``'s
    own policy games (as ``main``); ``QuantizeError`` when it would not be a twin."""
    total = positions + check_positions
    planes = shard_positions(data, total, seed) if data else policy_game_positions(model, total, seed)
    return quantize(model, twin_path(model), planes[:positions], planes[positions:])


def made_how(twin: Path) -> dict | None:
    """The ``quantized`` part of ``twin``'s provenance (``from``, ``source_sha256``,
    ``method``, ...); None if unreadable or not a twin."""
    import onnx

    try:
        meta = {p.key: p.value for p in onnx.load(str(twin)).metadata_props}
        made = json.loads(meta[META_PROVENANCE])["quantized"]
        return made if isinstance(made, dict) else None
    except Exception:  # any unreadable or foreign file is not a twin
        return None


def twin_of(twin: Path) -> str | None:
    """The SHA-256 of the model ``twin`` was made from (its provenance); None if unreadable."""
    made = made_how(twin)
    return made.get("source_sha256") if made else None


def twin_is_current(model: Path) -> bool:
    """No twin of another model lies beside ``model``: none, or one made from these bytes."""
    from training.make_model import file_digest  # (make_model imports this module)

    twin = twin_path(model)
    return not twin.exists() or twin_of(twin) == file_digest(model)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.quantize", description=__doc__.split("\n\n")[0])
    p.add_argument("--model", type=Path, required=True, help="the ONNX model to quantize")
    p.add_argument("--out", type=Path, help="the int8 file (default: MODEL's name with .int8.onnx)")
    p.add_argument("--data", type=Path, help="position shards to calibrate on (default: the model's own games)")
    p.add_argument("--positions", type=int, default=1024, help="calibration positions (default 1024)")
    p.add_argument("--check-positions", type=int, default=1024, help="positions of the agreement check")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    out = a.out or twin_path(a.model)
    total = a.positions + a.check_positions
    try:
        planes = (shard_positions(a.data, total, a.seed) if a.data else
                  policy_game_positions(a.model, total, a.seed))
        found = quantize(a.model, out, planes[:a.positions], planes[a.positions:])
    except QuantizeError as exc:
        print(f"[quantize] refused: {exc}", flush=True)
        return 1
    print(f"[quantize] wrote {out} ({out.stat().st_size:,} bytes): {found.line()}", flush=True)
    print(json.dumps(asdict(found)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
