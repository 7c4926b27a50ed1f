"""Growing a network deeper: the grown network computes what the old one did (its new
blocks are identities), the old blocks keep their kind and the new blocks still learn
(the command line: ``test_grow``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gobuddy.ai.features import NUM_PLANES  # noqa: E402
from training.deepen import deepen  # noqa: E402
from training.network import GoNet, NetConfig  # noqa: E402
from training.train import TrainConfig, losses  # noqa: E402

from tests.training.test_aux_policy import SIZE, batch_of  # noqa: E402

SHIPPED = Path(__file__).resolve().parents[2] / "models" / "gobuddy-9x9.pt"


def trained_small(blocks: int) -> GoNet:
    """A small network whose batch norms have left their defaults (running statistics
    from a few training-mode passes, random affine weights), as after training."""
    torch.manual_seed(3)
    model = GoNet(NetConfig(planes=NUM_PLANES, blocks=blocks, channels=8))
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-0.2, 0.2)
    model.train()
    with torch.no_grad():
        for _ in range(3):
            model(torch.rand(16, NUM_PLANES, SIZE, SIZE))
    return model.eval()


def outputs(model: GoNet, x: torch.Tensor) -> list[torch.Tensor]:
    model.eval()
    with torch.no_grad():
        return list(model(x))


@pytest.mark.parametrize("before, after", [(1, 2), (2, 5), (3, 4), (6, 9)])
def test_the_grown_network_gives_the_old_outputs(before, after):
    old = trained_small(before)
    grown = deepen(old, after)
    assert grown.config.blocks == after and len(grown.blocks) == after
    x = torch.rand(4, NUM_PLANES, SIZE, SIZE)
    for a, b in zip(outputs(old, x), outputs(grown, x)):
        assert torch.allclose(a, b, atol=1e-6), (a - b).abs().max()


@pytest.mark.parametrize("before, after, pooled", [
    # index:            0      1      2     3      4      5     6      7      8
    (2, 5, [False, False, True, False, False]),
    (6, 9, [False, False, True, False, False, True, False, False, True]),
])
def test_old_blocks_keep_their_place_and_kind_and_new_ones_follow_the_rule(before, after, pooled):
    old = trained_small(before)
    grown = deepen(old, after)
    assert [block.pool is not None for block in grown.blocks] == pooled
    for i in range(before):
        for key, value in old.blocks[i].state_dict().items():
            assert torch.equal(value, grown.blocks[i].state_dict()[key]), (i, key)


@pytest.mark.parametrize("before, after", [(3, 3), (3, 2), (6, 1)])
def test_deepen_only_adds_blocks(before, after):
    with pytest.raises(ValueError, match=f"already has {before} blocks"):
        deepen(trained_small(before), after)


def backward_once(model: GoNet, tmp_path: Path) -> GoNet:
    """``model`` in training mode with the gradients of one batch's training loss."""
    rng = np.random.default_rng(2)
    batch = batch_of(tmp_path, [int(r) for r in rng.integers(0, SIZE * SIZE + 1, 32)])
    model.train()
    losses(model, batch, TrainConfig(data=tmp_path, run=tmp_path / "run", size=SIZE))["total"].backward()
    return model


def test_the_new_blocks_learn(tmp_path):
    grown = backward_once(deepen(trained_small(1), 2), tmp_path)
    new_gamma = grown.blocks[1].bn2.weight
    assert new_gamma.grad is not None and new_gamma.grad.abs().sum() > 0  # the identity opens up
