"""Short-term value targets: the λ-return of the searches' root values and the outcome
(``training.value_targets``), carried by the position shards (NaN for games without
root values and for older shards), and the value loss that blends it in by
``--short-value-weight`` while ``value`` stays the error against the outcome."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gobuddy.ai.features import NUM_PLANES  # noqa: E402
from training.game_shards import GameSample, write_shard  # noqa: E402
from training.network import GoNet, NetConfig  # noqa: E402
from training.position_shards import DTYPES, augment, load_shard  # noqa: E402
from training.positions import build, positions_of  # noqa: E402
from training.train import TrainConfig, losses, main as train_main, to_tensors  # noqa: E402
from training.value_targets import SHORT_TERM_LAMBDA, lambda_returns  # noqa: E402

from tests.training.test_aux_policy import SIZE, write_positions  # noqa: E402


@pytest.mark.parametrize("root_values, outcome, lam, expected", [
    # λ = 0: each position's own search; λ = 1: the outcome
    ([0.2, -0.4, 0.6], [1, -1, 1], 0.0, [0.2, -0.4, 0.6]),
    ([0.2, -0.4, 0.6], [1, -1, 1], 1.0, [1, -1, 1]),
    # λ = 1/2, black (first mover) won: G1 = 0.5 * -0.4 + 0.5 * -1 = -0.7; G0 = 0.5 * 0.2 + 0.5 * 0.7
    ([0.2, -0.4], [1, -1], 0.5, [0.45, -0.7]),
    # a jigo: the outcome adds nothing, the searches fade by λ
    ([0.5, 0.5], [0, 0], 0.5, [0.125, 0.25]),
    ([], [], 0.5, []),
])
def test_lambda_returns(root_values, outcome, lam, expected):
    np.testing.assert_allclose(lambda_returns(root_values, np.array(outcome), lam), expected, atol=1e-6)


@pytest.mark.parametrize("root_values, outcome, lam, message", [
    ([0.1, 0.2], [1], 0.5, "one value per move"),
    ([0.1], [1], 1.5, "lambda must be in"),
])
def test_lambda_returns_refuses_bad_input(root_values, outcome, lam, message):
    with pytest.raises(ValueError, match=message):
        lambda_returns(root_values, np.array(outcome), lam)


def game(root_values=None) -> GameSample:
    moves = ["E5", "C3", "G7", "pass", "pass"]
    return GameSample(size=9, komi=7.0, moves=moves, result="B+40", winner="B", margin=40.0,
                      ownership=[1] * 81, source="selfplay", visits=[{m: 10} for m in moves],
                      root_values=root_values)


def test_positions_carry_the_short_term_target_where_the_game_recorded_root_values(tmp_path):
    values = [0.3, -0.5, 0.7, -0.9, 0.95]
    rows = positions_of(game(values))
    np.testing.assert_allclose(rows["short_value"], lambda_returns(values, rows["value"], SHORT_TERM_LAMBDA))
    assert rows["value"].tolist() == [1, -1, 1, -1, 1]
    assert np.isnan(positions_of(game())["short_value"]).all()  # no root values: no target

    write_shard(tmp_path / "games" / "selfplay-000000.jsonl.gz", [game(values)])
    build(tmp_path / "games", tmp_path / "positions", val_every=1000, progress=False)
    shard = load_shard(sorted((tmp_path / "positions").glob("train-*.npz"))[0])
    np.testing.assert_allclose(shard["short_value"], rows["short_value"], atol=2e-3)  # float16 on disk


def test_a_shard_written_before_short_value_loads_with_none(tmp_path):
    write_positions(tmp_path, [3, 4], with_reply=False)
    shard = load_shard(sorted(tmp_path.glob("train-*.npz"))[0])
    assert shard["short_value"].dtype == DTYPES["short_value"] and np.isnan(shard["short_value"]).all()


def value_batch(tmp_path, short: list[float]) -> dict:
    """A batch of positions won by the side to move (+1), with the given short-term targets."""
    write_positions(tmp_path, [3] * len(short))
    shard = load_shard(sorted(tmp_path.glob("train-*.npz"))[0])
    shard["short_value"] = np.array(short, dtype=np.float16)
    return to_tensors(augment(shard, SIZE, 0))


@pytest.mark.parametrize("weight", [0.0, 0.5, 1.0])
def test_the_value_loss_blends_the_short_term_target_where_known(tmp_path, weight):
    torch.manual_seed(0)
    model = GoNet(NetConfig(planes=NUM_PLANES, blocks=1, channels=8))
    batch = value_batch(tmp_path, [0.2, float("nan"), -0.6])
    config = TrainConfig(data=tmp_path, run=tmp_path / "run", size=SIZE, short_value_weight=weight)
    out = losses(model, batch, config)
    with torch.no_grad():
        v = model(batch["features"])[1].squeeze(1)
    z = batch["value"]
    assert z.tolist() == [1, 1, 1]
    assert torch.allclose(out["value"], ((v - z) ** 2).mean())  # always against the outcome
    if weight == 0:
        assert "short" not in out
        return
    target = torch.tensor([(1 - weight) + weight * 0.2, 1.0, (1 - weight) - weight * 0.6])
    assert torch.allclose(out["short"], ((v - target) ** 2).mean(), atol=1e-3)


def test_the_command_refuses_a_weight_outside_zero_to_one(tmp_path, capsys):
    with pytest.raises(SystemExit):
        train_main(["--data", str(tmp_path), "--run", str(tmp_path / "r"), "--short-value-weight", "1.5"])
    assert "--short-value-weight must be in [0, 1], got 1.5" in capsys.readouterr().err


def test_the_outcome_losses_weigh_each_row_by_its_value_weight(tmp_path):
    torch.manual_seed(0)
    model = GoNet(NetConfig(planes=NUM_PLANES, blocks=1, channels=8))
    batch = value_batch(tmp_path, [float("nan")] * 3)
    batch["value_weight"] = torch.tensor([2.0, 0.5, 1.0])
    out = losses(model, batch, TrainConfig(data=tmp_path, run=tmp_path / "run", size=SIZE))
    with torch.no_grad():
        v = model(batch["features"])[1].squeeze(1)
    err = (v - batch["value"]) ** 2
    assert torch.allclose(out["value"], (err * batch["value_weight"]).sum() / 3.5)
    assert not torch.allclose(out["value"], err.mean())
