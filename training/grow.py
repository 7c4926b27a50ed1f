"""Growing a trained network, shared by ``training.deepen`` (more blocks) and
``training.widen`` (more channels): read a checkpoint, grow its network, write a
step-0 checkpoint that ``training.train --init`` starts from, and the command line
both offer. The growing itself (what keeps the network's play) is each module's."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path
from typing import Callable

import torch

from training.network import GoNet, NetConfig

Grow = Callable[[GoNet, int, int], GoNet]  # (network, new size, seed) -> grown copy


def read_network(source: Path) -> tuple[GoNet, dict]:
    """The network of a checkpoint (``model`` and ``net`` keys: ``training.train``'s or
    a shipped ``.pt``) and the checkpoint itself. Raises ``ValueError`` for another file."""
    try:
        state = torch.load(source, map_location="cpu", weights_only=False)
    except FileNotFoundError:
        raise
    except Exception as exc:  # a file torch cannot read: not a checkpoint
        raise ValueError(f"{source}: not a checkpoint torch can read ({type(exc).__name__})") from exc
    if not isinstance(state, dict) or "model" not in state or "net" not in state:
        raise ValueError(f"{source}: not a checkpoint with 'model' and 'net' (training.train writes them)")
    model = GoNet(NetConfig(**state["net"]))
    model.load_state_dict(state["model"])
    return model, state


def write_grown(out: Path, grown: GoNet, provenance: dict) -> None:
    """Write ``grown`` as a step-0 checkpoint (written whole or not at all)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    torch.save({"model": grown.state_dict(), "net": asdict(grown.config), "step": 0, "provenance": provenance}, tmp)
    tmp.replace(out)


def grow_checkpoint(source: Path, out: Path, grow: Grow, field: str, size: int, verb: str, seed: int = 0) -> dict:
    """Read ``source``, grow its network's ``field`` (a ``NetConfig`` field) to ``size``
    with ``grow``, write it to ``out``; returns the provenance written with it
    (``{verb}_from``, ``{field}_before``, ``{field}``, ``parent_provenance``)."""
    model, state = read_network(source)
    grown = grow(model, size, seed)
    provenance = {f"{verb}_from": str(source), f"{field}_before": getattr(model.config, field), field: size,
                  "parent_provenance": state.get("provenance")}
    write_grown(out, grown, provenance)
    return provenance


def grow_main(argv: list[str] | None, prog: str, doc: str, grow: Grow, field: str, verb: str, help_size: str) -> int:
    """The command line of a grower: ``--checkpoint``, ``--FIELD``, ``--out``,
    ``--seed``; prints what it wrote, or why it refused (exit status 1)."""
    name = prog.rsplit(".", 1)[-1]
    p = argparse.ArgumentParser(prog=prog, description=doc.split("\n\n")[0])
    p.add_argument("--checkpoint", type=Path, required=True, help="the trained network (.pt with model and net)")
    p.add_argument(f"--{field}", type=int, required=True, dest="size", help=help_size)
    p.add_argument("--out", type=Path, required=True, help="where to write the grown checkpoint")
    p.add_argument("--seed", type=int, default=0, help="seed of the new weights")
    a = p.parse_args(argv)
    try:
        provenance = grow_checkpoint(a.checkpoint, a.out, grow, field, a.size, verb, a.seed)
    except (ValueError, FileNotFoundError) as exc:
        print(f"[{name}] refused: {exc}", flush=True)
        return 1
    print(f"[{name}] wrote {a.out}: {json.dumps({k: v for k, v in provenance.items() if k != 'parent_provenance'})}",
          flush=True)
    return 0
