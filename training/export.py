"""ONNX export of a trained ``GoNet`` with the model contract's names and metadata.

``export_onnx`` writes the file; ``parity_check`` runs the same fixed inputs through
torch and onnxruntime and raises if any output differs by more than ``tolerance``
(1e-4 by default, the bar the contract sets). Uses the legacy TorchScript exporter
(opset 17), which needs no extra packages.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import torch

from gobuddy.ai.contract import INPUT as INPUT_NAME, OWNERSHIP, POLICY, SCORE_LEAD, VALUE, metadata_for, stamp
from training.network import GoNet

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


def parity_check(model: GoNet, path: str | Path, inputs: np.ndarray, tolerance: float = 1e-4) -> float:
    """Largest absolute difference between torch and onnxruntime on ``inputs``.

    Raises ``AssertionError`` naming the output when it exceeds ``tolerance``."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    ort_out = session.run(list(OUTPUT_NAMES), {INPUT_NAME: inputs.astype(np.float32)})
    with torch.no_grad():
        torch_out = [t.numpy() for t in model.eval()(torch.from_numpy(inputs.astype(np.float32)))]
    worst = 0.0
    for name, a, b in zip(OUTPUT_NAMES, torch_out, ort_out):
        diff = float(np.max(np.abs(a - b)))
        if diff > tolerance:
            raise AssertionError(f"ONNX output {name!r} differs from torch by {diff:.2e} > {tolerance:.0e}")
        worst = max(worst, diff)
    return worst
