"""Streaming training batches (``training.position_shards.stream_batches``): every position
once per pass, shards shuffled together as asked, and each eighth of a batch turned by its
own symmetry with the policy target turned the same way as the board."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from gobuddy.ai.features import NUM_PLANES
from training.position_shards import ShardWriter, augment_slices, load_shard, stream_batches

SIZE = 5
PER_SHARD = 10


def write_numbered_shards(folder: Path, shards: int) -> list[Path]:
    """``shards`` shards of 10 positions; position i carries score i, so batches can be traced."""
    writer = ShardWriter(folder, "train", PER_SHARD)
    n = SIZE * SIZE
    for i in range(shards * PER_SHARD):
        policy = np.zeros(n + 1, dtype=np.float32)
        policy[i % n] = 1.0
        writer.add(np.zeros((NUM_PLANES, SIZE, SIZE), np.uint8), policy, 1, float(i),
                   np.zeros(n, np.int8), 1.0, True, i)
    writer.flush()
    return sorted(folder.glob("train-*.npz"))


def ids(batch: dict[str, np.ndarray]) -> list[int]:
    return [int(s) for s in batch["score"]]


def shards_of(batch: dict[str, np.ndarray]) -> set[int]:
    return {i // PER_SHARD for i in ids(batch)}


@pytest.mark.parametrize("shuffle_shards", [1, 3, 6])
def test_one_pass_shows_every_position_once(tmp_path, shuffle_shards):
    paths = write_numbered_shards(tmp_path, 6)
    stream = stream_batches(paths, PER_SHARD, SIZE, random.Random(1), shuffle_shards)
    seen = [i for _ in range(6) for i in ids(next(stream))]
    assert sorted(seen) == list(range(60))


def test_a_window_of_one_shard_keeps_batches_within_a_shard_and_a_wider_one_mixes_them(tmp_path):
    paths = write_numbered_shards(tmp_path, 6)
    narrow = stream_batches(paths, PER_SHARD, SIZE, random.Random(1), shuffle_shards=1)
    wide = stream_batches(paths, PER_SHARD, SIZE, random.Random(1), shuffle_shards=6)
    assert all(len(shards_of(next(narrow))) == 1 for _ in range(12))
    assert all(len(shards_of(next(wide))) > 1 for _ in range(12))


def test_a_window_below_one_shard_is_refused(tmp_path):
    paths = write_numbered_shards(tmp_path, 1)
    with pytest.raises(ValueError, match="shuffle_shards must be >= 1, got 0"):
        next(stream_batches(paths, PER_SHARD, SIZE, random.Random(1), 0))


def test_each_eighth_of_a_batch_has_its_own_symmetry_with_the_policy_turned_alike(tmp_path):
    # One stone at (row 0, col 1) in plane 0, and the policy target on that same point:
    # whatever symmetry a slice gets, the target must stay under the stone.
    folder = tmp_path / "one"
    writer = ShardWriter(folder, "train", 16)
    n = SIZE * SIZE
    features = np.zeros((NUM_PLANES, SIZE, SIZE), np.uint8)
    features[0, 0, 1] = 1
    policy = np.zeros(n + 1, np.float32)
    policy[0 * SIZE + 1] = 1.0
    for i in range(16):
        writer.add(features, policy, 1, float(i), np.zeros(n, np.int8), 1.0, True, i)
    writer.flush()
    batch = load_shard(folder / "train-00000.npz")
    for seed in range(4):
        out = augment_slices(batch, SIZE, random.Random(seed))
        assert ids(out) == list(range(16))  # order kept
        stones = [int(np.argmax(out["features"][row, 0].reshape(-1))) for row in range(16)]
        assert [int(np.argmax(out["policy"][row])) for row in range(16)] == stones
        # The two positions of a slice share a symmetry; the slices do not all share one
        # ((0, 1) has 8 images under the symmetries of the square).
        assert stones[0::2] == stones[1::2]
        assert len(set(stones)) > 1
