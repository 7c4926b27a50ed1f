"""The training loop (``training.train``) on a tiny generated shard: it learns, writes its
curves, resumes from its checkpoint with the step count continuing, and ``--init`` starts
a new run from another run's weights; the value loss's weight reaches the total, and the
command passes its options into the run or refuses them by name."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gobuddy.ai.features import NUM_PLANES  # noqa: E402
from training.network import GoNet, NetConfig  # noqa: E402
from training.position_shards import ShardWriter, augment, load_shard  # noqa: E402
from training.train import TrainConfig, losses, main, to_tensors, train  # noqa: E402

SIZE = 5


def write_shards(folder: Path, count: int = 48, size: int = SIZE) -> None:
    """Random positions (5x5 unless told): ``count - 8`` for training, 8 for validation."""
    rng = np.random.default_rng(0)
    n = size * size
    for prefix, rows in (("train", count - 8), ("val", 8)):
        writer = ShardWriter(folder, prefix)
        for i in range(rows):
            policy = np.zeros(n + 1, dtype=np.float32)
            policy[rng.integers(n + 1)] = 1.0
            writer.add(rng.integers(0, 2, (NUM_PLANES, size, size)).astype(np.uint8), policy,
                       int(rng.choice([-1, 1])), float(rng.normal(0, 5)), rng.integers(-1, 2, n).astype(np.int8),
                       1.0, True, i)
        writer.flush()


def config(data: Path, run: Path, steps: int, lr: float = 0.01, **extra) -> TrainConfig:
    return TrainConfig(data=data, run=run, size=SIZE, steps=steps, batch_size=8, lr=lr, warmup=1,
                       blocks=1, channels=8, validate_every=3, checkpoint_every=1, threads=1, **extra)


def rows(run: Path, split: str) -> list[dict]:
    return [r for r in csv.DictReader(open(run / "metrics.csv")) if r["split"] == split]


def test_training_resumes_from_its_checkpoint(tmp_path, capsys):
    write_shards(tmp_path / "data")
    run = tmp_path / "run"
    train(config(tmp_path / "data", run, 3, progress=False), NUM_PLANES)
    out = capsys.readouterr()
    assert "train: step 3/3, lr " in out.out and "val top1 " in out.out and "step/s" not in out.err
    state = torch.load(run / "last.pt", weights_only=False)
    assert state["step"] == 3 and state["net"]["blocks"] == 1
    assert [int(r["step"]) for r in rows(run, "val")] == [3]
    assert (run / "curves.png").stat().st_size > 1000

    train(config(tmp_path / "data", run, 5), NUM_PLANES)  # two more steps, not five
    state = torch.load(run / "last.pt", weights_only=False)
    assert state["step"] == 5
    assert [int(r["step"]) for r in rows(run, "val")] == [3, 5]
    assert all(np.isfinite(float(r["total"])) for r in rows(run, "val"))


def test_init_starts_a_new_run_from_another_runs_weights(tmp_path):
    write_shards(tmp_path / "data")
    first = tmp_path / "first"
    train(config(tmp_path / "data", first, 3), NUM_PLANES)
    # One step at learning rate 0: the weights must be exactly the init's.
    second = tmp_path / "second"
    train(config(tmp_path / "data", second, 1, lr=0.0, init=first / "last.pt"), NUM_PLANES)
    a = torch.load(first / "last.pt", weights_only=False)["model"]
    b = torch.load(second / "last.pt", weights_only=False)["model"]
    assert torch.load(second / "last.pt", weights_only=False)["step"] == 1
    for key in ("stem.0.weight", "blocks.0.conv1.weight", "policy_point.weight", "value_out.weight"):
        assert torch.equal(a[key], b[key]), key


@pytest.mark.parametrize("value_weight", [0.0, 0.5, 1.0])
def test_the_value_weight_scales_the_value_loss_in_the_total(tmp_path, value_weight):
    write_shards(tmp_path)
    shard = load_shard(sorted(tmp_path.glob("train-*.npz"))[0])
    batch = to_tensors(augment({k: v[:16] for k, v in shard.items()}, SIZE, 0))
    cfg = config(tmp_path, tmp_path / "run", 1, value_weight=value_weight)
    torch.manual_seed(0)
    out = losses(GoNet(NetConfig(planes=NUM_PLANES, blocks=1, channels=8)), batch, cfg)
    others = out["policy"] + cfg.score_weight * out["score"] + cfg.ownership_weight * out["ownership"]
    assert out["value"] > 0
    assert torch.isclose(out["total"], others + value_weight * out["value"])


@pytest.mark.parametrize("flag, value, error", [
    ("--value-weight", "-1", "--value-weight must be >= 0, got -1.0"),
    ("--shuffle-shards", "0", "--shuffle-shards must be >= 1, got 0"),
    ("--soft-policy-weight", "-1", "--soft-policy-weight must be >= 0, got -1.0"),
    ("--reply-policy-weight", "-0.5", "--reply-policy-weight must be >= 0, got -0.5"),
])
def test_the_command_refuses_a_bad_weight_or_window(tmp_path, capsys, flag, value, error):
    write_shards(tmp_path / "data", size=9)
    with pytest.raises(SystemExit):
        main(["--data", str(tmp_path / "data"), "--run", str(tmp_path / "run"), flag, value])
    assert error in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_the_command_passes_the_value_weight_and_the_shuffle_window(tmp_path):
    write_shards(tmp_path / "data", size=9)
    main(["--data", str(tmp_path / "data"), "--run", str(tmp_path / "run"), "--steps", "1",
          "--batch-size", "8", "--blocks", "1", "--channels", "8", "--threads", "1", "--warmup", "1",
          "--validate-every", "1", "--no-progress", "--value-weight", "0.25", "--shuffle-shards", "2"])
    saved = torch.load(tmp_path / "run" / "last.pt", weights_only=False)["train"]
    assert (saved["value_weight"], saved["shuffle_shards"]) == ("0.25", "2")


@pytest.mark.parametrize("name, expected", [
    ("cpu", "cpu"),
    ("auto", "cuda" if torch.cuda.is_available() else "cpu"),
    ("cuda", "cuda" if torch.cuda.is_available() else "torch sees no CUDA GPU on this machine"),
    ("gpu", "--device must be cpu, cuda or auto, got 'gpu'"),
])
def test_the_device_to_train_on(name, expected):
    from training.train import resolve_device

    try:
        assert resolve_device(name).type == expected
    except ValueError as exc:
        assert expected in str(exc)


def test_auto_trains_where_torch_can(tmp_path):
    data, run = tmp_path / "data", tmp_path / "run"
    write_shards(data)
    train(config(data, run, steps=2, device="auto"), NUM_PLANES)
    state = torch.load(run / "last.pt", map_location="cpu", weights_only=False)
    assert state["step"] == 2 and state["train"]["device"] == "auto"
