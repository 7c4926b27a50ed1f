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

import argparse
import json
from dataclasses import asdict, replace
from pathlib import Path

import torch

from training.network import GoNet, NetConfig


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


def read_network(source: Path) -> tuple[GoNet, dict]:
    """The network of a checkpoint (``model`` and ``net`` keys: ``training.train``'s or
    a shipped ``.pt``) and the checkpoint itself. Raises ``ValueError`` for another file."""
    state = torch.load(source, map_location="cpu", weights_only=False)
    if not isinstance(state, dict) or "model" not in state or "net" not in state:
        raise ValueError(f"{source}: not a checkpoint with 'model' and 'net' (training.train writes them)")
    model = GoNet(NetConfig(**state["net"]))
    model.load_state_dict(state["model"])
    return model, state


def write_grown(out: Path, grown: GoNet, provenance: dict) -> None:
    """Write ``grown`` as a step-0 checkpoint that ``training.train --init`` starts from
    (written whole or not at all)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    torch.save({"model": grown.state_dict(), "net": asdict(grown.config), "step": 0, "provenance": provenance}, tmp)
    tmp.replace(out)


def deepen_checkpoint(source: Path, out: Path, blocks: int, seed: int = 0) -> dict:
    """Read a checkpoint (``read_network``), write the grown one to ``out`` for
    ``training.train --init``; returns its provenance."""
    model, state = read_network(source)
    grown = deepen(model, blocks, seed)
    provenance = {"deepened_from": str(source), "blocks_before": model.config.blocks, "blocks": blocks,
                  "parent_provenance": state.get("provenance")}
    write_grown(out, grown, provenance)
    return provenance


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.deepen", description=__doc__.split("\n\n")[0])
    p.add_argument("--checkpoint", type=Path, required=True, help="the trained network (.pt with model and net)")
    p.add_argument("--blocks", type=int, required=True, help="residual blocks of the grown network")
    p.add_argument("--out", type=Path, required=True, help="where to write the grown checkpoint")
    p.add_argument("--seed", type=int, default=0, help="seed of the new blocks' conv weights")
    a = p.parse_args(argv)
    try:
        provenance = deepen_checkpoint(a.checkpoint, a.out, a.blocks, a.seed)
    except (ValueError, FileNotFoundError) as exc:
        print(f"[deepen] refused: {exc}", flush=True)
        return 1
    print(f"[deepen] wrote {a.out}: {json.dumps({k: v for k, v in provenance.items() if k != 'parent_provenance'})}",
          flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
