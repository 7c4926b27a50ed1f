"""Growing a network wider: the wider network computes what the old one did, keeps
every old weight, opens its new channels with training and composes with deepening
(the command line: ``test_grow``)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from gobuddy.ai.features import NUM_PLANES  # noqa: E402
from training.deepen import deepen  # noqa: E402
from training.widen import widen  # noqa: E402

from tests.training.test_aux_policy import SIZE  # noqa: E402
from tests.training.test_deepen import backward_once, outputs, trained_small  # noqa: E402


@pytest.mark.parametrize("blocks, channels", [(1, 12), (3, 16), (4, 9), (6, 24)])
def test_the_wider_network_gives_the_old_outputs(blocks, channels):
    old = trained_small(blocks)  # 8 channels, a pooling block every third
    wide = widen(old, channels)
    assert wide.config.channels == channels and wide.blocks[0].conv1.weight.shape[:2] == (channels, channels)
    x = torch.rand(4, NUM_PLANES, SIZE, SIZE)
    for a, b in zip(outputs(old, x), outputs(wide, x)):
        assert torch.allclose(a, b, atol=1e-5), (a - b).abs().max()


def test_old_weights_keep_their_values_and_the_pooled_input_its_two_halves():
    old = trained_small(3)
    wide = widen(old, 12)
    assert torch.equal(wide.blocks[1].conv2.weight[:8, :8], old.blocks[1].conv2.weight)
    assert torch.equal(wide.stem[1].running_var[:8], old.stem[1].running_var)
    pooled_old, pooled_new = old.blocks[2].pool_fc.weight, wide.blocks[2].pool_fc.weight  # [out, mean | max]
    assert pooled_new.shape == (12, 24)
    assert torch.equal(pooled_new[:8, 0:8], pooled_old[:, 0:8])  # the means
    assert torch.equal(pooled_new[:8, 12:20], pooled_old[:, 8:16])  # the maxes
    assert pooled_new[:8, 8:12].abs().sum() == 0 and pooled_new[:8, 20:24].abs().sum() == 0
    assert wide.blocks[1].conv1.weight[:8, 8:].abs().sum() == 0  # new in, old out: closed
    assert wide.blocks[1].conv1.weight[8:, :].abs().sum() > 0  # new out: live
    assert wide.policy_conv[0].weight.shape[1] == 12 and wide.policy_conv[0].weight[:, 8:].abs().sum() == 0


def test_widen_and_deepen_compose():
    old = trained_small(2)
    grown = deepen(widen(old, 16), 4)
    x = torch.rand(3, NUM_PLANES, SIZE, SIZE)
    for a, b in zip(outputs(old, x), outputs(grown, x)):
        assert torch.allclose(a, b, atol=1e-5)


@pytest.mark.parametrize("channels", [8, 6])
def test_widen_only_adds_channels(channels):
    with pytest.raises(ValueError, match="already has 8 channels"):
        widen(trained_small(2), channels)


def test_the_new_channels_learn(tmp_path):
    wide = backward_once(widen(trained_small(3), 12), tmp_path)
    closed = wide.blocks[2].conv1.weight.grad[:8, 8:]  # zero now, and its inputs are live
    assert closed.abs().sum() > 0
    assert wide.policy_conv[0].weight.grad[:, 8:].abs().sum() > 0
