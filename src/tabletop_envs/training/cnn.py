"""A small convolutional features extractor for SB3 over the games' ``(H, W, C)`` planes.

Imports torch: use it only with the ``train`` extra. The adapter hands SB3 flattened float32
observations; :class:`PlanesCNN` reshapes them to the game's planes, so one saved model works
with the default :class:`~tabletop_envs.training.SingleAgentEnv`::

    policy_kwargs = {
        "features_extractor_class": PlanesCNN,
        "features_extractor_kwargs": {"planes_shape": env.planes_shape},
    }
"""

from __future__ import annotations

import gymnasium
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn


class PlanesCNN(BaseFeaturesExtractor):
    """``layers`` 3x3 same-padding convolutions (ReLU) over the planes, then a linear layer."""

    def __init__(
        self,
        observation_space: gymnasium.spaces.Box,
        planes_shape: tuple[int, int, int],
        channels: int = 32,
        layers: int = 3,
        features_dim: int = 256,
    ) -> None:
        super().__init__(observation_space, features_dim)
        if len(planes_shape) != 3:
            raise ValueError(f"PlanesCNN needs (H, W, C) planes, got shape {planes_shape}")
        self.planes_shape = tuple(int(x) for x in planes_shape)
        h, w, c = self.planes_shape
        convs: list[nn.Module] = []
        for i in range(layers):
            convs += [nn.Conv2d(c if i == 0 else channels, channels, 3, padding=1), nn.ReLU()]
        self.convs = nn.Sequential(*convs)
        self.head = nn.Sequential(
            nn.Flatten(), nn.Linear(channels * h * w, features_dim), nn.ReLU()
        )

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        """Return features of a batch of flattened (or ``(H, W, C)``) observations."""
        h, w, c = self.planes_shape
        x = observations.reshape(-1, h, w, c).permute(0, 3, 1, 2)
        return self.head(self.convs(x))
