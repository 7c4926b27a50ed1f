"""Turn game shards into training positions: ``python -m training.positions``.

Reads every ``*.jsonl.gz`` game shard under ``--games`` (engine games, imported SGF
collections, self-play), replays each game with ``gobuddy.go`` and writes
``train-*.npz``/``val-*.npz`` position shards (``training.position_shards``) to
``--out``. Every position gets:

- the input planes of ``gobuddy.ai.features`` (the same code the engine serves with);
- the policy target: the move played (one-hot), or the search's visit distribution for
  self-play games that carry one (``visits`` in the sample);
- the value target: the game's winner seen from the side to move (0 for a jigo);
- score and ownership targets from the final count, seen from the side to move, when
  the game was scored (``scored`` = 0 otherwise, e.g. after a resignation);
- the opponent's reply: the move played next (-1 after the last move, and where the
  reply was a randomised opening move), an auxiliary policy target (``training.train``);
- the short-term value target (``training.value_targets``) for games that recorded their
  searches' root values (self-play), NaN otherwise.

Randomised opening moves get policy weight 0 (they teach nothing about good moves) but
still train the value head. With ``--surprise-model M`` the training split is written
with policy surprise weighting (``training.surprise``): positions whose target surprised
``M`` are written more often; the folder records the model's digest and refuses to be
extended with another setting. One game in ``--val-every`` goes to validation, chosen by a
stable hash of its moves so reruns split the same way. Rebuilding is incremental: a
``built.json`` manifest lists the game shards already converted.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from tqdm import tqdm

from gobuddy.ai.features import encode_batch, replay
from gobuddy.go.coords import BLACK, from_gtp
from gobuddy.go.position import legal_masks
from training.game_shards import GameSample, iter_samples, shard_paths
from training.position_shards import ShardWriter
from training.surprise import SurpriseWeighting
from training.value_targets import lambda_returns


def game_targets(sample: GameSample, val_every: int) -> bool:
    """True if the game belongs to the validation split (stable across runs)."""
    return int.from_bytes(sample.digest()[:4], "big") % val_every == 0


def positions_of(sample: GameSample, with_legal: bool = False) -> dict[str, np.ndarray] | None:
    """All training rows of one game, or ``None`` if it has no usable result; with
    ``with_legal`` also ``legal``, each position's legal moves (``[n, s*s + 1]`` bool)."""
    size = sample.size
    if sample.winner is None and sample.result != "0":
        return None
    winner = {"B": BLACK, "W": -BLACK}.get(sample.winner or "", 0)
    moves = [from_gtp(m, size) for m in sample.moves]
    if not moves:
        return None
    steps = list(replay(size, moves))
    positions = [pos for pos, _, _ in steps]
    planes = encode_batch(positions, [history for _, history, _ in steps])
    to_play = np.array([p.to_play for p in positions], dtype=np.int8)
    n = len(moves)
    policy = np.zeros((n, size * size + 1), dtype=np.float32)
    visits = getattr(sample, "visits", None)
    weight = np.ones(n, dtype=np.float32)
    for i, move in enumerate(moves):
        if visits and visits[i]:
            for vertex, count in visits[i].items():
                policy[i, from_gtp(vertex, size)] = count
            policy[i] /= policy[i].sum()
        else:
            policy[i, move] = 1.0
            if visits:  # a fast-search move of a self-play game: no policy target
                weight[i] = 0.0
    weight[: min(n, sample.opening)] = 0.0
    reply = np.full(n, -1, dtype=np.int16)
    reply[:-1] = moves[1:]
    reply[: max(0, min(n, sample.opening) - 1)] = -1  # a random opening move is no reply to learn
    scored = sample.margin is not None and sample.ownership is not None
    ownership = np.array(sample.ownership if scored else [0] * (size * size), dtype=np.int8)
    margin = float(sample.margin) if scored else 0.0
    value = (winner * to_play).astype(np.int8)
    short_value = (lambda_returns(sample.root_values, value) if sample.root_values is not None
                   else np.full(n, np.nan, dtype=np.float32))
    rows = {
        "features": planes.astype(np.uint8),
        "policy": policy,
        "value": value,
        "score": (margin * to_play).astype(np.float32),
        "ownership": ownership[None, :] * to_play[:, None],
        "weight": weight,
        "scored": np.full(n, int(scored), dtype=np.int8),
        "reply": reply,
        "short_value": short_value,
    }
    if with_legal:
        rows["legal"] = legal_masks(positions)
    return rows


WEIGHTING = "weighting.json"  # beside the shards: how the training split was weighted


def check_weighting(out: Path, surprise: SurpriseWeighting | None) -> dict:
    """The weighting record for ``out``: ``ValueError`` naming both settings when
    ``out`` already holds shards built another way (a folder without a record was built
    unweighted; a record without ``surprise_value`` trained the value on every copy)."""
    wanted = surprise.record() if surprise is not None else {"surprise_model": None, "surprise_value": None}
    path = out / WEIGHTING
    if path.exists():
        had = json.loads(path.read_text())
        if had.get("surprise_model") is not None:
            had.setdefault("surprise_value", "copies")
    elif (out / "built.json").exists():
        had = {"surprise_model": None}
    else:
        return wanted

    def named(record: dict) -> str:
        model = record.get("surprise_model")
        return f"{model} (value: {record.get('surprise_value')})" if model else "nothing"

    if (had.get("surprise_model"), had.get("surprise_value")) != (wanted["surprise_model"], wanted["surprise_value"]):
        raise ValueError(f"{out} holds positions weighted by {named(had)}, not {named(wanted)}: "
                         "build into another folder")
    return wanted


def build(games: Path, out: Path, val_every: int = 20, per_shard: int = 20000,
          progress: bool = True, surprise: SurpriseWeighting | None = None) -> tuple[int, int]:
    """Convert the game shards not yet converted; returns (games, positions) added
    (positions counted once each, however many copies ``surprise`` writes)."""
    out.mkdir(parents=True, exist_ok=True)
    record = check_weighting(out, surprise)
    manifest_path = out / "built.json"
    done = set(json.loads(manifest_path.read_text())) if manifest_path.exists() else set()
    todo = [p for p in shard_paths(games) if str(p) not in done]
    train = ShardWriter(out, "train", per_shard)
    val = ShardWriter(out, "val", per_shard)
    added_games = added_positions = 0
    game_index = len(done) * 1000
    for path in tqdm(todo, desc="positions", unit="shard", disable=not progress):
        for sample in iter_samples(path):
            rows = positions_of(sample, with_legal=surprise is not None)
            game_index += 1
            if rows is None:
                continue
            validation = game_targets(sample, val_every)
            writer = val if validation else train
            times = np.ones(len(rows["value"]), dtype=np.int64)
            value_weight = np.ones(len(rows["value"]))
            if surprise is not None and not validation:
                times, value_weight = surprise.draw(rows, sample.digest())
            for i in range(len(rows["value"])):
                for _ in range(times[i]):
                    writer.add(rows["features"][i], rows["policy"][i], int(rows["value"][i]),
                               float(rows["score"][i]), rows["ownership"][i], float(rows["weight"][i]),
                               bool(rows["scored"][i]), game_index, int(rows["reply"][i]),
                               float(rows["short_value"][i]), float(value_weight[i]))
            added_games += 1
            added_positions += len(rows["value"])
        done.add(str(path))
    train.flush()
    val.flush()
    manifest_path.write_text(json.dumps(sorted(done), indent=1))
    (out / WEIGHTING).write_text(json.dumps(record, indent=1))
    return added_games, added_positions


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=Path, required=True, help="folder of *.jsonl.gz game shards")
    parser.add_argument("--out", type=Path, required=True, help="folder for train-*/val-*.npz shards")
    parser.add_argument("--val-every", type=int, default=20, help="one game in N goes to validation")
    parser.add_argument("--per-shard", type=int, default=20000)
    parser.add_argument("--surprise-model", type=Path, default=None,
                        help="weight the training split by policy surprise under this ONNX model "
                             "(training.surprise; default: every position once)")
    parser.add_argument("--surprise-value", choices=("copies", "even"), default="copies",
                        help="with --surprise-model: every copy trains the value (copies, the default), or each "
                             "copy weighs 1/w in the value loss, so every position counts once there (even)")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    if args.surprise_model is not None and not args.surprise_model.is_file():
        parser.error(f"--surprise-model: no file {args.surprise_model}")
    surprise = (SurpriseWeighting(args.surprise_model, even_value=args.surprise_value == "even")
                if args.surprise_model is not None else None)
    try:
        check_weighting(args.out, surprise)  # only this refusal becomes a usage error
    except ValueError as exc:
        parser.error(str(exc))
    games, positions = build(args.games, args.out, args.val_every, args.per_shard,
                             progress=not args.no_progress, surprise=surprise)
    print(f"added {games} games, {positions} positions to {args.out}")


if __name__ == "__main__":
    main()
