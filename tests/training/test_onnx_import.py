"""Reading an exported model back (``training.onnx_import``): the imported net computes
what the file computes, keeps doing so after its batch norms get real statistics, stays
close in training mode (so fine-tuning starts where the file is), and a file of another
layout is refused with a message naming the mismatch."""

from __future__ import annotations

import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")
onnx = pytest.importorskip("onnx")

from gobuddy.ai.features import NUM_PLANES, encode_batch  # noqa: E402
from gobuddy.go.playout import random_move  # noqa: E402
from gobuddy.go.position import Position  # noqa: E402
from training.export import export_onnx  # noqa: E402
from training.network import GoNet, NetConfig  # noqa: E402
from training.onnx_import import (  # noqa: E402
    OnnxLayoutError, import_onnx, max_difference, net_config_of, recalibrate_batch_norm)

CONFIG = NetConfig(planes=NUM_PLANES, blocks=3, channels=16, head_channels=8, value_hidden=16)  # block 3 pools


def trained_looking_net(seed: int) -> GoNet:
    """Random weights and batch-norm statistics far from identity (as after training)."""
    torch.manual_seed(seed)
    model = GoNet(CONFIG)
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.3, 3.0)
            module.weight.data.uniform_(0.5, 1.5)
            module.bias.data.uniform_(-0.3, 0.3)
    return model.eval()


def game_positions(count: int, seed: int) -> np.ndarray:
    """Features of positions from random games (every move number up to 60)."""
    rng = random.Random(seed)
    positions: list[Position] = []
    while len(positions) < count:
        pos = Position(9)
        for _ in range(rng.randrange(0, 60)):
            pos.play(random_move(pos, rng))
        positions.append(pos)
    return encode_batch(positions)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    model = trained_looking_net(seed=3)
    path = export_onnx(model, tmp_path_factory.mktemp("import") / "net.onnx", 9, model_name="import-test",
                       provenance={}, komi=7.0)
    return model, path, game_positions(96, seed=5)


def test_the_layout_is_read_from_the_file(exported):
    _, path, _ = exported
    assert net_config_of(onnx.load(str(path))) == CONFIG


def test_the_imported_net_computes_what_the_file_computes(exported):
    original, path, features = exported
    imported = import_onnx(path)
    assert max(max_difference(imported, path, features).values()) < 1e-4
    with torch.no_grad():
        for a, b in zip(imported(torch.from_numpy(features)), original(torch.from_numpy(features))):
            np.testing.assert_allclose(a.numpy(), b.numpy(), atol=1e-4)


def test_recalibration_keeps_the_function_and_makes_training_mode_agree(exported):
    _, path, features = exported
    naive = import_onnx(path)
    calibrated = recalibrate_batch_norm(import_onnx(path), features)
    assert max(max_difference(calibrated, path, features).values()) < 1e-4

    def train_mode_gap(model: GoNet) -> float:
        x = torch.from_numpy(features)
        with torch.no_grad():
            expected = model.eval()(x)[0]
            got = model.train()(x)[0]
        model.eval()
        return float((got - expected).abs().max())

    # Without statistics, training mode renormalises every layer: a different function.
    assert train_mode_gap(naive) > 1.0
    # With them, a batch like the calibration data passes through (nearly) unchanged.
    assert train_mode_gap(calibrated) < 1e-3


def test_the_checkpoint_layout_is_what_training_resumes_from(exported, tmp_path):
    _, path, features = exported
    model = recalibrate_batch_norm(import_onnx(path), features)
    again = GoNet(CONFIG)
    again.load_state_dict(model.state_dict())
    assert max(max_difference(again, path, features).values()) < 1e-4


def test_a_file_of_another_layout_is_refused(exported, tmp_path):
    _, path, _ = exported
    proto = onnx.load(str(path))
    gemms = [n for n in proto.graph.node if n.op_type == "Gemm"]
    proto.graph.node.remove(gemms[0])  # a pooling bias gone: not a GoNet any more
    broken = tmp_path / "broken.onnx"
    onnx.save(proto, str(broken))
    with pytest.raises(OnnxLayoutError, match="Gemm nodes in the file"):
        import_onnx(broken)
