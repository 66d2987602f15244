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

from typing import Any

import gymnasium
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
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


class SectionsCNN(BaseFeaturesExtractor):
    """A CNN over one planes section of a flat observation, an MLP over the other entries.

    ``table_start`` / ``table_shape``: where the ``(H, W, C)`` planes sit in the flat vector
    (row, then column, then channel, as Irk's ``observation_layout`` declares its ``table``).
    The planes go through ``layers`` 3x3 same-padding convolutions (``channels`` each, ReLU),
    each shifted per channel by a linear map of the other entries' ``rest_dim`` features; a
    global max and mean pool of the map plus those features make the ``global_dim`` global
    features. The output is the global features followed by the flattened ``(channels, H, W)``
    map, for :class:`CellsPolicy`'s per-cell action head.

    ``values_start`` / ``values_length``: a section of features per action (Irk's
    ``action_values``: per action, the table value of each color after it), left out of the
    other entries and appended to the output as it is, for the head to weigh.
    """

    def __init__(
        self,
        observation_space: gymnasium.spaces.Box,
        table_start: int,
        table_shape: tuple[int, int, int],
        channels: int = 8,
        layers: int = 3,
        rest_dim: int = 128,
        global_dim: int = 128,
        values_start: int | None = None,
        values_length: int = 0,
    ) -> None:
        if len(table_shape) != 3:
            raise ValueError(f"SectionsCNN needs (H, W, C) planes, got shape {table_shape}")
        h, w, c = (int(x) for x in table_shape)
        values_length = int(values_length) if values_start is not None else 0
        super().__init__(observation_space, global_dim + channels * h * w + values_length)
        self.table_shape = (h, w, c)
        self.channels = channels
        self.global_dim = global_dim
        total = int(observation_space.shape[0])
        self.table_start = int(table_start)
        self.table_end = self.table_start + h * w * c
        if not 0 <= self.table_start < self.table_end <= total:
            raise ValueError(
                f"table section {self.table_start}..{self.table_end} does not fit an "
                f"observation of {total} entries"
            )
        self.convs = nn.ModuleList(
            nn.Conv2d(c if i == 0 else channels, channels, 3, padding=1) for i in range(layers)
        )
        self.values = slice(0, 0)
        if values_length:
            self.values = slice(int(values_start), int(values_start) + values_length)
            if not self.table_end <= self.values.start < self.values.stop <= total:
                raise ValueError(
                    f"values section {self.values.start}..{self.values.stop} must follow the "
                    f"table and fit an observation of {total} entries"
                )
        self.values_length = values_length
        rest = total - (self.table_end - self.table_start) - values_length
        self.rest = nn.Sequential(nn.Linear(rest, rest_dim), nn.ReLU()) if rest else None
        # the other sections (e.g. the tile being placed) shift every convolution's channels
        self.inject = nn.Linear(rest_dim, channels * layers) if rest else None
        self.head = nn.Sequential(
            nn.Linear(2 * channels + (rest_dim if rest else 0), global_dim), nn.ReLU()
        )

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        """Return global features then the flattened convolution map, per observation."""
        h, w, c = self.table_shape
        x = observations.reshape(observations.shape[0], -1)
        planes = x[:, self.table_start : self.table_end].reshape(-1, h, w, c).permute(0, 3, 1, 2)
        rest = None
        if self.rest is not None:
            end = self.values.start if self.values_length else None
            others = [x[:, : self.table_start], x[:, self.table_end : end]]
            if self.values_length:
                others.append(x[:, self.values.stop :])
            rest = self.rest(torch.cat(others, dim=1))
            shifts = self.inject(rest).reshape(x.shape[0], len(self.convs), -1, 1, 1)
        y = planes
        for i, conv in enumerate(self.convs):
            y = conv(y)
            if rest is not None:
                y = y + shifts[:, i]
            y = torch.relu(y)
        y = y.flatten(2)
        parts = [y.amax(dim=2), y.mean(dim=2)] + ([] if rest is None else [rest])
        out = [self.head(torch.cat(parts, dim=1)), y.flatten(1)]
        if self.values_length:
            out.append(x[:, self.values])
        return torch.cat(out, dim=1)


#: Per cell action, the ``(row, col)`` offsets of the cells it covers (Irk: a tile's 3 squares).
Footprint = tuple[tuple[tuple[int, int], ...], ...]


class CellsHead(nn.Module):
    """Action logits: the first ``n_actions - H*W*k`` from the global features, then ``k`` per cell.

    Cell actions are ordered row, column, then ``k`` (Irk: ``(row * T + col) * 4 +
    orientation``); a cell's logits are a 1x1 convolution of its map column plus a linear term
    of the global features.

    With a ``footprint`` (one tuple of ``(row, col)`` offsets per cell action: the cells that
    action covers, in order), each cell action also adds, for every covered cell, the dot
    product of that cell's map column with a query vector computed from the global features
    for that action kind and position (e.g. "a green 3 lands here"): a placement is scored by
    every cell it covers, with queries that depend on what is being placed.

    With ``values`` features per action (after the map in the features, ordered action id,
    then feature: Irk's ``action_values``), each action's logit also adds the best of
    ``mixtures`` weighted sums of its features, the weights computed from the global features
    (for Irk: how much each color's table value is worth to me, under a few plans), one set of
    weightings for the cell actions and one for the others.
    """

    def __init__(
        self,
        global_dim: int,
        channels: int,
        hw: tuple[int, int],
        n_actions: int,
        footprint: Footprint | None = None,
        values: int = 0,
        mixtures: int = 4,
    ):
        super().__init__()
        self.global_dim, self.channels, self.hw = global_dim, channels, hw
        cells = hw[0] * hw[1]
        self.per_cell = (n_actions - 1) // cells
        self.n_other = n_actions - cells * self.per_cell
        if self.per_cell < 1:
            raise ValueError(f"{n_actions} actions do not cover {cells} cells")
        self.other = nn.Linear(global_dim, self.n_other)
        self.cell = nn.Conv2d(channels, self.per_cell, 1)
        self.cell_bias = nn.Linear(global_dim, self.per_cell)
        self.footprint = None if footprint is None else _check_footprint(footprint, self.per_cell)
        self.query = None
        if self.footprint is not None:
            self.covers = len(self.footprint[0])
            self.pad = max(abs(d) for cells in self.footprint for off in cells for d in off)
            self.query = nn.Linear(global_dim, self.per_cell * self.covers * channels)
        self.values = int(values)
        self.mixtures = int(mixtures)
        self.weigh = self.weigh_other = None
        if self.values:
            if self.mixtures < 1:
                raise ValueError(f"mixtures must be at least 1, got {mixtures}")
            self.weigh = nn.Linear(global_dim, self.mixtures * self.values)
            self.weigh_other = nn.Linear(global_dim, self.mixtures * self.values)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        """Return the logits of every action."""
        g = features[:, : self.global_dim]
        h, w = self.hw
        map_end = self.global_dim + self.channels * h * w
        y = features[:, self.global_dim : map_end].reshape(-1, self.channels, h, w)
        cell = self.cell(y) + self.cell_bias(g)[:, :, None, None]
        if self.query is not None:
            q = self.query(g).reshape(-1, self.per_cell, self.covers, self.channels)
            dots = torch.einsum("bchw,bokc->bokhw", y, q)
            p = self.pad
            dots = nn.functional.pad(dots, (p, p, p, p))
            parts = []
            for o, cells in enumerate(self.footprint):
                total = cell[:, o]
                for k, (dr, dc) in enumerate(cells):
                    total = total + dots[:, o, k, p + dr : p + dr + h, p + dc : p + dc + w]
                parts.append(total)
            cell = torch.stack(parts, dim=1)
        other = self.other(g)
        if self.weigh is not None:
            f, k = self.values, self.mixtures
            split = map_end + self.n_other * f
            vals = features[:, map_end:split].reshape(-1, self.n_other, f)
            weights = self.weigh_other(g).reshape(-1, k, f)
            other = other + torch.einsum("baf,bkf->bka", vals, weights).amax(dim=1)
            vals = features[:, split:].reshape(-1, h, w, self.per_cell, f)
            weights = self.weigh(g).reshape(-1, k, f)
            cell = cell + torch.einsum("bhwof,bkf->bkohw", vals, weights).amax(dim=1)
        return torch.cat([other, cell.permute(0, 2, 3, 1).flatten(1)], dim=1)


def _check_footprint(footprint: Any, per_cell: int) -> Footprint:
    """Return ``footprint`` as tuples; ValueError unless one equal-length entry per action."""
    out = tuple(tuple((int(r), int(c)) for r, c in cells) for cells in footprint)
    if len(out) != per_cell or not out[0] or any(len(c) != len(out[0]) for c in out):
        raise ValueError(
            f"footprint needs {per_cell} entries (one per cell action) of equally many "
            f"(row, col) offsets, got {footprint!r}"
        )
    return out


class CellsPolicy(MaskableActorCriticPolicy):
    """A maskable policy over :class:`SectionsCNN` features with a per-cell action head.

    Use with ``net_arch=[]``; the value is an MLP (64 units) over the global features only.
    ``footprint``: see :class:`CellsHead` (None: the 1x1 head alone). When the extractor passes
    a values section through (``SectionsCNN(values_start=...)``), the head weighs it with
    ``value_mixtures`` weightings (see :class:`CellsHead`).
    """

    def __init__(
        self,
        *args: Any,
        footprint: Footprint | None = None,
        value_mixtures: int = 4,
        **kwargs: Any,
    ) -> None:
        self.footprint = footprint
        self.value_mixtures = value_mixtures
        super().__init__(*args, **kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {
            **super()._get_constructor_parameters(),
            "footprint": self.footprint,
            "value_mixtures": self.value_mixtures,
        }

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        fx = self.features_extractor
        if not isinstance(fx, SectionsCNN):
            raise TypeError("CellsPolicy needs the SectionsCNN features extractor")
        h, w, _ = fx.table_shape
        n_actions = int(self.action_space.n)
        if fx.values_length % n_actions:
            raise ValueError(
                f"the values section ({fx.values_length} entries) must hold the same number of "
                f"features for each of the {n_actions} actions"
            )
        self.action_net = CellsHead(
            fx.global_dim,
            fx.channels,
            (h, w),
            n_actions,
            self.footprint,
            values=fx.values_length // n_actions,
            mixtures=self.value_mixtures,
        )
        head = self.action_net
        layers = (head.other, head.cell, head.cell_bias, head.query, head.weigh, head.weigh_other)
        for layer in layers:
            if layer is not None:
                self.init_weights(layer, gain=0.01)
        self.value_net = _GlobalValue(fx.global_dim)
        self.optimizer = self.optimizer_class(
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )


class _GlobalValue(nn.Module):
    def __init__(self, global_dim: int) -> None:
        super().__init__()
        self.global_dim = global_dim
        self.net = nn.Sequential(nn.Linear(global_dim, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        return self.net(features[:, : self.global_dim])
