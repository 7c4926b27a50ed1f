"""Read an exported model back into a trainable ``GoNet``: ``python -m training.onnx_import``.

    python -m training.onnx_import --model models/gobuddy-9x9.onnx \\
        --data data/positions --out runs/sl1/imported.pt

Only the ONNX file of an early shipped model survived the machine that trained it.
The exporter folds every batch norm into the convolution before it, so the file holds
``W'`` and ``b'`` with ``conv_W'(x) + b' = bn(conv_W(x))`` and no normalisation
statistics. Importing therefore takes two steps:

1. ``import_onnx``: convolutions and linear layers are matched to the file's ``Conv``
   and ``Gemm`` nodes in execution order (shapes checked), each folded bias goes into
   the following batch norm's shift, and the batch norm is made an identity in eval
   mode. The result computes exactly what the file computes (checked against
   onnxruntime by ``training.export.max_difference``).
2. ``recalibrate_batch_norm``: in training mode a batch norm divides by the batch's own
   statistics, which would change the function at the first step of fine-tuning. Each
   batch norm is given the mean and variance that its input has on real positions
   (``running_mean``/``running_var``) and the matching scale and shift
   (``weight = sqrt(var + eps)``, ``bias = mean + b'``): still exact in eval mode, and
   close to the file in training mode on batches like those positions.

The checkpoint written has the layout of ``training.train`` (``model``, ``net``,
``step`` 0), so ``python -m training.train --init`` fine-tunes from it. Not handled: a
file made by another exporter, graph or architecture (``OnnxLayoutError`` names what did not
match).
"""

from __future__ import annotations

import argparse
from dataclasses import asdict
from pathlib import Path

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from torch import nn

from training.export import max_difference
from training.network import GoNet, NetConfig

__all__ = ["OnnxLayoutError", "import_onnx", "max_difference", "recalibrate_batch_norm", "net_config_of"]

class OnnxLayoutError(ValueError):
    """The file does not match the ``GoNet`` layout (the message says where)."""


def _constants(proto: onnx.ModelProto) -> dict[str, np.ndarray]:
    """Every constant tensor by name: initializers, ``Constant`` outputs, and the
    ``Identity`` aliases the exporter makes when two initializers are equal."""
    values = {i.name: numpy_helper.to_array(i) for i in proto.graph.initializer}
    for node in proto.graph.node:
        if node.op_type == "Constant":
            for attr in node.attribute:
                if attr.name == "value":
                    values[node.output[0]] = numpy_helper.to_array(attr.t)
        elif node.op_type == "Identity" and node.input[0] in values:
            values[node.output[0]] = values[node.input[0]]
    return values


def net_config_of(proto: onnx.ModelProto) -> NetConfig:
    """The ``NetConfig`` whose export has this graph's layer shapes."""
    inits = _constants(proto)
    convs = [n for n in proto.graph.node if n.op_type == "Conv"]
    if not convs:
        raise OnnxLayoutError("the graph has no Conv node")
    stem = inits[convs[0].input[1]]
    channels, planes = int(stem.shape[0]), int(stem.shape[1])
    tower = [n for n in convs if tuple(inits[n.input[1]].shape[2:]) == (3, 3)]
    blocks, odd = divmod(len(tower) - 1, 2)
    heads = [inits[n.input[1]] for n in convs if n not in tower]
    gemms = [inits[n.input[1]] for n in proto.graph.node if n.op_type == "Gemm"]
    if odd or not heads or len(gemms) < 4:
        raise OnnxLayoutError(f"unexpected layer counts: {len(tower)} 3x3 convolutions, {len(gemms)} Gemm nodes")
    value_hidden = int(gemms[-3].shape[0])
    return NetConfig(planes=planes, blocks=blocks, channels=channels, head_channels=int(heads[0].shape[0]),
                     value_hidden=value_hidden)


def _execution_order(model: GoNet, kinds: tuple[type, ...]) -> list[tuple[str, nn.Module]]:
    """Modules of ``kinds`` in the order a forward pass calls them."""
    names = {id(m): n for n, m in model.named_modules()}
    order: list[tuple[str, nn.Module]] = []
    hooks = [m.register_forward_hook(lambda mod, _i, _o: order.append((names[id(mod)], mod)))
             for m in model.modules() if isinstance(m, kinds)]
    with torch.no_grad():  # the net is fully convolutional: any board size gives the same order
        model.eval()(torch.zeros(1, model.config.planes, 9, 9))
    for h in hooks:
        h.remove()
    return order


def _following_batch_norms(model: GoNet) -> dict[str, nn.BatchNorm2d]:
    """Each bias-free convolution -> the batch norm registered right after it."""
    pairs: dict[str, nn.BatchNorm2d] = {}
    previous: tuple[str, nn.Module] | None = None
    for name, module in model.named_modules():
        if isinstance(module, nn.BatchNorm2d) and previous is not None:
            pairs[previous[0]] = module
        previous = (name, module) if isinstance(module, nn.Conv2d) and module.bias is None else None
    return pairs


def import_onnx(path: str | Path) -> GoNet:
    """A ``GoNet`` computing what the ONNX file computes (eval mode; batch norms identity)."""
    proto = onnx.load(str(path))
    model = GoNet(net_config_of(proto))
    inits = _constants(proto)
    file_convs = [n for n in proto.graph.node if n.op_type == "Conv"]
    file_gemms = [n for n in proto.graph.node if n.op_type == "Gemm"]
    convs = _execution_order(model, (nn.Conv2d,))
    linears = _execution_order(model, (nn.Linear,))
    if len(file_convs) != len(convs) or len(file_gemms) != len(linears):
        raise OnnxLayoutError(f"{len(file_convs)} Conv / {len(file_gemms)} Gemm nodes in the file, "
                           f"{len(convs)} / {len(linears)} layers in GoNet({model.config})")
    batch_norms = _following_batch_norms(model)
    with torch.no_grad():
        for node, (name, conv) in zip(file_convs, convs):
            weight = torch.from_numpy(inits[node.input[1]].copy())
            bias = torch.from_numpy(inits[node.input[2]].copy()) if len(node.input) > 2 else None
            if weight.shape != conv.weight.shape:
                raise OnnxLayoutError(f"{node.name}: weight {tuple(weight.shape)}, {name} wants "
                                   f"{tuple(conv.weight.shape)}")
            conv.weight.copy_(weight)
            if conv.bias is not None:
                conv.bias.copy_(bias if bias is not None else torch.zeros_like(conv.bias))
                continue
            bn = batch_norms.get(name)
            if bn is None:
                raise OnnxLayoutError(f"{name} has no bias and no batch norm after it")
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)  # sqrt(var + eps) = 1: identity in eval mode
            bn.weight.fill_(1.0)
            bn.bias.copy_(bias if bias is not None else torch.zeros_like(bn.bias))
        for node, (name, linear) in zip(file_gemms, linears):
            attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
            weight = inits[node.input[1]]
            weight = weight if attrs.get("transB", 0) else weight.T
            if weight.shape != tuple(linear.weight.shape):
                raise OnnxLayoutError(f"{node.name}: weight {weight.shape}, {name} wants {tuple(linear.weight.shape)}")
            linear.weight.copy_(torch.tensor(np.array(weight)))
            linear.bias.copy_(torch.from_numpy(inits[node.input[2]].copy()))
    return model.eval()


def recalibrate_batch_norm(model: GoNet, features: np.ndarray, batch: int = 512) -> GoNet:
    """Give each batch norm its input's statistics on ``features`` without changing the
    eval-mode function (see the module docstring). Returns ``model`` in eval mode."""
    sums: dict[nn.BatchNorm2d, list[torch.Tensor]] = {}

    def record(module: nn.BatchNorm2d, inputs: tuple[torch.Tensor, ...], _out: torch.Tensor) -> None:
        x = inputs[0].double()
        acc = sums.setdefault(module, [torch.zeros(x.shape[1], dtype=torch.float64),
                                       torch.zeros(x.shape[1], dtype=torch.float64), torch.zeros(())])
        acc[0] += x.sum(dim=(0, 2, 3))
        acc[1] += (x * x).sum(dim=(0, 2, 3))
        acc[2] += x.shape[0] * x.shape[2] * x.shape[3]

    bns = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    hooks = [bn.register_forward_hook(record) for bn in bns]
    model.eval()
    with torch.no_grad():
        for start in range(0, len(features), batch):
            model(torch.from_numpy(np.asarray(features[start:start + batch], dtype=np.float32)))
    for h in hooks:
        h.remove()
    with torch.no_grad():
        for bn in bns:
            total, squares, count = sums[bn]
            mean = total / count
            var = (squares / count - mean * mean).clamp_min(1e-6)
            # eval: (x - mean) / sqrt(var + eps) * sqrt(var + eps) + mean + shift = x + shift, as before
            shift = bn.bias.double() - bn.running_mean.double() * bn.weight.double() / torch.sqrt(
                bn.running_var.double() + bn.eps)
            bn.running_mean.copy_(mean.float())
            bn.running_var.copy_(var.float())
            bn.weight.copy_(torch.sqrt(var + bn.eps).float())
            bn.bias.copy_((mean + shift).float())
    return model


def main(argv: list[str] | None = None) -> None:
    from training.position_shards import load_shard

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, required=True, help="ONNX file made by training.export")
    parser.add_argument("--data", type=Path, required=True, help="position shards (train-*.npz) for the statistics")
    parser.add_argument("--out", type=Path, required=True, help="checkpoint to write (training.train layout)")
    parser.add_argument("--positions", type=int, default=20000, help="positions for the statistics, taken evenly from every shard")
    args = parser.parse_args(argv)
    shards = sorted(args.data.glob("train-*.npz"))
    if not shards:
        raise SystemExit(f"no train-*.npz shards in {args.data}")
    per_shard = max(1, args.positions // len(shards))  # from every shard: every source in the mix
    features = np.concatenate([load_shard(p)["features"][:per_shard] for p in shards])
    model = recalibrate_batch_norm(import_onnx(args.model), features)
    worst = max(max_difference(model, args.model, features[:256]).values())
    if worst > 1e-4:
        raise SystemExit(f"imported model differs from {args.model} by {worst:.1e} (> 1e-4)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": model.state_dict(), "net": asdict(model.config), "step": 0,
                "imported_from": str(args.model)}, args.out)
    print(f"wrote {args.out}: {model.config}, equal to {args.model} within {worst:.1e}")


if __name__ == "__main__":
    main()
