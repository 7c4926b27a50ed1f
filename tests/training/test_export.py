"""ONNX export (``training.export``): torch and onnxruntime agree, the metadata follows the
model contract, the serving evaluator accepts the file, and a wrong feature version is refused."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
onnx = pytest.importorskip("onnx")

from gobuddy.ai import contract  # noqa: E402
from gobuddy.ai.evaluator import Query  # noqa: E402
from gobuddy.ai.features import FEATURE_VERSION, NUM_PLANES, encode_batch  # noqa: E402
from gobuddy.ai.onnx_evaluator import OnnxEvaluator  # noqa: E402
from gobuddy.go.coords import WHITE, from_gtp  # noqa: E402
from gobuddy.go.position import Position  # noqa: E402
from training.export import export_onnx, parity_check, save_weights  # noqa: E402
from training.network import GoNet, NetConfig  # noqa: E402

BOARDS = [  # (board, side to move): fixed positions for the parity check
    ("""
    . . . . . . . . .
    . . . . . . . . .
    . . X . . . O . .
    . . . . . . . . .
    . . . . X . . . .
    . . . . . . . . .
    . . O . . . X . .
    . . . . . . . . .
    . . . . . . . . .
    """, WHITE),
    ("""
    . X O . . . . . .
    X . X O . . . . .
    . X O . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . X X X
    . . . . . . X O O
    . . . . . . X O .
    """, 1),
]


def random_net(seed: int = 0) -> GoNet:
    """A 2x16 net with random weights and non-trivial batch-norm statistics."""
    torch.manual_seed(seed)
    model = GoNet(NetConfig(planes=NUM_PLANES, blocks=2, channels=16, head_channels=8, value_hidden=16))
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
            module.weight.data.uniform_(0.5, 1.5)
    return model.eval()


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    model = random_net()
    path = export_onnx(model, tmp_path_factory.mktemp("export") / "net.onnx", 9, model_name="test-net",
                       provenance={"data": "none", "steps": 0}, komi=7.0)
    positions = [Position.from_ascii(board, to_play=colour) for board, colour in BOARDS]
    return model, path, encode_batch(positions), positions


def test_torch_and_onnxruntime_agree(exported):
    model, path, planes, _ = exported
    assert parity_check(model, path, planes) < 1e-4


def test_parity_check_catches_a_different_model(exported):
    model, path, planes, _ = exported
    with pytest.raises(AssertionError, match="differs from torch"):
        parity_check(random_net(seed=1), path, planes)


def test_metadata_follows_the_contract(exported):
    _, path, _, _ = exported
    meta = {p.key: p.value for p in onnx.load(str(path)).metadata_props}
    assert meta[contract.META_FEATURE_VERSION] == str(FEATURE_VERSION)
    assert meta[contract.META_BOARD_SIZES] == "9"
    assert meta[contract.META_MODEL_NAME] == "test-net"
    assert json.loads(meta[contract.META_PROVENANCE]) == {"data": "none", "steps": 0}
    assert float(meta[contract.META_KOMI]) == 7.0


def test_the_serving_evaluator_accepts_the_export(exported):
    model, path, planes, positions = exported
    evaluator = OnnxEvaluator(path)
    assert (evaluator.name, evaluator.board_sizes, evaluator.has_score, evaluator.has_ownership) == (
        "test-net", (9,), True, True)
    with torch.no_grad():
        logits, value, _, _ = model(torch.from_numpy(planes))
    raw = evaluator.run_planes(planes)
    np.testing.assert_allclose(raw[contract.POLICY], logits.numpy(), atol=1e-4)
    results = evaluator.evaluate([Query.of(p) for p in positions])
    for pos, result, v in zip(positions, results, value[:, 0].numpy()):
        assert result.policy.sum() == pytest.approx(1.0)
        assert not result.policy[~pos.legal_mask()].any()
        assert result.value == pytest.approx(float(v), abs=1e-4)
    second = results[1]
    assert second.policy[from_gtp("B9", 9)] == 0.0  # occupied: masked
    assert second.policy[from_gtp("J1", 9)] > 0.0  # captures three stones: legal


def test_a_model_for_another_feature_version_is_refused(exported, tmp_path):
    _, path, _, _ = exported
    proto = onnx.load(str(path))
    contract.stamp(proto, contract.metadata_for("old-net", [9], {}, komi=7.0, feature_version=FEATURE_VERSION + 1))
    wrong = tmp_path / "wrong.onnx"
    onnx.save(proto, str(wrong))
    with pytest.raises(contract.ModelContractError, match="feature version"):
        OnnxEvaluator(wrong)


def test_saved_weights_are_a_checkpoint_training_starts_from(exported, tmp_path):
    model, path, planes, _ = exported
    saved = save_weights(model, tmp_path / "net.pt", step=1234, provenance={"data": "none"})
    state = torch.load(saved, map_location="cpu", weights_only=False)
    assert (state["step"], state["provenance"]) == (1234, {"data": "none"})
    again = GoNet(NetConfig(**state["net"]))
    again.load_state_dict(state["model"])  # what ``training.train --init`` does
    assert parity_check(again.eval(), path, planes) < 1e-4
