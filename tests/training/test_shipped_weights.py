"""The torch weights that ship beside the model (``models/gobuddy-9x9.pt``) are the
shipped ONNX model's: ``training.train --init`` fine-tunes exactly what users play."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from gobuddy.ai.features import NUM_PLANES  # noqa: E402
from tests.training.test_onnx_import import game_positions  # noqa: E402
from training.network import GoNet, NetConfig  # noqa: E402
from training.onnx_import import max_difference  # noqa: E402

MODELS = Path(__file__).resolve().parents[2] / "models"


def test_the_shipped_weights_compute_the_shipped_model():
    state = torch.load(MODELS / "gobuddy-9x9.pt", map_location="cpu", weights_only=False)
    net = GoNet(NetConfig(**state["net"]))
    assert net.config.planes == NUM_PLANES
    net.load_state_dict(state["model"])
    worst = max_difference(net, MODELS / "gobuddy-9x9.onnx", game_positions(64, seed=11))
    assert max(worst.values()) < 1e-4, worst
