"""The auxiliary policy targets: the opponent's reply in the position shards (read from
the game record, none after a random opening move or the last move, -1 in older
shards, turned with the board), the soft policy target, their losses in the total,
training that adds the heads to weights without them, and an export that leaves them
out (the served model is unchanged)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")

from gobuddy.ai import contract  # noqa: E402
from gobuddy.ai.features import NUM_PLANES  # noqa: E402
from gobuddy.go.coords import from_gtp  # noqa: E402
from training.export import export_onnx, parity_check  # noqa: E402
from training.game_shards import GameSample  # noqa: E402
from training.network import GoNet, NetConfig  # noqa: E402
from training.position_shards import DTYPES, ShardWriter, augment, load_shard, reply_targets  # noqa: E402
from training.positions import positions_of  # noqa: E402
from training.train import TrainConfig, losses, soft_target, to_tensors, train  # noqa: E402

SIZE = 5
PASS = SIZE * SIZE


def gtp(move: str) -> int:
    return from_gtp(move, SIZE)


@pytest.mark.parametrize("moves, opening, replies", [
    # each position's reply is the move played next
    (["C3", "B2", "D4", "pass", "E5"], 0, ["B2", "D4", "pass", "E5", None]),
    # the first two moves were random: the reply at move 1 (random B2) teaches nothing
    (["C3", "B2", "D4", "pass", "E5"], 2, [None, "D4", "pass", "E5", None]),
    (["C3"], 0, [None]),
])
def test_the_reply_is_the_next_move_of_the_game(moves, opening, replies):
    sample = GameSample(size=SIZE, komi=0.5, moves=moves, result="B+R", winner="B", reason="resign",
                        opening=opening)
    rows = positions_of(sample)
    expected = [-1 if r is None else gtp(r) for r in replies]
    assert rows["reply"].tolist() == expected


def write_positions(folder, replies: list[int], with_reply: bool = True) -> None:
    """One shard of ``len(replies)`` positions; the policy target is the reply itself."""
    rng = np.random.default_rng(0)
    writer = ShardWriter(folder, "train")
    for i, reply in enumerate(replies):
        policy = np.zeros(PASS + 1, dtype=np.float32)
        policy[reply if reply >= 0 else 0] = 1.0
        writer.add(rng.integers(0, 2, (NUM_PLANES, SIZE, SIZE)).astype(np.uint8), policy, 1, 2.0,
                   rng.integers(-1, 2, PASS).astype(np.int8), 1.0, True, i, reply)
    writer.flush()
    if not with_reply:  # as written before the reply column existed
        path = sorted(folder.glob("train-*.npz"))[0]
        with np.load(path) as data:
            arrays = {k: data[k] for k in DTYPES if k != "reply"}
        np.savez_compressed(path, **arrays)


def test_a_shard_written_before_the_reply_column_loads_with_no_replies(tmp_path):
    write_positions(tmp_path, [3, PASS, 7], with_reply=False)
    shard = load_shard(sorted(tmp_path.glob("train-*.npz"))[0])
    assert shard["reply"].tolist() == [-1, -1, -1]
    target, weight = reply_targets(shard["reply"], PASS)
    assert target.sum() == 0 and weight.tolist() == [0, 0, 0]


@pytest.mark.parametrize("reply, hot, weight", [
    ("C3", "C3", 1.0),
    ("pass", "pass", 1.0),
    (None, None, 0.0),
])
def test_reply_targets_are_one_hot_rows_weighted_where_there_is_a_reply(reply, hot, weight):
    index = -1 if reply is None else gtp(reply)
    target, w = reply_targets(np.array([index], dtype=np.int16), PASS)
    expected = np.zeros(PASS + 1, dtype=np.float32)
    if hot is not None:
        expected[gtp(hot)] = 1.0
    assert target[0].tolist() == expected.tolist() and w.tolist() == [weight]


def test_the_reply_turns_with_the_board_as_the_policy_does(tmp_path):
    replies = [gtp(m) for m in ("A1", "B4", "E2", "C3", "D5")] + [PASS]
    write_positions(tmp_path, replies)
    shard = load_shard(sorted(tmp_path.glob("train-*.npz"))[0])
    seen = set()
    for k in range(8):
        batch = augment(shard, SIZE, k)
        assert np.array_equal(batch["reply"], batch["policy"]), k  # the policy target is the reply here
        seen.add(batch["reply"][0].argmax())
    assert len(seen) == 4  # A1 goes to the four corners under the eight symmetries


@pytest.mark.parametrize("target, soft", [
    # the target to the power 1/4, renormalised: the order stays, the gaps shrink
    ([0.81, 0.01, 0.0, 0.18], [0.9487 / 1.9163, 0.3162 / 1.9163, 0.0, 0.6514 / 1.9163]),
    ([1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]),
    ([0.25, 0.25, 0.25, 0.25], [0.25, 0.25, 0.25, 0.25]),
    ([0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]),  # no target stays no target
])
def test_the_soft_policy_target(target, soft):
    got = soft_target(torch.tensor([target]))[0]
    assert torch.allclose(got, torch.tensor(soft), atol=1e-4)


def batch_of(tmp_path, replies: list[int]) -> dict:
    write_positions(tmp_path, replies)
    return to_tensors(augment(load_shard(sorted(tmp_path.glob("train-*.npz"))[0]), SIZE, 0))


def aux_net() -> GoNet:
    torch.manual_seed(0)
    return GoNet(NetConfig(planes=NUM_PLANES, blocks=1, channels=8, aux_policy=True))


def config(tmp_path, **weights) -> TrainConfig:
    return TrainConfig(data=tmp_path, run=tmp_path / "run", size=SIZE, **weights)


@pytest.mark.parametrize("soft_weight, reply_weight", [(1.0, 0.0), (0.0, 0.15), (8.0, 0.15)])
def test_the_auxiliary_losses_join_the_total_by_their_weights(tmp_path, soft_weight, reply_weight):
    batch = batch_of(tmp_path, [gtp("C3"), gtp("B2"), PASS, gtp("D4")])
    out = losses(aux_net(), batch, config(tmp_path, soft_policy_weight=soft_weight,
                                          reply_policy_weight=reply_weight))
    base = losses(aux_net(), batch, config(tmp_path))
    assert "soft" not in base and "reply" not in base
    assert out["soft"] > 0 and out["reply"] > 0
    assert torch.isclose(out["total"], base["total"] + soft_weight * out["soft"] + reply_weight * out["reply"])


def test_positions_without_a_reply_do_not_count_in_the_reply_loss(tmp_path):
    cfg = config(tmp_path / "run", reply_policy_weight=1.0)
    net = aux_net().eval()  # batch norm by its running statistics: each position alone
    both = losses(net, batch_of(tmp_path / "a", [gtp("C3"), -1]), cfg)
    one = losses(net, batch_of(tmp_path / "b", [gtp("C3")]), cfg)
    assert torch.isclose(both["reply"], one["reply"])  # the mean over positions with a reply


def test_auxiliary_targets_need_the_auxiliary_heads(tmp_path):
    torch.manual_seed(0)
    plain = GoNet(NetConfig(planes=NUM_PLANES, blocks=1, channels=8))
    with pytest.raises(ValueError, match="aux_policy heads"):
        losses(plain, batch_of(tmp_path, [gtp("C3")]), config(tmp_path, soft_policy_weight=1.0))


def test_training_adds_the_heads_to_weights_without_them_and_the_export_leaves_them_out(tmp_path):
    data = tmp_path / "data"
    rng = np.random.default_rng(1)
    write_positions(data, [int(r) for r in rng.integers(-1, PASS + 1, 40)])
    plain = TrainConfig(data=data, run=tmp_path / "plain", size=SIZE, steps=2, batch_size=8, lr=0.01, warmup=1,
                        blocks=1, channels=8, validate_every=2, checkpoint_every=1, threads=1, progress=False)
    train(plain, NUM_PLANES)
    init = tmp_path / "plain" / "last.pt"
    assert torch.load(init, weights_only=False)["net"]["aux_policy"] is False
    aux = TrainConfig(data=data, run=tmp_path / "aux", size=SIZE, steps=1, batch_size=8, lr=0.0, warmup=1,
                      blocks=1, channels=8, validate_every=1, checkpoint_every=1, threads=1, progress=False,
                      init=init, soft_policy_weight=1.0, reply_policy_weight=0.15)
    train(aux, NUM_PLANES)
    state = torch.load(tmp_path / "aux" / "last.pt", weights_only=False)
    assert state["net"]["aux_policy"] is True
    before = torch.load(init, weights_only=False)["model"]
    for key, value in before.items():  # learning rate 0: the old weights are kept as they were
        if key.endswith("num_batches_tracked") or key.startswith("bn") or ".running_" in key:
            continue
        assert torch.equal(value, state["model"][key]), key
    assert {"aux_point.weight", "aux_pass.weight"} <= set(state["model"])

    model = GoNet(NetConfig(**state["net"]))
    model.load_state_dict(state["model"])
    model.eval()
    path = export_onnx(model, tmp_path / "aux.onnx", SIZE, model_name="aux", provenance={})
    import onnx

    outputs = [o.name for o in onnx.load(str(path)).graph.output]
    assert outputs == [contract.POLICY, contract.VALUE, contract.SCORE_LEAD, contract.OWNERSHIP]
    planes = load_shard(sorted(data.glob("train-*.npz"))[0])["features"][:4].astype(np.float32)
    assert parity_check(model, path, planes) < 1e-4
