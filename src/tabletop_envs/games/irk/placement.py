"""Placing a tile on Irk's table: footprints, the covering rules and legal placements (pure).

A placement is ``(row, col, orientation)``: the tile's *top* square lands on ``(row, col)`` and
the tile runs from top to bottom in direction ``orientation``: 0 ``down`` (upright, as the
opening tiles lie), 1 ``right``, 2 ``up`` (upside down), 3 ``left``. Its placement index is
``(row * table_size + col) * 4 + orientation``; placements that leave the table have indices
too but are never legal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache

import numpy as np

from tabletop_envs.core.squaregrid import ORTHOGONAL
from tabletop_envs.games.irk.deck import (
    EMPTY,
    GRAY,
    NUM_CODES,
    SQUARE_COLOR,
    SQUARE_KIND,
    SQUARE_LABEL,
    STAR,
    THREE,
    TWO,
)

ORIENTATIONS = ("down", "right", "up", "left")
#: Step from the top square to the middle one, per orientation.
DIRECTIONS = ((1, 0), (0, 1), (-1, 0), (0, -1))
#: Per orientation, the (row, col) offsets of the top, middle and bottom squares from the top.
FOOTPRINTS = tuple(tuple((k * dr, k * dc) for k in range(3)) for dr, dc in DIRECTIONS)
#: Cost of a cover above this makes the placement illegal.
FORBIDDEN = 9


def cover_cost(old: int, new: int) -> int:
    """Return 0 (fine), 1 (a mismatch) or ``FORBIDDEN`` for square ``new`` landing on ``old``."""
    if old in (EMPTY, GRAY):
        return 0
    old_kind, new_kind = SQUARE_KIND[old], SQUARE_KIND[new]
    if old_kind in (TWO, THREE) and new_kind not in (TWO, THREE):
        return FORBIDDEN
    if old_kind == STAR and new_kind != STAR:
        return FORBIDDEN
    return 0 if SQUARE_COLOR[new] == SQUARE_COLOR[old] else 1


#: ``COVER_COST[old, new]`` for every pair of square codes (int16, read-only).
COVER_COST = np.array(
    [[cover_cost(o, n) if n != EMPTY else 0 for n in range(NUM_CODES)] for o in range(NUM_CODES)],
    dtype=np.int16,
)
COVER_COST.setflags(write=False)


#: Weights making one index of the three square codes under a placement (top first).
CODE_WEIGHTS = np.array([NUM_CODES * NUM_CODES, NUM_CODES, 1], dtype=np.intp)
CODE_WEIGHTS.setflags(write=False)


@lru_cache(maxsize=256)
def tile_allowed(tile: tuple[int, int, int]) -> np.ndarray:
    """Return, per index ``codes @ CODE_WEIGHTS`` of the three visible squares under a
    placement, whether ``tile`` may cover them (cost at most one mismatch; read-only)."""
    cost = (
        COVER_COST[:, tile[0]][:, None, None]
        + COVER_COST[:, tile[1]][None, :, None]
        + COVER_COST[:, tile[2]][None, None, :]
    )
    allowed = (cost <= 1).ravel()
    allowed.setflags(write=False)
    return allowed


def footprint(row: int, col: int, orientation: int) -> tuple[tuple[int, int], ...]:
    """Return the ``(row, col)`` of the top, middle and bottom squares of a placement."""
    dr, dc = DIRECTIONS[orientation]
    return tuple((row + k * dr, col + k * dc) for k in range(3))


@dataclass(frozen=True, eq=False)
class PlacementTables:
    """Precomputed footprints of every placement on a table of one size (shared, read-only)."""

    size: int
    num_placements: int  # size * size * 4
    cells: np.ndarray  # (num_placements, 3) cell indices (size*size for off-table placements)
    valid: np.ndarray  # (num_placements,) bool: the footprint lies on the table
    cell_lists: tuple[tuple[int, ...], ...]  # ``cells`` as Python ints, per placement
    touching: tuple[np.ndarray, ...]  # per cell: valid placements covering or edge-adjacent to it
    #: per placement, once asked for: the union of ``touching`` over its three cells
    near_cache: dict[int, np.ndarray] = field(default_factory=dict, compare=False, repr=False)

    def near(self, placement: int) -> np.ndarray:
        """Return the valid placements covering or edge-adjacent to a cell of ``placement``."""
        near = self.near_cache.get(placement)
        if near is None:
            near = np.unique(np.concatenate([self.touching[c] for c in self.cells[placement]]))
            near.setflags(write=False)
            self.near_cache[placement] = near
        return near


@cache
def placement_tables(size: int) -> PlacementTables:
    """Return the placement tables of a ``size x size`` table."""
    n = size * size
    num = n * 4
    cells = np.full((num, 3), n, dtype=np.intp)
    valid = np.zeros(num, dtype=bool)
    touching: list[list[int]] = [[] for _ in range(n)]
    for row in range(size):
        for col in range(size):
            for o in range(4):
                fp = footprint(row, col, o)
                if not all(0 <= r < size and 0 <= c < size for r, c in fp):
                    continue
                p = (row * size + col) * 4 + o
                valid[p] = True
                cells[p] = [r * size + c for r, c in fp]
                near = set(fp)
                for r, c in fp:
                    for dr, dc in ORTHOGONAL:
                        if 0 <= r + dr < size and 0 <= c + dc < size:
                            near.add((r + dr, c + dc))
                for r, c in near:
                    touching[r * size + c].append(p)
    for arr in (cells, valid):
        arr.setflags(write=False)
    touch = []
    for lst in touching:
        arr = np.array(sorted(lst), dtype=np.intp)
        arr.setflags(write=False)
        touch.append(arr)
    cell_lists = tuple(tuple(row) for row in cells.tolist())
    return PlacementTables(size, num, cells, valid, cell_lists, tuple(touch))


def legal_among(
    candidates: np.ndarray,
    visible: np.ndarray,
    tile: Sequence[int],
    tables: PlacementTables,
    cells: np.ndarray | None = None,
) -> np.ndarray:
    """Return the candidate placements (already in contact) whose covers are allowed.

    ``cells``, if given, is ``tables.cells[candidates]`` (a caller may keep it with them).
    """
    if cells is None:
        cells = tables.cells[candidates]
    index = visible[cells] @ CODE_WEIGHTS
    key = tile if type(tile) is tuple else (int(tile[0]), int(tile[1]), int(tile[2]))
    return candidates[tile_allowed(key)[index]]


def contact_placements(visible: np.ndarray, tables: PlacementTables) -> np.ndarray:
    """Return the placements that cover or share an edge with an occupied cell, ascending."""
    occupied = np.flatnonzero(visible[: tables.size * tables.size] != EMPTY)
    if len(occupied) == 0:
        return np.zeros(0, dtype=np.intp)
    return np.unique(np.concatenate([tables.touching[c] for c in occupied]))


def legal_placements(visible: np.ndarray, tile: Sequence[int], size: int) -> np.ndarray:
    """Return the legal placement indices of ``tile`` on a table of visible square codes.

    ``visible`` is a ``(size, size)`` (or flat) array of square codes, ``EMPTY`` where no tile
    lies. This is the from-scratch form; the game state keeps the contact set incrementally.
    """
    tables = placement_tables(size)
    vis = _padded(visible, size)
    return legal_among(contact_placements(vis, tables), vis, tile, tables)


def _padded(visible: np.ndarray, size: int) -> np.ndarray:
    vis = np.asarray(visible, dtype=np.intp).ravel()
    if vis.shape != (size * size,):
        raise ValueError(f"the table has {size}x{size} cells, got {np.shape(visible)}")
    return np.append(vis, EMPTY)  # the off-table sentinel cell


def why_illegal(visible: np.ndarray, tile: Sequence[int], size: int, placement: int) -> str | None:
    """Return why a placement index is illegal for ``tile`` (``None`` if it is legal)."""
    tables = placement_tables(size)
    vis = _padded(visible, size)
    cell, o = divmod(placement, 4)
    row, col = divmod(cell, size)
    where = f"top at ({row}, {col}) running {ORIENTATIONS[o]}"
    if not 0 <= placement < tables.num_placements or not tables.valid[placement]:
        return f"the tile ({where}) would leave the {size}x{size} table"
    cells = tables.cells[placement]
    if placement not in set(contact_placements(vis, tables).tolist()):
        return f"the tile ({where}) neither covers nor shares an edge with a tile on the table"
    mismatches = 0
    for k, c in enumerate(cells):
        old, new = int(vis[c]), int(tile[k])
        cost = cover_cost(old, new)
        r, cc = divmod(int(c), size)
        if cost >= FORBIDDEN:
            what = "numbered flower" if SQUARE_KIND[old] in (TWO, THREE) else "starred flower"
            need = "a numbered flower" if SQUARE_KIND[old] in (TWO, THREE) else "a starred flower"
            return (
                f"the {what} {SQUARE_LABEL[old].strip()} at ({r}, {cc}) may only be covered "
                f"by {need}, not {SQUARE_LABEL[new].strip()}"
            )
        mismatches += cost
    if mismatches > 1:
        return f"the tile ({where}) makes {mismatches} mismatches; at most one is allowed"
    return None
