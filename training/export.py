"""ONNX export of a trained ``GoNet`` with the model contract's names and metadata.

``export_onnx`` writes the file; ``save_weights`` writes the torch weights that ship beside
it (``--torch-out``), so the shipped model can be fine-tuned later (``training.train
--init``); ``max_difference`` runs the same inputs through torch and onnxruntime, and
``parity_check`` raises if any output differs by more than ``tolerance`` (1e-4 by
default, the bar the contract sets). Uses the legacy TorchScript exporter
(opset 17), which needs no extra packages.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import torch

from gobuddy.ai.contract import INPUT as INPUT_NAME, OWNERSHIP, POLICY, SCORE_LEAD, VALUE, metadata_for, stamp
from training.network import GoNet, NetConfig

OUTPUT_NAMES = (POLICY, VALUE, SCORE_LEAD, OWNERSHIP)


def export_onnx(model: GoNet, path: str | Path, size: int, *, model_name: str, provenance: dict,
                komi: float | None = None) -> Path:
    """Write ``model`` as ONNX for ``size`` x ``size`` boards with a dynamic batch axis.

    Metadata: ``gobuddy.contract.metadata_for`` (feature version, board sizes, name,
    provenance as JSON, and the komi the value head was trained for)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    model = model.eval().cpu()
    dummy = torch.zeros(1, model.config.planes, size, size)
    tmp = path.with_suffix(".tmp.onnx")
    torch.onnx.export(
        model, (dummy,), str(tmp), input_names=[INPUT_NAME], output_names=list(OUTPUT_NAMES),
        dynamic_axes={INPUT_NAME: {0: "batch"}, **{n: {0: "batch"} for n in OUTPUT_NAMES}},
        opset_version=17, dynamo=False)
    proto = onnx.load(str(tmp))
    stamp(proto, metadata_for(model_name, [size], provenance, komi=komi))
    onnx.checker.check_model(proto)
    onnx.save(proto, str(path))
    tmp.unlink()
    return path


def export_weights(weights: str | Path, path: str | Path, size: int) -> Path:
    """Export the torch weights file ``weights`` (``save_weights``' format) as ONNX for
    ``size`` x ``size`` boards, whatever size they were trained on (the network is fully
    convolutional): a line on a new board size starts from them. Written to a temporary
    file first; no parity check (there are no positions of that size yet: the candidate
    trained from it is checked at its export)."""
    weights, path = Path(weights), Path(path)
    state = torch.load(weights, map_location="cpu", weights_only=False)
    model = GoNet(NetConfig(**state["net"]))
    model.load_state_dict(state["model"])
    tmp = path.with_name(path.stem + ".export.onnx")
    export_onnx(model, tmp, size, model_name=f"{weights.stem}-at-{size}x{size}",
                provenance={"weights": str(weights), "note": f"no {size}x{size} training"})
    tmp.replace(path)
    return path


def save_weights(model: GoNet, path: str | Path, step: int, provenance: dict) -> Path:
    """Write ``model``'s weights as a checkpoint ``training.train --init`` starts from
    (``model``, ``net``, ``step``, ``provenance``; no optimizer state: about 2 MB for 6x64)."""
    from dataclasses import asdict

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    torch.save({"model": model.state_dict(), "net": asdict(model.config), "step": int(step),
                "provenance": provenance}, tmp)
    tmp.replace(path)
    return path


def max_difference(model: GoNet, path: str | Path, inputs: np.ndarray) -> dict[str, float]:
    """Largest absolute difference per output between ``model`` (eval) and onnxruntime."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    x = np.asarray(inputs, dtype=np.float32)
    ort_out = session.run(list(OUTPUT_NAMES), {INPUT_NAME: x})
    with torch.no_grad():
        torch_out = [t.numpy() for t in model.eval()(torch.from_numpy(x))]
    return {name: float(np.max(np.abs(a - b))) for name, a, b in zip(OUTPUT_NAMES, torch_out, ort_out)}


def parity_check(model: GoNet, path: str | Path, inputs: np.ndarray, tolerance: float = 1e-4) -> float:
    """The largest of ``max_difference``; ``AssertionError`` naming the first output
    beyond ``tolerance``."""
    differences = max_difference(model, path, inputs)
    for name, diff in differences.items():
        if diff > tolerance:
            raise AssertionError(f"ONNX output {name!r} differs from torch by {diff:.2e} > {tolerance:.0e}")
    return max(differences.values())


def main(argv: list[str] | None = None) -> None:
    """``python -m training.export --checkpoint runs/X/last.pt --out models/gobuddy-9x9.onnx``."""
    import argparse
    import json
    from datetime import datetime, timezone

    from training.network import NetConfig, count_parameters
    from training.position_shards import load_shard

    parser = argparse.ArgumentParser(description="Export a training checkpoint to ONNX with parity check")
    parser.add_argument("--checkpoint", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--data", type=Path, required=True, help="position shards for the parity check")
    parser.add_argument("--name", required=True, help="model name stored in the file")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--komi", type=float, default=7.0)
    parser.add_argument("--provenance", default="{}", help="JSON object: data, steps, machine, ...")
    parser.add_argument("--torch-out", type=Path, help="also write the torch weights here (they ship beside the ONNX file)")
    args = parser.parse_args(argv)
    state = torch.load(args.checkpoint, map_location="cpu", weights_only=False)
    model = GoNet(NetConfig(**state["net"]))
    model.load_state_dict(state["model"])
    provenance = {"steps": int(state["step"]), "parameters": count_parameters(model),
                  "architecture": f"{model.config.blocks} blocks x {model.config.channels} channels",
                  "date": datetime.now(timezone.utc).date().isoformat(), **json.loads(args.provenance)}
    tmp = args.out.with_name(args.out.stem + ".export.onnx")
    export_onnx(model, tmp, args.size, model_name=args.name, provenance=provenance, komi=args.komi)
    shard = load_shard(sorted(args.data.glob("val-*.npz"))[0])
    worst = parity_check(model, tmp, shard["features"][:32].astype(np.float32))
    tmp.replace(args.out)
    if args.torch_out is not None:
        save_weights(model, args.torch_out, int(state["step"]), provenance)
    print(f"wrote {args.out}: parity with torch within {worst:.1e}"
          + (f"; weights in {args.torch_out}" if args.torch_out is not None else ""))


if __name__ == "__main__":
    main()
