"""The torch twin of :class:`~tabletop_envs.search.conv.ConvTrunk`: the conv trunk of a network.

Imports torch: :func:`~tabletop_envs.training.az.model.build_torch_net` imports this module
only for ``arch "conv"``. The layout (which weights, in which order, what the output holds) is
:mod:`tabletop_envs.search.network_layout`'s, so the exported numpy trunk computes the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch
from torch import nn


class TorchConvTrunk(nn.Module):
    """3x3 convolutions and residual blocks over the board planes, a 1x1 reduction, the rest.

    ``conv`` is a conv network's meta entry (:func:`~tabletop_envs.search.network.conv_meta`):
    ``board`` ``[start, H, W, C]``, ``channels``, ``blocks``, ``head_channels``. The output is
    the reduced map flattened cell by cell (channels last), then the observation's entries
    outside the board, as the numpy trunk gives it.
    """

    def __init__(self, conv: Mapping[str, Any]) -> None:
        super().__init__()
        self.conv = {k: (list(v) if isinstance(v, list) else v) for k, v in conv.items()}
        self.start, self.height, self.width, self.planes = (int(v) for v in conv["board"])
        channels = int(conv["channels"])
        self.convs = nn.ModuleList(
            nn.Conv2d(self.planes if j == 0 else channels, channels, 3, padding=1)
            for j in range(1 + 2 * int(conv["blocks"]))
        )
        self.reduce = nn.Conv2d(channels, int(conv["head_channels"]), 1)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Return the dense layers' input for a batch of flat observations ``obs`` (B, D)."""
        batch = obs.shape[0]
        end = self.start + self.height * self.width * self.planes
        board = obs[:, self.start : end].reshape(batch, self.height, self.width, self.planes)
        x = torch.relu(self.convs[0](board.permute(0, 3, 1, 2)))
        for k in range(1, len(self.convs), 2):
            y = torch.relu(self.convs[k](x))
            x = torch.relu(x + self.convs[k + 1](y))
        x = torch.relu(self.reduce(x)).permute(0, 2, 3, 1).reshape(batch, -1)
        return torch.cat([x, obs[:, : self.start], obs[:, end:]], dim=1)

    def numpy_arrays(self) -> dict[str, Any]:
        """Return the trunk's weights as the network file's float32 arrays (``conv_<j>_*``...)."""
        arrays: dict[str, Any] = {}
        for j, layer in enumerate(self.convs):
            weight = layer.weight.detach().cpu().permute(2, 3, 1, 0)  # (3, 3, in, out)
            arrays[f"conv_{j}_w"] = weight.numpy().astype("float32").copy()
            arrays[f"conv_{j}_b"] = layer.bias.detach().cpu().numpy().astype("float32").copy()
        reduce = self.reduce.weight.detach().cpu()[:, :, 0, 0].T  # (channels, head_channels)
        arrays["reduce_w"] = reduce.numpy().astype("float32").copy()
        arrays["reduce_b"] = self.reduce.bias.detach().cpu().numpy().astype("float32").copy()
        return arrays
