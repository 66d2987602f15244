"""Table values on dense random tables (many gray clusters touching many flowers) against the
independent reference: random games leave sparse tables, so the scoring walk is checked here
where gray squares join flowers of several colors at once."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_envs.games.irk.deck import EMPTY, GRAY, NUM_CODES, SQUARE_LABEL
from tabletop_envs.games.irk.scoring import cell_table_values, table_values
from tests.irk.reference import ref_table_value


@pytest.mark.parametrize("gray_share", [0.0, 0.3, 0.6])
def test_table_values_match_reference_on_dense_tables(gray_share):
    rng = np.random.default_rng(7)
    for _ in range(150):
        rows, cols = int(rng.integers(1, 8)), int(rng.integers(1, 8))
        grid = rng.integers(GRAY + 1, NUM_CODES, size=(rows, cols))
        grid[rng.random((rows, cols)) < gray_share] = GRAY
        grid[rng.random((rows, cols)) < 0.2] = EMPTY
        table = {
            (r, c): SQUARE_LABEL[int(grid[r, c])].strip()
            for r in range(rows)
            for c in range(cols)
            if grid[r, c] != EMPTY
        }
        expected = [ref_table_value(table, color) for color in "GRYPB"]
        assert table_values(grid) == expected
        # an occupied-cell map that also lists an empty cell: it joins nothing
        cells = {r * cols + c: int(grid[r, c]) for r in range(rows) for c in range(cols)}
        assert cell_table_values(cells, (rows, cols)) == expected
        assert cell_table_values(cells, (rows, cols), colors=[1, 3]) == [
            0,
            expected[1],
            0,
            expected[3],
            0,
        ]
