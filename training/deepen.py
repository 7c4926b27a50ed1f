"""Grow a trained network deeper without changing what it computes (net2net's deeper
step, with the zero-initialised last batch norm of Goyal et al.).

New residual blocks are appended after the old ones. Each new block's last batch norm
has weight and bias zero, so the block adds nothing: ``relu(x + 0) = x`` because a
block's input is already the output of a ReLU. The grown network gives the old one's
outputs exactly (up to float rounding), and training then starts from the old
network's play instead of from nothing, with capacity to spare for more data.

Appending keeps every old block at its index, so each keeps its kind (a global-pooling
bias every third block, ``network.GoNet``); the new blocks follow the same rule for
their indices. The conv weights of a new block start at PyTorch's default
initialisation; only the zero batch norm makes it an identity.

``python -m training.deepen --checkpoint models/gobuddy-9x9.pt --blocks 9 --out
runs/deep9/init.pt`` writes a checkpoint that ``training.train --init`` starts from
(step 0, fresh optimizer). Not checked: that the grown network is worth its cost; a
block costs as much time a move as any other, so 9 blocks search about two thirds of
6 blocks' visits in the same time.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import torch

from training.grow import grow_checkpoint, grow_main
from training.network import GoNet


def deepen(model: GoNet, blocks: int, seed: int = 0) -> GoNet:
    """A copy of ``model`` with ``blocks`` residual blocks, the new ones appended as
    identities. Raises ``ValueError`` unless ``blocks`` exceeds the model's."""
    old = model.config.blocks
    if blocks <= old:
        raise ValueError(f"--blocks {blocks}: the network already has {old} blocks; deepen only adds blocks")
    torch.manual_seed(seed)
    grown = GoNet(replace(model.config, blocks=blocks))
    missing, unexpected = grown.load_state_dict(model.state_dict(), strict=False)
    new_prefixes = tuple(f"blocks.{i}." for i in range(old, blocks))
    if unexpected or any(not key.startswith(new_prefixes) for key in missing):
        raise ValueError(f"weights do not fit the grown network: missing {missing}, unexpected {unexpected}")
    with torch.no_grad():
        for block in list(grown.blocks)[old:]:
            block.bn2.weight.zero_()
            block.bn2.bias.zero_()
    return grown


def deepen_checkpoint(source: Path, out: Path, blocks: int, seed: int = 0) -> dict:
    """Read a checkpoint (``grow.read_network``), write the grown one to ``out`` for
    ``training.train --init``; returns its provenance."""
    return grow_checkpoint(source, out, deepen, "blocks", blocks, "deepened", seed)


def main(argv: list[str] | None = None) -> int:
    return grow_main(argv, "python -m training.deepen", __doc__, deepen, "blocks", "deepened",
                     "residual blocks of the grown network")


if __name__ == "__main__":
    raise SystemExit(main())
