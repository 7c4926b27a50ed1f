"""Grow a trained network wider without changing what it computes (net2net's wider
step, done by zeroing instead of by copying units).

The residual tower gets more channels; the heads keep theirs. Every weight of the
wider network that the old one had keeps its value. The new channels start at
PyTorch's default initialisation and are live (their batch norms at weight 1, bias
0), but every weight that carries a new channel into an old unit starts at zero: the
old units, and so the four outputs, see exactly what they saw before. Nothing is
dead at a ReLU's zero, so training opens the new channels at once: the zeroed weights
get gradients at the first step (their inputs are the live new channels), and
everything behind them from the second.

A block's global-pooling bias reads the mean and then the max of all channels
(``network.GlobalPool``), so its old weights move to two places in the wider input.

``python -m training.widen --checkpoint models/gobuddy-9x9.pt --channels 96 --out
runs/wide/init.pt`` writes a checkpoint that ``training.train --init`` starts from
(step 0, fresh optimizer); ``training.deepen`` adds blocks, and the two compose. Not
checked: that the wider network is worth its cost. A move costs about
``blocks * channels**2``, so 96 channels search about 0.44 of 64 channels' visits in
the same time.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import torch

from training.grow import grow_checkpoint, grow_main
from training.network import GoNet


def _place(old_size: int, new_size: int, kind: str) -> torch.Tensor:
    """Where each old index of one dimension lands in the wider one: ``same`` for any
    dimension that did not grow or keeps its indices, ``pooled`` for the mean-then-max
    input of a global-pooling bias."""
    if kind == "pooled":
        half, new_half = old_size // 2, new_size // 2
        return torch.cat([torch.arange(half), new_half + torch.arange(half)])
    return torch.arange(old_size)


def _dims(key: str) -> tuple[str, str]:
    """The kinds of a parameter's first two dimensions: ``trunk`` (the tower's
    channels), ``pooled`` (a pooling bias's input) or ``fixed``."""
    if key.startswith(("stem.", "blocks.")):
        if ".pool_fc.weight" in key:
            return "trunk", "pooled"
        if ".conv" in key and key.endswith("weight") and not key.startswith("stem."):
            return "trunk", "trunk"
        return "trunk", "fixed"
    if key.startswith(("policy_conv.0.", "value_conv.0.")) and key.endswith("weight"):
        return "fixed", "trunk"
    return "fixed", "fixed"


def widen(model: GoNet, channels: int, seed: int = 0) -> GoNet:
    """A copy of ``model`` whose tower has ``channels`` channels, computing what it did.
    Raises ``ValueError`` unless ``channels`` exceeds the model's."""
    old_c = model.config.channels
    if channels <= old_c:
        raise ValueError(f"--channels {channels}: the network already has {old_c} channels; widen only adds channels")
    torch.manual_seed(seed)
    grown = GoNet(replace(model.config, channels=channels))
    old_state, new_state = model.state_dict(), grown.state_dict()  # the same keys: only widths differ
    with torch.no_grad():
        for key, old in old_state.items():
            new = new_state[key]
            if old.dim() == 0 or old.shape == new.shape:
                new.copy_(old)
                continue
            kinds = _dims(key)
            index = [_place(o, n, kinds[d] if d < 2 else "same") for d, (o, n) in enumerate(zip(old.shape, new.shape))]
            if new.dim() >= 2 and kinds[1] != "fixed":  # no new input reaches an old output
                fresh_in = torch.ones(new.shape[1], dtype=torch.bool)
                fresh_in[index[1]] = False
                new[index[0][:, None], fresh_in.nonzero().flatten()[None, :]] = 0
            new[torch.meshgrid(*index, indexing="ij")] = old
    grown.load_state_dict(new_state)
    return grown


def widen_checkpoint(source: Path, out: Path, channels: int, seed: int = 0) -> dict:
    """Read a checkpoint (``grow.read_network``), write the wider one to ``out`` for
    ``training.train --init``; returns its provenance."""
    return grow_checkpoint(source, out, widen, "channels", channels, "widened", seed)


def main(argv: list[str] | None = None) -> int:
    return grow_main(argv, "python -m training.widen", __doc__, widen, "channels", "widened",
                     "channels of the wider tower")


if __name__ == "__main__":
    raise SystemExit(main())
