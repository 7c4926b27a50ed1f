"""Training loop: ``python -m training.train --data data/positions --run runs/NAME``.

Streams ``train-*.npz`` shards (see ``training.position_shards``) with random symmetries,
optimises policy cross-entropy + value MSE + score Huber + ownership MSE with SGD and
momentum under a warm-up then cosine learning-rate schedule, validates on ``val-*.npz``
(policy top-1 accuracy, value loss), writes ``metrics.csv`` and ``curves.png`` and keeps
a checkpoint (``last.pt``) that a rerun resumes from. ``--init`` starts from another
run's weights (used by the self-play loop), with that checkpoint's network shape. ``--device`` trains on ``cpu`` (default),
``cuda`` (refused with a clear error when torch sees no GPU) or ``auto`` (CUDA when
there is one); checkpoints resume on either. Not checked here: that a CUDA run gives the
CPU run's numbers (it does not, bit for bit).

``--soft-policy-weight`` and ``--reply-policy-weight`` (default 0: off) add the
auxiliary policy targets of ``training.network`` (the network gets its training-only
heads, new ones when the starting checkpoint has none): cross-entropy against the policy
target raised to ``SOFT_POWER`` and renormalised, weighted as the policy, and against the
opponent's next move (``reply`` in the shards; positions without one weigh 0).

``--short-value-weight A`` (default 0: off) trains the value head towards
``(1 - A) * outcome + A * short_value`` where the shards carry a short-term value target
(``training.value_targets``), the outcome elsewhere; ``short`` in the metrics is that
loss, while ``value`` stays the error against the outcome alone, so runs compare.
"""

from __future__ import annotations

import argparse
import csv
import math
import random
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from tqdm import tqdm

from training.network import GoNet, NetConfig
from training.position_shards import FIELDS, augment, load_shard, stream_batches


@dataclass
class TrainConfig:
    data: Path
    run: Path
    size: int = 9
    steps: int = 20000
    batch_size: int = 256
    lr: float = 0.05
    warmup: int = 500
    weight_decay: float = 3e-5
    blocks: int = 6
    channels: int = 64
    validate_every: int = 1000
    checkpoint_every: int = 500
    threads: int = 2
    seed: int = 1
    init: Path | None = None
    value_weight: float = 1.0
    shuffle_shards: int = 16  # shards whose positions are shuffled together (position_shards.stream_batches)
    score_weight: float = 0.02
    ownership_weight: float = 0.25
    device: str = "cpu"
    progress: bool = True  # the progress bar; without it, one line per validation
    soft_policy_weight: float = 0.0  # auxiliary soft policy target (0: off)
    reply_policy_weight: float = 0.0  # auxiliary opponent's-reply target (0: off)
    short_value_weight: float = 0.0  # share of the short-term value target in the value target (0: off)

    @property
    def aux_policy(self) -> bool:
        """Whether the network trains its auxiliary policy heads."""
        return self.soft_policy_weight > 0 or self.reply_policy_weight > 0


SOFT_POWER = 0.25  # the soft policy target: the policy target to this power, renormalised
METRICS = ["step", "split", "total", "policy", "value", "score", "ownership", "top1", "soft", "reply", "short",
           "lr", "seconds"]  # metrics.csv's columns (soft, reply and short empty when those targets are off)


def resolve_device(name: str) -> torch.device:
    """``cpu``, ``cuda`` or ``auto`` (CUDA when torch sees a GPU) as a ``torch.device``;
    ``ValueError`` for another name or for ``cuda`` without a GPU."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("--device cuda: torch sees no CUDA GPU on this machine (use cpu or auto)")
    if name not in ("cpu", "cuda"):
        raise ValueError(f"--device must be cpu, cuda or auto, got {name!r}")
    return torch.device(name)


def learning_rate(config: TrainConfig, step: int) -> float:
    """Linear warm-up, then cosine decay to 1% of the peak."""
    if step < config.warmup:
        return config.lr * (step + 1) / config.warmup
    progress = min(1.0, (step - config.warmup) / max(1, config.steps - config.warmup))
    return config.lr * (0.01 + 0.99 * 0.5 * (1 + math.cos(math.pi * progress)))


def soft_target(target: torch.Tensor) -> torch.Tensor:
    """The soft policy target: ``target ** SOFT_POWER`` renormalised (rows of zeros stay zero)."""
    soft = target.clamp_min(0) ** SOFT_POWER
    return soft / soft.sum(1, keepdim=True).clamp_min(1e-12)


def losses(model: GoNet, batch: dict[str, torch.Tensor], config: TrainConfig) -> dict[str, torch.Tensor]:
    """Per-head losses (weighted by sample weight) and the policy top-1 hits; with
    auxiliary targets (``config.aux_policy``) also ``soft`` and ``reply``, weighted
    into ``total`` by their config weights."""
    policy, value, score, ownership, aux = model.forward_train(batch["features"])
    w = batch["weight"]
    norm = w.sum().clamp_min(1e-6)
    vw = batch["value_weight"]  # the outcome's targets (value, score, ownership) weigh each row by it
    scored = batch["scored"] * vw
    scored_norm = scored.sum().clamp_min(1e-6)
    target = batch["policy"]
    policy_loss = (-(target * F.log_softmax(policy, dim=1)).sum(1) * w).sum() / norm
    vw_norm = vw.sum().clamp_min(1e-6)
    value_loss = (((value.squeeze(1) - batch["value"]) ** 2) * vw).sum() / vw_norm
    trained_value_loss = value_loss
    if config.short_value_weight > 0:
        short = batch["short_value"]
        known = ~torch.isnan(short)
        blend = (1 - config.short_value_weight) * batch["value"] + config.short_value_weight * torch.nan_to_num(short)
        trained_value_loss = (((value.squeeze(1) - torch.where(known, blend, batch["value"])) ** 2) * vw).sum() / vw_norm
    score_loss = (F.huber_loss(score.squeeze(1), batch["score"], reduction="none", delta=5.0)
                  * scored).sum() / scored_norm
    own_loss = (((ownership - batch["ownership"]) ** 2).mean(1) * scored).sum() / scored_norm
    total = (policy_loss + config.value_weight * trained_value_loss + config.score_weight * score_loss
             + config.ownership_weight * own_loss)
    hits = ((policy.argmax(1) == target.argmax(1)).float() * (w > 0)).sum() / (w > 0).sum().clamp_min(1)
    out = {"total": total, "policy": policy_loss, "value": value_loss, "score": score_loss,
           "ownership": own_loss, "top1": hits}
    if config.short_value_weight > 0:
        out["short"] = trained_value_loss
    if config.aux_policy:
        if aux is None:
            raise ValueError("auxiliary policy targets need a network with aux_policy heads")
        soft_loss = (-(soft_target(target) * F.log_softmax(aux[:, 0], dim=1)).sum(1) * w).sum() / norm
        rw = batch["reply_weight"]
        reply_loss = (-(batch["reply"] * F.log_softmax(aux[:, 1], dim=1)).sum(1) * rw).sum() / rw.sum().clamp_min(1e-6)
        out["total"] = total + config.soft_policy_weight * soft_loss + config.reply_policy_weight * reply_loss
        out["soft"], out["reply"] = soft_loss, reply_loss
    return out


def to_tensors(batch: dict[str, np.ndarray], device: torch.device | None = None) -> dict[str, torch.Tensor]:
    """The batch's arrays as tensors (on ``device`` when given)."""
    tensors = {k: torch.from_numpy(v) for k, v in batch.items()}
    if device is None or device.type == "cpu":
        return tensors
    return {k: v.to(device, non_blocking=True) for k, v in tensors.items()}


def validate(model: GoNet, paths: list[Path], config: TrainConfig, limit: int = 20000) -> dict[str, float]:
    """Mean losses and top-1 accuracy over up to ``limit`` validation positions (identity symmetry)."""
    device = next(model.parameters()).device
    model.eval()
    sums: dict[str, float] = {}
    count = 0
    with torch.no_grad():
        for path in paths:
            shard = load_shard(path)
            n = len(shard["value"])
            for b in range(0, n, 1024):
                batch = to_tensors(augment({k: shard[k][b:b + 1024] for k in FIELDS}, config.size, 0), device)
                out = losses(model, batch, config)
                k = len(batch["value"])
                for name, v in out.items():
                    sums[name] = sums.get(name, 0.0) + float(v) * k
                count += k
                if count >= limit:
                    break
            if count >= limit:
                break
    model.train()
    return {name: v / max(1, count) for name, v in sums.items()}


def plot_curves(csv_path: Path, png_path: Path) -> None:
    """Loss and accuracy curves from ``metrics.csv`` as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = list(csv.DictReader(open(csv_path)))
    if not rows:
        return
    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    for split, style in (("train", "-"), ("val", "o-")):
        sel = [r for r in rows if r["split"] == split]
        if not sel:
            continue
        steps = [int(r["step"]) for r in sel]
        axes[0].plot(steps, [float(r["policy"]) for r in sel], style, label=f"{split} policy")
        axes[1].plot(steps, [float(r["value"]) for r in sel], style, label=f"{split} value")
        axes[2].plot(steps, [float(r["top1"]) for r in sel], style, label=f"{split} top-1")
    for ax, title in zip(axes, ("policy cross-entropy", "value MSE", "policy top-1 accuracy")):
        ax.set_title(title)
        ax.set_xlabel("step")
        ax.legend()
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(png_path, dpi=90)
    plt.close(fig)


def train(config: TrainConfig, planes: int) -> Path:
    """Run (or resume) training; returns the path of the last checkpoint."""
    device = resolve_device(config.device)
    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    config.run.mkdir(parents=True, exist_ok=True)
    train_paths = sorted(config.data.glob("train-*.npz"))
    val_paths = sorted(config.data.glob("val-*.npz"))
    ckpt_path = config.run / "last.pt"
    source = ckpt_path if ckpt_path.exists() else config.init
    state = torch.load(source, map_location=device, weights_only=False) if source is not None else None
    # A checkpoint (resumed or --init) brings its own network shape; otherwise the config's.
    net = NetConfig(**state["net"]) if state is not None and "net" in state else NetConfig(
        planes=planes, blocks=config.blocks, channels=config.channels)
    if config.aux_policy and not net.aux_policy:
        net = replace(net, aux_policy=True)  # new auxiliary heads on the starting weights
    model = GoNet(net)
    model.to(device)
    print(f"training {net.blocks}x{net.channels}" + (f" from {source}" if source is not None else "")
          + f" on {len(train_paths)} shards, {planes} planes, on {device}", flush=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=config.lr, momentum=0.9,
                                weight_decay=config.weight_decay, nesterov=True)
    step = 0
    if state is not None:
        missing, unexpected = model.load_state_dict(state["model"], strict=False)
        if unexpected or any(not k.startswith("aux_") for k in missing):
            raise ValueError(f"{source}: weights do not fit GoNet({net}): missing {missing}, unexpected {unexpected}")
    if source == ckpt_path:
        optimizer.load_state_dict(state["optimizer"])
        step = state["step"]
    metrics_path = config.run / "metrics.csv"
    header = None
    if metrics_path.exists():
        with open(metrics_path, newline="") as existing:
            header = next(csv.reader(existing), None)
    metrics = open(metrics_path, "a", newline="")
    # a run resumed from an older metrics.csv keeps that file's columns
    writer = csv.DictWriter(metrics, fieldnames=header or METRICS, extrasaction="ignore")
    if header is None:
        writer.writeheader()
    rng = random.Random(config.seed + step)
    batches = stream_batches(train_paths, config.batch_size, config.size, rng, config.shuffle_shards)
    started = time.time()
    running: dict[str, float] = {}
    bar = tqdm(total=config.steps, initial=step, desc="train", unit="step", dynamic_ncols=True,
               disable=not config.progress)

    def save() -> None:
        tmp = ckpt_path.with_suffix(".tmp")
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step,
                    "net": asdict(model.config), "train": {k: str(v) for k, v in asdict(config).items()}}, tmp)
        tmp.replace(ckpt_path)

    model.train()
    while step < config.steps:
        lr = learning_rate(config, step)
        for group in optimizer.param_groups:
            group["lr"] = lr
        out = losses(model, to_tensors(next(batches), device), config)
        optimizer.zero_grad(set_to_none=True)
        out["total"].backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimizer.step()
        step += 1
        for k, v in out.items():
            value = v.item()
            running[k] = 0.98 * running.get(k, value) + 0.02 * value
        bar.update(1)
        bar.set_postfix(policy=f"{running['policy']:.3f}", value=f"{running['value']:.3f}",
                        top1=f"{running['top1']:.3f}", lr=f"{lr:.4f}")
        if step % 100 == 0:
            writer.writerow({"step": step, "split": "train", **{k: f"{v:.5f}" for k, v in running.items()},
                             "lr": f"{lr:.5f}", "seconds": f"{time.time() - started:.0f}"})
            metrics.flush()  # progress a watcher can see between validations (--no-progress runs)
        if step % config.checkpoint_every == 0 or step == config.steps:
            save()
        if val_paths and (step % config.validate_every == 0 or step == config.steps):
            val = validate(model, val_paths, config)
            writer.writerow({"step": step, "split": "val", **{k: f"{v:.5f}" for k, v in val.items()},
                             "lr": f"{lr:.5f}", "seconds": f"{time.time() - started:.0f}"})
            metrics.flush()
            plot_curves(metrics_path, config.run / "curves.png")
            if not config.progress:
                print(f"train: step {step}/{config.steps}, lr {lr:.4f}, "
                      + ", ".join(f"val {k} {v:.4f}" for k, v in val.items()), flush=True)
    bar.close()
    metrics.close()
    plot_curves(metrics_path, config.run / "curves.png")
    return ckpt_path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="folder of train-*.npz and val-*.npz shards")
    parser.add_argument("--run", type=Path, required=True, help="folder for checkpoints, metrics and plots")
    for name, default in (("steps", 20000), ("batch-size", 256), ("blocks", 6), ("channels", 64),
                          ("threads", 2), ("seed", 1), ("warmup", 500), ("validate-every", 1000), ("size", 9)):
        parser.add_argument(f"--{name}", type=int, default=default)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--value-weight", type=float, default=TrainConfig.value_weight,
                        help="weight of the value loss against the policy's (default 1; every position of a "
                             "game shares one outcome, so a lower weight fits those outcomes less)")
    parser.add_argument("--shuffle-shards", type=int, default=TrainConfig.shuffle_shards,
                        help="position shards shuffled together (default 16, about 160 MB for 9x9 shards of "
                             "5,000; a shard holds consecutive games, so fewer gives runs of correlated batches)")
    parser.add_argument("--soft-policy-weight", type=float, default=0.0,
                        help="weight of the auxiliary soft policy target (default 0: off)")
    parser.add_argument("--reply-policy-weight", type=float, default=0.0,
                        help="weight of the auxiliary opponent's-reply target (default 0: off)")
    parser.add_argument("--short-value-weight", type=float, default=0.0,
                        help="share of the short-term value target in the value target (default 0: the outcome)")
    parser.add_argument("--init", type=Path, default=None, help="checkpoint to start from")
    parser.add_argument("--device", default="cpu", help="cpu (default), cuda, or auto (CUDA when there is a GPU)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar; a line per validation")
    args = parser.parse_args(argv)
    if args.value_weight < 0:
        parser.error(f"--value-weight must be >= 0, got {args.value_weight}")
    if not 0.0 <= args.short_value_weight <= 1.0:
        parser.error(f"--short-value-weight must be in [0, 1], got {args.short_value_weight}")
    for flag in ("soft_policy_weight", "reply_policy_weight"):
        if getattr(args, flag) < 0:
            parser.error(f"--{flag.replace('_', '-')} must be >= 0, got {getattr(args, flag)}")
    if args.shuffle_shards < 1:
        parser.error(f"--shuffle-shards must be >= 1, got {args.shuffle_shards}")
    try:
        resolve_device(args.device)
    except ValueError as exc:
        parser.error(str(exc))
    config = TrainConfig(data=args.data, run=args.run, steps=args.steps, batch_size=args.batch_size,
                         blocks=args.blocks, channels=args.channels, threads=args.threads, seed=args.seed,
                         warmup=args.warmup, validate_every=args.validate_every, lr=args.lr, init=args.init,
                         device=args.device, value_weight=args.value_weight,
                         shuffle_shards=args.shuffle_shards, progress=not args.no_progress, size=args.size,
                         soft_policy_weight=args.soft_policy_weight, reply_policy_weight=args.reply_policy_weight,
                         short_value_weight=args.short_value_weight)
    first = sorted(args.data.glob("train-*.npz"))
    if not first:
        raise SystemExit(f"no train-*.npz shards in {args.data}")
    planes = load_shard(first[0])["features"].shape[1]
    path = train(config, planes)
    print(f"checkpoint: {path}")


if __name__ == "__main__":
    main()
