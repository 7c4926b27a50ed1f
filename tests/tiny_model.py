"""A small residual network with random weights, built as an ONNX model that follows the
model contract: for tests, benchmarks and anyone who needs a model before a trained one
exists. Its moves are random-ish; only its shapes, names and metadata are real.

Architecture (weights from a seeded numpy generator, float32):
stem 3x3 conv + ReLU; ``blocks`` residual blocks (3x3 conv, ReLU, 3x3 conv, add, ReLU);
policy head 1x1 conv to 2 channels + ReLU, flatten, dense to ``size*size + 1`` logits;
value head 1x1 conv to 1 channel + ReLU, flatten, dense to ``hidden`` + ReLU, then dense
to 1 + tanh (``value``) and dense to 1 times 10 (``score_lead``); ownership 1x1 conv
to 1 channel + tanh, flattened. ``TinyModel.forward`` computes the same in numpy: the
reference the onnxruntime evaluator is tested against.

Needs the ``onnx`` package (a dev/train dependency), imported only when building.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gobuddy.ai import contract
from gobuddy.ai.features import FEATURE_VERSION, NUM_PLANES

OPSET = 17


@dataclass
class TinyModel:
    """The weights (name -> float32 array) and the ONNX model built from them."""

    size: int
    blocks: int
    channels: int
    weights: dict[str, np.ndarray]
    proto: Any = field(repr=False)
    with_score: bool = True
    with_ownership: bool = True

    def save(self, path: str | Path) -> Path:
        """Write the ONNX file (parent folders created)."""
        import onnx

        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        onnx.save(self.proto, str(path))
        return path

    def forward(self, x: np.ndarray) -> dict[str, np.ndarray]:
        """Numpy reference of the network on ``x`` ``[batch, planes, size, size]``."""
        w = self.weights
        h = _relu(_conv(x, w["stem.w"], w["stem.b"]))
        for i in range(self.blocks):
            y = _relu(_conv(h, w[f"b{i}.c1.w"], w[f"b{i}.c1.b"]))
            y = _conv(y, w[f"b{i}.c2.w"], w[f"b{i}.c2.b"])
            h = _relu(h + y)
        batch = x.shape[0]
        p = _relu(_conv(h, w["pol.conv.w"], w["pol.conv.b"])).reshape(batch, -1)
        policy = p @ w["pol.fc.w"] + w["pol.fc.b"]
        v = _relu(_conv(h, w["val.conv.w"], w["val.conv.b"])).reshape(batch, -1)
        hidden = _relu(v @ w["val.fc.w"] + w["val.fc.b"])
        out = {contract.POLICY: policy, contract.VALUE: np.tanh(hidden @ w["val.out.w"] + w["val.out.b"])}
        if self.with_score:
            out[contract.SCORE_LEAD] = (hidden @ w["score.w"] + w["score.b"]) * 10.0
        if self.with_ownership:
            out[contract.OWNERSHIP] = np.tanh(_conv(h, w["own.w"], w["own.b"])).reshape(batch, -1)
        return out


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


def _conv(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """'Same' convolution, stride 1, weights ``[out, in, k, k]`` (k odd)."""
    k = w.shape[2]
    pad = k // 2
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    hgt, wid = x.shape[2], x.shape[3]
    out = np.zeros((x.shape[0], w.shape[0], hgt, wid), dtype=np.float64)
    for dy in range(k):
        for dx in range(k):
            out += np.einsum("bchw,oc->bohw", xp[:, :, dy:dy + hgt, dx:dx + wid], w[:, :, dy, dx])
    return out + b[None, :, None, None]


def _weights(size: int, blocks: int, channels: int, hidden: int, planes: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = size * size

    def conv(out: int, inp: int, k: int, gain: float = 1.0) -> np.ndarray:
        return (rng.standard_normal((out, inp, k, k)) * gain * np.sqrt(2.0 / (inp * k * k))).astype(np.float32)

    def dense(inp: int, out: int, gain: float = 1.0) -> np.ndarray:
        return (rng.standard_normal((inp, out)) * gain * np.sqrt(1.0 / inp)).astype(np.float32)

    def bias(count: int) -> np.ndarray:
        return (rng.standard_normal(count) * 0.05).astype(np.float32)

    w = {"stem.w": conv(channels, planes, 3), "stem.b": bias(channels)}
    for i in range(blocks):
        w[f"b{i}.c1.w"], w[f"b{i}.c1.b"] = conv(channels, channels, 3), bias(channels)
        w[f"b{i}.c2.w"], w[f"b{i}.c2.b"] = conv(channels, channels, 3, 0.5), bias(channels)
    w["pol.conv.w"], w["pol.conv.b"] = conv(2, channels, 1), bias(2)
    w["pol.fc.w"], w["pol.fc.b"] = dense(2 * n, n + 1), bias(n + 1)
    w["val.conv.w"], w["val.conv.b"] = conv(1, channels, 1), bias(1)
    w["val.fc.w"], w["val.fc.b"] = dense(n, hidden), bias(hidden)
    w["val.out.w"], w["val.out.b"] = dense(hidden, 1, 0.5), bias(1)
    w["score.w"], w["score.b"] = dense(hidden, 1, 0.5), bias(1)
    w["own.w"], w["own.b"] = conv(1, channels, 1), bias(1)
    return w


def build_tiny_model(size: int = 9, blocks: int = 2, channels: int = 16, hidden: int = 32, seed: int = 0,
                     name: str = "tiny-random", with_score: bool = True, with_ownership: bool = True,
                     komi: float | None = 7.0, planes: int = NUM_PLANES,
                     feature_version: int = FEATURE_VERSION) -> TinyModel:
    """Build the network for ``size`` x ``size`` boards (batch axis dynamic).

    ``planes`` and ``feature_version`` exist to build models that break the contract
    on purpose (for refusal tests); the defaults follow it."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    n = size * size
    w = _weights(size, blocks, channels, hidden, planes, seed)
    nodes = []

    def conv(inp: str, prefix: str, out: str, k: int) -> str:
        nodes.append(helper.make_node("Conv", [inp, f"{prefix}.w", f"{prefix}.b"], [out],
                                      kernel_shape=[k, k], pads=[k // 2] * 4))
        return out

    def op(kind: str, inputs: list[str], out: str, **attrs: Any) -> str:
        nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    h = op("Relu", [conv(contract.INPUT, "stem", "stem.y", 3)], "stem.r")
    for i in range(blocks):
        y = op("Relu", [conv(h, f"b{i}.c1", f"b{i}.y1", 3)], f"b{i}.r1")
        y = conv(y, f"b{i}.c2", f"b{i}.y2", 3)
        h = op("Relu", [op("Add", [h, y], f"b{i}.sum")], f"b{i}.out")
    p = op("Flatten", [op("Relu", [conv(h, "pol.conv", "pol.c", 1)], "pol.r")], "pol.flat", axis=1)
    op("Gemm", [p, "pol.fc.w", "pol.fc.b"], contract.POLICY)
    v = op("Flatten", [op("Relu", [conv(h, "val.conv", "val.c", 1)], "val.r")], "val.flat", axis=1)
    hid = op("Relu", [op("Gemm", [v, "val.fc.w", "val.fc.b"], "val.fc")], "val.hidden")
    op("Tanh", [op("Gemm", [hid, "val.out.w", "val.out.b"], "val.pre")], contract.VALUE)
    outputs = [helper.make_tensor_value_info(contract.POLICY, TensorProto.FLOAT, ["batch", n + 1]),
               helper.make_tensor_value_info(contract.VALUE, TensorProto.FLOAT, ["batch", 1])]
    inits = [numpy_helper.from_array(arr, key) for key, arr in w.items()]
    if with_score:
        inits.append(numpy_helper.from_array(np.array(10.0, dtype=np.float32), "score.scale"))
        op("Mul", [op("Gemm", [hid, "score.w", "score.b"], "score.raw"), "score.scale"], contract.SCORE_LEAD)
        outputs.append(helper.make_tensor_value_info(contract.SCORE_LEAD, TensorProto.FLOAT, ["batch", 1]))
    if with_ownership:
        o = op("Tanh", [conv(h, "own", "own.c", 1)], "own.t")
        op("Flatten", [o], contract.OWNERSHIP, axis=1)
        outputs.append(helper.make_tensor_value_info(contract.OWNERSHIP, TensorProto.FLOAT, ["batch", n]))
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info(contract.INPUT, TensorProto.FLOAT, ["batch", planes, size, size])],
        outputs, initializer=inits)
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="gobuddy.tiny_model")
    proto.ir_version = 8
    provenance = {"data": "none (random weights)", "steps": 0, "seed": seed,
                  "architecture": f"{blocks} blocks x {channels} channels"}
    contract.stamp(proto, contract.metadata_for(name, [size], provenance, komi, feature_version))
    onnx.checker.check_model(proto)
    return TinyModel(size, blocks, channels, w, proto, with_score, with_ownership)


def main() -> None:
    parser = argparse.ArgumentParser(description="Write a random-weight ONNX model that follows the model contract.")
    parser.add_argument("out", type=Path)
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--blocks", type=int, default=2)
    parser.add_argument("--channels", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--name", default="tiny-random")
    args = parser.parse_args()
    model = build_tiny_model(args.size, args.blocks, args.channels, seed=args.seed, name=args.name)
    print(model.save(args.out))


if __name__ == "__main__":
    main()
