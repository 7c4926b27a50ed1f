"""Policy surprise weighting (``training.surprise``): the KL from the prior to the target,
the frequency weights that keep a game's count, the copies drawn from them, and
``training.positions --surprise-model`` writing the training split with the shipped
model as the judge (validation once per position, reproducible, and a folder never
mixing weighted and unweighted builds)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from training.game_shards import GameSample, write_shard
from training.position_shards import load_shard
from training.positions import build, main, positions_of
from training.surprise import SurpriseWeighting, copies, frequency_weights, policy_surprise

MODEL = Path(__file__).resolve().parents[2] / "models" / "gobuddy-9x9.onnx"


@pytest.mark.parametrize("legal, target, nats", [
    # a prior uniform over the legal moves (equal logits)
    ([1, 1, 1, 1, 0], [1, 0, 0, 0, 0], math.log(4)),  # one sure move of four: log 4
    ([1, 1, 1, 1, 0], [0.25, 0.25, 0.25, 0.25, 0], 0.0),  # the target is the prior
    ([1, 1, 0, 0, 1], [0.5, 0, 0, 0, 0.5], math.log(1.5)),  # half of three each on two
    ([1, 1, 1, 1, 1], [0, 0, 0, 0, 0], 0.0),  # no target
])
def test_policy_surprise_is_the_kl_from_the_prior_to_the_target(legal, target, nats):
    logits = np.zeros((1, 5))
    got = policy_surprise(logits, np.array([legal], dtype=bool), np.array([target]))
    assert got[0] == pytest.approx(nats)


@pytest.mark.parametrize("surprise, targeted, weights", [
    # half alike (0.5 each), half by surprise: 3 targeted rows keep 3 in all
    ([0.0, 1.0, 3.0], [1, 1, 1], [0.5, 0.875, 1.625]),
    ([2.0, 2.0], [1, 1], [1.0, 1.0]),
    ([0.0, 0.0, 0.0], [1, 1, 1], [1.0, 1.0, 1.0]),  # nothing surprised: all alike
    ([9.0, 1.0, 1.0], [0, 1, 1], [1.0, 1.0, 1.0]),  # an untargeted row stays at 1 and takes no share
    ([9.0, 0.0, 2.0], [0, 1, 1], [1.0, 0.5, 1.5]),
])
def test_frequency_weights(surprise, targeted, weights):
    got = frequency_weights(np.array(surprise), np.array(targeted, dtype=bool))
    assert got.tolist() == pytest.approx(weights)


def test_copies_are_the_whole_part_and_the_fraction_by_chance():
    rng = np.random.default_rng(0)
    assert copies(np.array([2.0, 0.0, 1.0, 3.0]), rng).tolist() == [2, 0, 1, 3]
    drawn = copies(np.full(20000, 1.25), rng)
    assert set(drawn.tolist()) == {1, 2}
    assert drawn.mean() == pytest.approx(1.25, abs=0.02)


def test_a_move_the_network_did_not_expect_is_more_surprising():
    judge = SurpriseWeighting(MODEL)
    sample = GameSample(size=9, komi=7.0, moves=["E5", "A1"], result="B+R", winner="B", reason="resign",
                        source="selfplay", visits=[{"E5": 100}, {"A1": 100}])
    rows = positions_of(sample, with_legal=True)
    logits = judge.network.run_planes(rows["features"].astype(np.float32))["policy"]
    surprise = policy_surprise(logits, rows["legal"], rows["policy"])
    assert surprise[1] > surprise[0] + 2  # the first-line corner at move 2 against the centre at move 1


def games(folder: Path) -> list[GameSample]:
    """Self-play-like games with targets on every move (one in four a first-line surprise)."""
    rng = np.random.default_rng(3)
    samples = []
    for g in range(12):
        points = [f"{c}{r}" for c in "ABCDEFGHJ" for r in range(1, 10)]
        moves = list(rng.choice(points, size=16, replace=False))
        visits = [{m: 100, moves[(i + 1) % len(moves)]: 20 * (i % 4)} if i % 4 else {m: 100}
                  for i, m in enumerate(moves)]
        samples.append(GameSample(size=9, komi=7.0, moves=moves, result="B+R" if g % 2 else "W+R",
                                  winner="B" if g % 2 else "W", reason="resign", source="selfplay",
                                  visits=visits))
    write_shard(folder / "selfplay-000000.jsonl.gz", samples)
    return samples


def positions(folder: Path, split: str) -> dict[str, np.ndarray]:
    shards = [load_shard(p) for p in sorted(folder.glob(f"{split}-*.npz"))]
    return {k: np.concatenate([s[k] for s in shards]) for k in shards[0]}


def test_the_training_split_is_written_by_surprise_and_validation_once(tmp_path):
    samples = games(tmp_path / "games")
    judge = SurpriseWeighting(MODEL)
    plain_games, plain_positions = build(tmp_path / "games", tmp_path / "plain", val_every=4, per_shard=5000,
                                         progress=False)
    weighted_games, weighted_positions = build(tmp_path / "games", tmp_path / "weighted", val_every=4,
                                               per_shard=5000, progress=False, surprise=judge)
    assert (weighted_games, weighted_positions) == (plain_games, plain_positions) == (12, 12 * 16)

    val_plain, val_weighted = positions(tmp_path / "plain", "val"), positions(tmp_path / "weighted", "val")
    assert np.array_equal(val_plain["features"], val_weighted["features"])  # validation: once each

    train_plain, train_weighted = positions(tmp_path / "plain", "train"), positions(tmp_path / "weighted", "train")
    per_game_plain = np.bincount(train_plain["game"])
    per_game_weighted = np.bincount(train_weighted["game"], minlength=len(per_game_plain))
    for game in np.flatnonzero(per_game_plain):  # the builder numbers the games from 1
        sample = samples[game - 1]
        expected = judge.draw(positions_of(sample, with_legal=True), sample.digest())[0].sum()
        assert per_game_weighted[game] == expected, game
    assert not np.array_equal(per_game_plain, per_game_weighted)  # some positions were written more, some less
    # on average a game keeps its count of targeted positions
    assert abs(len(train_weighted["value"]) - len(train_plain["value"])) < 0.25 * len(train_plain["value"])

    again = build(tmp_path / "games", tmp_path / "again", val_every=4, per_shard=5000, progress=False,
                  surprise=judge)
    assert again == (12, 12 * 16)
    assert np.array_equal(positions(tmp_path / "again", "train")["features"], train_weighted["features"])


def test_a_folder_built_one_way_is_not_extended_another_way(tmp_path, capsys):
    games(tmp_path / "games")
    build(tmp_path / "games", tmp_path / "plain", val_every=4, per_shard=5000, progress=False)
    with pytest.raises(ValueError, match="weighted by nothing, not [0-9a-f]{64}"):
        build(tmp_path / "games", tmp_path / "plain", progress=False, surprise=SurpriseWeighting(MODEL))
    with pytest.raises(SystemExit):
        main(["--games", str(tmp_path / "games"), "--out", str(tmp_path / "plain"), "--surprise-model", str(MODEL),
              "--no-progress"])
    assert "holds positions weighted by nothing" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--games", str(tmp_path / "games"), "--out", str(tmp_path / "x"), "--surprise-model",
              str(tmp_path / "missing.onnx")])
    assert "--surprise-model: no file" in capsys.readouterr().err


def test_even_value_gives_each_copy_the_inverse_of_its_weight(tmp_path):
    """The policy sees surprising positions more; the value, score and ownership losses
    see every position once in expectation (each copy weighs 1 / w, at most 2)."""
    samples = games(tmp_path / "games")
    copies_way = SurpriseWeighting(MODEL)
    even_way = SurpriseWeighting(MODEL, even_value=True)
    build(tmp_path / "games", tmp_path / "copies", val_every=4, per_shard=5000, progress=False, surprise=copies_way)
    build(tmp_path / "games", tmp_path / "even", val_every=4, per_shard=5000, progress=False, surprise=even_way)
    copied, even = positions(tmp_path / "copies", "train"), positions(tmp_path / "even", "train")
    assert np.array_equal(copied["features"], even["features"])  # the same copies are drawn
    assert (copied["value_weight"] == 1).all()
    assert 0 < even["value_weight"].min() < 1 < even["value_weight"].max() <= 2.0  # w >= 1/2: at most 2
    for game in np.unique(even["game"]):
        sample = samples[game - 1]
        rows = positions_of(sample, with_legal=True)
        times, weight = even_way.draw(rows, sample.digest())
        expected = np.repeat(weight, times)
        np.testing.assert_allclose(even["value_weight"][even["game"] == game], expected, rtol=1e-3)
    assert (positions(tmp_path / "even", "val")["value_weight"] == 1).all()  # validation: once each, weight 1


@pytest.mark.parametrize("first, then, message", [
    ({}, {"even_value": True}, "weighted by [0-9a-f]{64} \\(value: copies\\), not [0-9a-f]{64} \\(value: even\\)"),
    ({"even_value": True}, {}, "\\(value: even\\), not [0-9a-f]{64} \\(value: copies\\)"),
])
def test_a_folder_keeps_its_value_weighting(tmp_path, first, then, message):
    games(tmp_path / "games")
    build(tmp_path / "games", tmp_path / "out", per_shard=5000, progress=False,
          surprise=SurpriseWeighting(MODEL, **first))
    with pytest.raises(ValueError, match=message):
        build(tmp_path / "games", tmp_path / "out", progress=False, surprise=SurpriseWeighting(MODEL, **then))


def test_a_record_from_before_the_value_setting_reads_as_copies(tmp_path):
    import json

    from training.positions import WEIGHTING

    games(tmp_path / "games")
    judge = SurpriseWeighting(MODEL)
    build(tmp_path / "games", tmp_path / "out", per_shard=5000, progress=False, surprise=judge)
    (tmp_path / "out" / WEIGHTING).write_text(json.dumps({"surprise_model": judge.digest()}))  # as first written
    assert build(tmp_path / "games", tmp_path / "out", progress=False, surprise=judge) == (0, 0)
