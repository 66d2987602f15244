"""Static facts of Isis & Osiris: material, action ids, square geometry, observation layout.

Everything here is immutable; per-configuration tables are cached by player count.
"""

from __future__ import annotations

from functools import cache

from tabletop_envs.core.params import check_int_range
from tabletop_envs.core.squaregrid import square_neighbors

ROWS = COLS = 6
NUM_SQUARES = ROWS * COLS

#: The 22 Isis tiles: ``value -> count`` (the values sum to 0).
TILE_MIX: dict[int, int] = {1: 2, 2: 6, 3: 2, 4: 1, -1: 2, -2: 6, -3: 2, -4: 1}
#: The distinct tile values in observation order.
TILE_VALUES: tuple[int, ...] = (-4, -3, -2, -1, 1, 2, 3, 4)
#: Position of each value in :data:`TILE_VALUES` (``VALUE_INDEX[v + 4]``; -1 for 0).
VALUE_INDEX: tuple[int, ...] = tuple(TILE_VALUES.index(v) if v else -1 for v in range(-4, 5))
NUM_TILES = sum(TILE_MIX.values())

#: ``num_players -> (stones each, tiles each, tiles unused)``.
MATERIAL: dict[int, tuple[int, int, int]] = {2: (8, 11, 0), 3: (6, 7, 1), 4: (5, 5, 2)}
MIN_PLAYERS, MAX_PLAYERS = 2, 4

# Phases.
TURN = 0  # start of a turn: a stone on a square, or reveal
PLACE = 1  # the revealed tile must go on an empty square
OVER = 2
PHASE_NAMES = ("turn", "place the revealed tile", "over")

# Action ids: a stone on square s is ``s``; a tile on square s is ``NUM_SQUARES + s``;
# "reveal the top tile of my stack" is the last id.
STONE_BASE = 0
TILE_BASE = NUM_SQUARES
REVEAL = 2 * NUM_SQUARES
NUM_ACTIONS = REVEAL + 1

NEIGHBORS: tuple[tuple[int, ...], ...] = square_neighbors(ROWS, COLS)


def all_tiles() -> list[int]:
    """Return the 22 tile values in a canonical (sorted) order."""
    return sorted(v for v, k in TILE_MIX.items() for _ in range(k))


def square_to_coord(square: int) -> tuple[int, int]:
    """Return ``(row, col)`` of square id ``square`` (0-35, row-major from the top left)."""
    return divmod(check_int_range("square", square, 0, NUM_SQUARES - 1), COLS)


def coord_to_square(row: int, col: int) -> int:
    """Return the square id of ``(row, col)``, both 0-5 (row 0 at the top)."""
    row = check_int_range("row", row, 0, ROWS - 1)
    return row * COLS + check_int_range("col", col, 0, COLS - 1)


def square_name(square: int) -> str:
    """Return the display name of a square: column letter a-f, row number 1-6 (``"c2"``)."""
    row, col = square_to_coord(square)
    return f"{'abcdef'[col]}{row + 1}"


def max_game_length(num_players: int) -> int:
    """Return the most steps a game can take: 36 placements plus one reveal per tile played."""
    _, tiles, _ = MATERIAL[num_players]
    return NUM_SQUARES + num_players * min(tiles, NUM_SQUARES // num_players)


@cache
def score_bound(num_players: int) -> int:
    """Return a proven bound on ``|score|`` of one player (the score reward range).

    A score sums ``value(t)`` over adjacent (own stone, tile) pairs. With ``s`` stones and
    the ``k`` best tiles of one sign, the pairs are at most ``4s`` (a stone has 4 sides), at
    most 4 per tile, and at most ``2(s + k) - 4`` (the stone-tile adjacency graph is a
    planar bipartite graph). Filling that many pairs from the highest values down, 4 per
    tile, bounds the score; the mix is symmetric, so the same bound holds for negatives.
    """
    stones, _, _ = MATERIAL[num_players]
    positive = sorted((v for v in all_tiles() if v > 0), reverse=True)
    best = 0
    for k in range(1, len(positive) + 1):
        pairs = min(4 * stones, 4 * k, 2 * (stones + k) - 4)
        total = 0
        for v in positive[:k]:
            take = min(4, pairs)
            total += take * v
            pairs -= take
        best = max(best, total)
    return best
