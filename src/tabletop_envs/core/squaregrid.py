"""Square grids: index ``row * cols + col``, orthogonal (edge) neighbours."""

from __future__ import annotations

from functools import cache

ORTHOGONAL: tuple[tuple[int, int], ...] = ((-1, 0), (1, 0), (0, -1), (0, 1))


@cache
def square_neighbors(rows: int, cols: int) -> tuple[tuple[int, ...], ...]:
    """Return, per index of a ``rows x cols`` grid, the indices sharing an edge with it."""
    table = []
    for row in range(rows):
        for col in range(cols):
            table.append(
                tuple(
                    (row + dr) * cols + col + dc
                    for dr, dc in ORTHOGONAL
                    if 0 <= row + dr < rows and 0 <= col + dc < cols
                )
            )
    return tuple(table)
