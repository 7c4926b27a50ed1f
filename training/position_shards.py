"""Training positions on disk: compressed numpy shards and a dataset that streams them.

A shard is one ``.npz`` file (``np.savez_compressed``) holding ``n`` positions:

| array        | dtype   | shape              | meaning                                          |
|--------------|---------|--------------------|--------------------------------------------------|
| ``features`` | uint8   | [n, planes, s, s]  | input planes (all binary or small integers)      |
| ``policy``   | float16 | [n, s*s + 1]       | target distribution (one-hot move, or visits)    |
| ``value``    | int8    | [n]                | game result for the side to move: +1, -1, 0      |
| ``score``    | float16 | [n]                | final margin for the side to move, in points     |
| ``ownership``| int8    | [n, s*s]           | final owner of each point, + = side to move      |
| ``weight``   | float16 | [n]                | policy weight (0 for random opening moves)       |
| ``scored``   | int8    | [n]                | 1 if ``score``/``ownership`` are known, else 0   |
| ``game``     | int32   | [n]                | index of the game in its source, for splits      |
| ``reply``    | int16   | [n]                | the opponent's next move (``s*s`` = pass), -1 if none or random |
| ``short_value`` | float16 | [n]             | short-term value target for the side to move (``training.value_targets``), NaN if the game recorded no root values |
| ``value_weight`` | float16 | [n]            | weight of the row in the losses of the outcome's targets, value, score and ownership (1; ``1 / w`` for a copy written by surprise weighting with even value, ``training.surprise``) |

Shards written before ``reply`` existed load with ``reply`` = -1 (no reply target), and
those written before ``short_value`` with NaN (none), before ``value_weight`` with 1.

Symmetries are applied when streaming (a random one of the 8 for each eighth of a
batch), so shards store each position once. Shards are written through a temporary file
and renamed, so a reader never sees half a shard.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import numpy as np

from gobuddy.ai import symmetry

DTYPES = {"features": np.uint8, "policy": np.float16, "value": np.int8, "score": np.float16,
          "ownership": np.int8, "weight": np.float16, "scored": np.int8, "game": np.int32,
          "reply": np.int16, "short_value": np.float16, "value_weight": np.float16}  # the table above
FIELDS = tuple(DTYPES)


@dataclass
class ShardWriter:
    """Collects positions and writes a shard every ``per_shard`` positions."""

    folder: Path
    prefix: str
    per_shard: int = 20000
    _rows: dict[str, list] = field(default_factory=lambda: {k: [] for k in FIELDS})

    def add(self, features: np.ndarray, policy: np.ndarray, value: int, score: float,
            ownership: np.ndarray, weight: float, scored: bool, game: int, reply: int = -1,
            short_value: float = float("nan"), value_weight: float = 1.0) -> None:
        """Queue one position; flushes a full shard to disk."""
        for key, item in zip(FIELDS, (features, policy, value, score, ownership, weight, int(scored), game, reply,
                                      short_value, value_weight)):
            self._rows[key].append(item)
        if len(self._rows["value"]) >= self.per_shard:
            self.flush()

    def flush(self) -> Path | None:
        """Write what is queued (if anything) as the next numbered shard."""
        if not self._rows["value"]:
            return None
        self.folder.mkdir(parents=True, exist_ok=True)
        index = len(list(self.folder.glob(f"{self.prefix}-*.npz")))
        path = self.folder / f"{self.prefix}-{index:05d}.npz"
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "wb") as handle:
            np.savez_compressed(handle, **{k: np.asarray(self._rows[k], dtype=t) for k, t in DTYPES.items()})
        os.replace(tmp, path)
        self._rows = {k: [] for k in FIELDS}
        return path


def load_shard(path: str | Path) -> dict[str, np.ndarray]:
    """All arrays of one shard (``reply`` all -1, ``short_value`` all NaN and
    ``value_weight`` all 1 in a shard older than them)."""
    with np.load(path) as data:
        shard = {k: data[k] for k in FIELDS if k in data}
    if "reply" not in shard:
        shard["reply"] = np.full(len(shard["value"]), -1, dtype=DTYPES["reply"])
    if "short_value" not in shard:
        shard["short_value"] = np.full(len(shard["value"]), np.nan, dtype=DTYPES["short_value"])
    if "value_weight" not in shard:
        shard["value_weight"] = np.ones(len(shard["value"]), dtype=DTYPES["value_weight"])
    return shard


def reply_targets(reply: np.ndarray, points: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``reply`` column as one-hot float32 rows over ``points + 1`` moves (pass
    last) and a float32 weight, 0 where there is no reply (-1)."""
    reply = reply.astype(np.int64)
    has = reply >= 0
    onehot = np.zeros((len(reply), points + 1), dtype=np.float32)
    onehot[np.flatnonzero(has), reply[has]] = 1.0
    return onehot, has.astype(np.float32)


def stream_batches(paths: list[Path], batch_size: int, size: int, rng: random.Random,
                   shuffle_shards: int = 16) -> Iterator[dict[str, np.ndarray]]:
    """Endless shuffled float32 batches, each eighth of a batch in its own random symmetry.

    Each pass takes the shards in a new random order, ``shuffle_shards`` at a time, and
    shuffles the positions of those shards together, so every position is seen once per
    pass (less the remainder of each group that does not fill a batch). A shard holds the
    positions of consecutive games, so a window of few shards gives runs of batches from
    a few hundred games and one source; 16 shards of 5,000 positions take about 160 MB.
    Not checked: that all shards share one board size."""
    if not paths:
        raise ValueError("no training shards to stream")
    if shuffle_shards < 1:
        raise ValueError(f"shuffle_shards must be >= 1, got {shuffle_shards}")
    while True:
        order = paths[:]
        rng.shuffle(order)
        for start in range(0, len(order), shuffle_shards):
            group = [load_shard(p) for p in order[start:start + shuffle_shards]]
            merged = {k: np.concatenate([g[k] for g in group]) for k in FIELDS}
            perm = np.random.default_rng(rng.getrandbits(32)).permutation(len(merged["value"]))
            for b in range(0, len(perm) - batch_size + 1, batch_size):
                idx = perm[b:b + batch_size]
                yield augment_slices({k: v[idx] for k, v in merged.items()}, size, rng)


def augment_slices(batch: dict[str, np.ndarray], size: int, rng: random.Random) -> dict[str, np.ndarray]:
    """``augment`` with a random symmetry for each of 8 consecutive slices of the batch
    (the batch is already in random order), so one batch shows the board turned several ways."""
    n = len(batch["value"])
    bounds = [n * i // 8 for i in range(9)]
    parts = [augment({k: v[lo:hi] for k, v in batch.items()}, size, rng.randrange(8))
             for lo, hi in zip(bounds, bounds[1:]) if hi > lo]
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def augment(batch: dict[str, np.ndarray], size: int, k: int) -> dict[str, np.ndarray]:
    """One symmetry applied to a whole batch, converted to float32."""
    own = batch["ownership"].reshape(-1, size, size)
    reply, reply_weight = reply_targets(batch["reply"], size * size)
    return {
        "features": np.ascontiguousarray(symmetry.apply_planes(batch["features"], k), dtype=np.float32),
        "policy": np.ascontiguousarray(symmetry.forward(batch["policy"].astype(np.float32), size, k)),
        "value": batch["value"].astype(np.float32),
        "score": batch["score"].astype(np.float32),
        "ownership": np.ascontiguousarray(symmetry.apply_planes(own, k).reshape(-1, size * size), dtype=np.float32),
        "weight": batch["weight"].astype(np.float32),
        "scored": batch["scored"].astype(np.float32),
        "reply": np.ascontiguousarray(symmetry.forward(reply, size, k)),
        "reply_weight": reply_weight,
        "short_value": batch["short_value"].astype(np.float32),
        "value_weight": batch["value_weight"].astype(np.float32),
    }
