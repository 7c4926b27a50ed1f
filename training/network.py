"""The policy/value network in PyTorch: a residual tower with four heads.

Shapes follow the model contract (``gobuddy/ai/MODEL_CONTRACT.md``): input
``[batch, planes, size, size]``; outputs ``policy`` logits ``[batch, size*size + 1]``
(pass last), ``value`` ``[batch, 1]`` in [-1, 1] for the side to move, ``score_lead``
``[batch, 1]`` in points for the side to move and ``ownership`` ``[batch, size*size]`` in
[-1, 1] (+ = side to move).

The tower is fully convolutional and the heads pool globally, so one set of weights
works on any board size; the exported ONNX file fixes the sizes it was trained for.
Global pooling inside the blocks (KataGo's trick) lets a small net see the whole board,
which matters for life and death and for the pass decision.

With ``aux_policy`` two more policies are trained beside the main one and never
exported (KataGo's auxiliary targets): the soft policy (the search's distribution
raised to the power 1/4, so the moves below the best still teach) and the opponent's
reply (the move played next). They shape the shared features only.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn
import torch.nn.functional as F


AUX_POLICIES = 2  # the auxiliary policy heads: the soft policy target, the opponent's reply


@dataclass(frozen=True)
class NetConfig:
    """Size of the network. Speed on the CPU is set by ``blocks * channels**2``."""

    planes: int
    blocks: int = 6
    channels: int = 64
    head_channels: int = 32
    value_hidden: int = 64
    aux_policy: bool = False  # training-only heads: soft policy and opponent's reply (``GoNet.forward_train``)


class GlobalPool(nn.Module):
    """Mean and max over the board: ``[b, c, h, w] -> [b, 2c]``."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cat([x.mean(dim=(2, 3)), x.amax(dim=(2, 3))], dim=1)


class ResBlock(nn.Module):
    """Two 3x3 convolutions with batch norm; optionally a global-pooling bias."""

    def __init__(self, channels: int, global_bias: bool) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        self.pool = GlobalPool() if global_bias else None
        self.pool_fc = nn.Linear(2 * channels, channels) if global_bias else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.bn1(self.conv1(x)))
        if self.pool is not None:
            y = y + self.pool_fc(self.pool(y))[:, :, None, None]
        y = self.bn2(self.conv2(y))
        return F.relu(x + y)


class GoNet(nn.Module):
    """Residual tower + policy, value, score-lead and ownership heads."""

    def __init__(self, config: NetConfig) -> None:
        super().__init__()
        self.config = config
        c, hc = config.channels, config.head_channels
        self.stem = nn.Sequential(
            nn.Conv2d(config.planes, c, 3, padding=1, bias=False), nn.BatchNorm2d(c), nn.ReLU())
        self.blocks = nn.Sequential(
            *[ResBlock(c, global_bias=(i % 3 == 2)) for i in range(config.blocks)])
        self.policy_conv = nn.Sequential(nn.Conv2d(c, hc, 1, bias=False), nn.BatchNorm2d(hc), nn.ReLU())
        self.policy_point = nn.Conv2d(hc, 1, 1)
        self.policy_pass = nn.Linear(2 * hc, 1)
        self.pool = GlobalPool()
        self.value_conv = nn.Sequential(nn.Conv2d(c, hc, 1, bias=False), nn.BatchNorm2d(hc), nn.ReLU())
        self.value_fc = nn.Sequential(nn.Linear(2 * hc, config.value_hidden), nn.ReLU())
        self.value_out = nn.Linear(config.value_hidden, 1)
        self.score_out = nn.Linear(config.value_hidden, 1)
        self.ownership_out = nn.Conv2d(hc, 1, 1)
        if config.aux_policy:  # two more policies off the policy head's features: soft, reply
            self.aux_point = nn.Conv2d(hc, AUX_POLICIES, 1)
            self.aux_pass = nn.Linear(2 * hc, AUX_POLICIES)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """Return ``(policy_logits, value, score_lead, ownership)`` (what is exported)."""
        return self._heads(self.blocks(self.stem(x)), with_aux=False)[:4]

    def forward_train(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """``forward``'s outputs and, with ``aux_policy``, the auxiliary policy logits
        ``[batch, AUX_POLICIES, size*size + 1]`` (soft policy, then the opponent's
        reply; pass last), else ``None``."""
        return self._heads(self.blocks(self.stem(x)), with_aux=self.config.aux_policy)

    def _heads(self, h: torch.Tensor, with_aux: bool) -> tuple[torch.Tensor, ...]:
        p = self.policy_conv(h)
        pooled = self.pool(p)
        points = self.policy_point(p).flatten(1)
        pass_logit = self.policy_pass(pooled)
        policy = torch.cat([points, pass_logit], dim=1)
        v = self.value_conv(h)
        hidden = self.value_fc(self.pool(v))
        value = torch.tanh(self.value_out(hidden))
        score = self.score_out(hidden) * 10.0
        ownership = torch.tanh(self.ownership_out(v)).flatten(1)
        aux = None
        if with_aux:
            aux = torch.cat([self.aux_point(p).flatten(2), self.aux_pass(pooled)[:, :, None]], dim=2)
        return policy, value, score, ownership, aux


def count_parameters(model: nn.Module) -> int:
    """Trainable parameters."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
