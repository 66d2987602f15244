"""Hexhex boards in axial coordinates, laid on a square array of side ``2n-1``.

A cell is ``(q, r)`` with ``s = -q - r`` and ``max(|q|, |r|, |s|) <= n-1``. Cell ``(q, r)`` is
stored at row ``r + n - 1``, column ``q + n - 1`` of a ``(2n-1) x (2n-1)`` array, and its *index*
is ``row * (2n-1) + col``: the same order as the spatial planes built on that array.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from tabletop_envs.core.errors import InvalidParameterError

#: The six unit directions in axial ``(dq, dr)``.
HEX_DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


@dataclass(frozen=True, eq=False)
class HexBoard:
    """Precomputed geometry of a hexhex board of side ``n`` (shared, read-only)."""

    side: int
    width: int
    num_cells: int
    on_board: np.ndarray  # bool (width*width,)
    cells: tuple[int, ...]  # indices of on-board cells, row-major
    neighbors: tuple[tuple[int, ...], ...]  # per index; empty for off-board indices
    ring: tuple[int, ...]  # outer ring, walked once in order (empty for side 1)

    def index(self, q: int, r: int) -> int:
        """Return the array index of axial cell ``(q, r)``; ValueError if off the board."""
        if not self.contains(q, r):
            m = self.side - 1
            raise InvalidParameterError(
                f"cell (q={q}, r={r}) is off a board of side {self.side}: need "
                f"max(|q|, |r|, |q+r|) <= {m}"
            )
        return (r + self.side - 1) * self.width + (q + self.side - 1)

    def coord(self, index: int) -> tuple[int, int]:
        """Return the axial ``(q, r)`` of an on-board array index; ValueError otherwise."""
        if not (0 <= index < self.width * self.width) or not self.on_board[index]:
            raise InvalidParameterError(
                f"index {index} is not a cell of a board of side {self.side}"
            )
        row, col = divmod(index, self.width)
        return col - self.side + 1, row - self.side + 1

    def contains(self, q: int, r: int) -> bool:
        """Return whether axial ``(q, r)`` lies on the board."""
        m = self.side - 1
        return abs(q) <= m and abs(r) <= m and abs(q + r) <= m

    def opposite(self, index: int) -> int:
        """Return the index of the cell point-reflected through the centre."""
        q, r = self.coord(index)
        return self.index(-q, -r)


@cache
def hex_board(side: int) -> HexBoard:
    """Return the (cached, immutable) geometry of the hexhex board of side ``side``."""
    if side < 1:
        raise ValueError(f"a hexhex board needs side >= 1, got {side}")
    m = side - 1
    width = 2 * side - 1
    on_board = np.zeros(width * width, dtype=bool)
    for r in range(-m, m + 1):
        for q in range(-m, m + 1):
            if abs(q + r) <= m:
                on_board[(r + m) * width + (q + m)] = True
    on_board.setflags(write=False)
    cells = tuple(int(i) for i in np.flatnonzero(on_board))
    neighbors: list[tuple[int, ...]] = [()] * (width * width)
    for i in cells:
        row, col = divmod(i, width)
        q, r = col - m, row - m
        neighbors[i] = tuple(
            (r + dr + m) * width + (q + dq + m)
            for dq, dr in HEX_DIRECTIONS
            if abs(q + dq) <= m and abs(r + dr) <= m and abs(q + dq + r + dr) <= m
        )
    ring: list[int] = []
    if m > 0:
        # Start at the corner (q=0, r=-m) and walk the six sides, m steps each.
        q, r = 0, -m
        for dq, dr in ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)):
            for _ in range(m):
                ring.append((r + m) * width + (q + m))
                q, r = q + dq, r + dr
    return HexBoard(
        side=side,
        width=width,
        num_cells=len(cells),
        on_board=on_board,
        cells=cells,
        neighbors=tuple(neighbors),
        ring=tuple(ring),
    )
