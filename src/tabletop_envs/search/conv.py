"""The numpy forward pass of a network's convolutional trunk over the board planes.

:class:`ConvTrunk` turns a batch of flat observations into the input of the dense layers, as
:mod:`tabletop_envs.search.network_layout` declares it (``arch "conv"``). A 3x3 convolution is
one gather and one matrix product (im2col): each cell's 3x3 neighbourhood is read through a
table of cell indices computed once per board shape, where a neighbour off the board points at
an extra all-zero cell (the zero padding). No Python loop runs over cells or rows.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np


@functools.lru_cache(maxsize=32)
def neighbour_table(height: int, width: int) -> np.ndarray:
    """Return the ``(H*W, 9)`` cell indices of each cell's 3x3 neighbourhood, row by row.

    Column ``3 * (dy + 1) + (dx + 1)`` holds the cell at row offset ``dy`` and column offset
    ``dx``; ``H*W`` (one past the last cell) stands for a neighbour off the board. Read-only.
    """
    rows, cols = np.divmod(np.arange(height * width), width)
    offsets = np.array([(dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1)])
    r = rows[:, None] + offsets[None, :, 0]
    c = cols[:, None] + offsets[None, :, 1]
    inside = (r >= 0) & (r < height) & (c >= 0) & (c < width)
    table = np.where(inside, r * width + c, height * width).astype(np.intp)
    table.setflags(write=False)
    return table


class ConvTrunk:
    """The convolutional trunk of a checked ``conv`` network: ``trunk(obs) -> dense input``.

    ``conv`` is the meta's ``conv`` object and ``arrays`` the network's float32 arrays (checked
    by :class:`~tabletop_envs.search.network.PolicyValueNet`, which builds this).
    """

    def __init__(self, conv: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
        self.start, self.height, self.width, self.planes = (int(v) for v in conv["board"])
        self.cells = self.height * self.width
        self.gather = neighbour_table(self.height, self.width).ravel()  # (H*W*9,), cell-major
        count = 1 + 2 * int(conv["blocks"])
        # (3, 3, in, out) -> (9 * in, out): the rows follow the table's columns, then channels
        self.convs = [
            (
                arrays[f"conv_{j}_w"].reshape(-1, arrays[f"conv_{j}_w"].shape[-1]),
                arrays[f"conv_{j}_b"],
            )
            for j in range(count)
        ]
        self.reduce = (arrays["reduce_w"], arrays["reduce_b"])

    def _conv3x3(self, x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
        """Return the 3x3 convolution (zero padding) of ``x`` (B, H*W, in): (B, H*W, out)."""
        batch, cells, channels = x.shape
        padded = np.concatenate([x, np.zeros((batch, 1, channels), np.float32)], axis=1)
        columns = padded.take(self.gather, axis=1).reshape(batch * cells, 9 * channels)
        out = columns @ weight
        out += bias
        return out.reshape(batch, cells, -1)

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        """Return the dense layers' input for ``obs`` (B, D) float32: (B, H*W*K + rest)."""
        batch = obs.shape[0]
        end = self.start + self.cells * self.planes
        x = obs[:, self.start : end].reshape(batch, self.cells, self.planes)
        x = self._conv3x3(x, *self.convs[0])
        np.maximum(x, 0.0, out=x)
        for k in range(1, len(self.convs), 2):
            y = self._conv3x3(x, *self.convs[k])
            np.maximum(y, 0.0, out=y)
            y = self._conv3x3(y, *self.convs[k + 1])
            x += y
            np.maximum(x, 0.0, out=x)
        x = x @ self.reduce[0]
        x += self.reduce[1]
        np.maximum(x, 0.0, out=x)
        return np.concatenate([x.reshape(batch, -1), obs[:, : self.start], obs[:, end:]], axis=1)
