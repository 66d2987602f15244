"""Shared helpers of the Irk tests: hand-built tables, random games, JSON-built states."""

from __future__ import annotations

import json

import numpy as np

from tabletop_envs.games.irk.deck import EMPTY, SQUARE_LABEL, parse_tile
from tabletop_envs.games.irk.placement import legal_placements, why_illegal
from tabletop_envs.games.irk.rules import IrkState
from tabletop_envs.games.irk.scoring import parse_table


def square_grid(text: str, size: int | None = None) -> np.ndarray:
    """Return a square ``(size, size)`` grid of codes from table text (padded with empty)."""
    rows = parse_table(text)
    size = size or max(len(rows), len(rows[0]))
    grid = np.full((size, size), EMPTY, dtype=np.int64)
    for r, row in enumerate(rows):
        grid[r, : len(row)] = row
    return grid


def placement_id(row: int, col: int, orient: int, size: int) -> int:
    """Return the placement index of (row, col, orientation) on a ``size`` table."""
    return (row * size + col) * 4 + orient


def can_place(table: str, tile: str, row: int, col: int, orient: int, size: int | None = None):
    """Return (legal?, reason) of placing ``tile`` with its top on (row, col) on ``table``."""
    grid = square_grid(table, size)
    n = grid.shape[0]
    p = placement_id(row, col, orient, n)
    legal = p in set(legal_placements(grid, parse_tile(tile), n).tolist())
    reason = why_illegal(grid, parse_tile(tile), n, p)
    assert legal == (reason is None), (legal, reason)
    return legal, reason


def random_action(game: IrkState, rng: np.random.Generator) -> int:
    """Return a uniformly drawn legal action."""
    legal = np.flatnonzero(game.legal_mask())
    return int(legal[rng.integers(len(legal))])


def random_states(seed: int, **params) -> list[IrkState]:
    """Return clones of every state of one seeded random game."""
    game = IrkState.new(seed=seed, **params)
    rng = np.random.default_rng(seed + 77)
    states = [game.clone()]
    while not game.is_terminal:
        game.apply(random_action(game, rng))
        states.append(game.clone())
    return states


def visible_dict(game: IrkState) -> dict[tuple[int, int], str]:
    """Return the visible squares of the table as ``{(row, col): "G3"}`` (reference format)."""
    t = game.params.table_size
    out = {}
    for i in range(t * t):
        code = int(game.visible[i])
        if code != EMPTY:
            out[divmod(i, t)] = SQUARE_LABEL[code].strip()
    return out


def tile_squares(game: IrkState, tile: int) -> list[str]:
    """Return a tile's squares as texts, top to bottom."""
    return game.tile_label(tile).split()


def with_state(game: IrkState, **changes) -> IrkState:
    """Return a copy of ``game`` with state fields replaced, built through the JSON path."""
    data = json.loads(game.to_json())
    data["state"].update(changes)
    return IrkState.from_json(json.dumps(data))


def fits_nowhere(game: IrkState, tile: int) -> bool:
    """Return True if, by the reference checker, ``tile`` has no legal placement on the table."""
    from tests.irk.reference import ref_legal

    t = game.params.table_size
    table = visible_dict(game)
    squares = tile_squares(game, tile)
    return not any(
        ref_legal(table, squares, r, c, o, t) for r in range(t) for c in range(t) for o in range(4)
    )
