"""Irk's static facts per parameters and the small per-deck tables the rules read (pure).

Kept apart from :mod:`tabletop_envs.games.irk.rules` (the state and its transitions): the
:class:`~tabletop_envs.core.GameSpec` of a parameter set, what each tile adds to a score pile,
the bytes of a table cell's first observation channels, the seat orders and the other seats
per seat, and the chance helper of ``resample_hidden``.
"""

from __future__ import annotations

from functools import lru_cache
from operator import add
from typing import Any

import numpy as np

from tabletop_envs.core.game import GameSpec
from tabletop_envs.core.seats import relative_seats
from tabletop_envs.games.irk.deck import DECK_CACHE_SIZE, deck_tiles
from tabletop_envs.games.irk.observation import CODE_FEATURES, NUM_ROUNDS, observation_layout
from tabletop_envs.games.irk.params import HAND_SIZE, MAX_DECK, MAX_PLAYERS, opening_count
from tabletop_envs.games.irk.scoring import pile_counts

#: Per color, a count (or a number of stars): a row of :func:`tile_counts` or of a score pile.
Counts = tuple[int, ...]

#: Per number of players, per observer: the seats in egocentric order (``relative_seats``).
ORDERS = {n: tuple(relative_seats(s, n) for s in range(n)) for n in range(1, MAX_PLAYERS + 1)}
#: Per number of players, per seat: the other seats, ascending.
OTHERS = {
    n: tuple(tuple(s for s in range(n) if s != seat) for seat in range(n))
    for n in range(1, MAX_PLAYERS + 1)
}


@lru_cache(maxsize=DECK_CACHE_SIZE)
def tile_counts(deck: tuple[str, ...]) -> tuple[tuple[Counts, ...], tuple[Counts, ...]]:
    """Return per tile of ``deck``, per color, its flowers' summed values and its stars: what
    the tile adds to a score pile (``scoring.pile_counts``), as tuples of Python ints."""
    per_tile = [pile_counts([tile]) for tile in deck_tiles(deck)]
    return tuple(tuple(c) for c, _ in per_tile), tuple(tuple(s) for _, s in per_tile)


def add_counts(row: Counts, more: Counts) -> Counts:
    """Return the per-color sums of two rows of :func:`tile_counts` (a score pile plus a tile)."""
    return tuple(map(add, row, more))


def read_only(array: np.ndarray) -> np.ndarray:
    """Return ``array`` made read-only (a value that copies of a state may share)."""
    array.setflags(write=False)
    return array


@lru_cache(maxsize=4)
def row_bytes(dtype: np.dtype) -> tuple[tuple[bytes, ...], ...]:
    """Return, per square code and stack height, the bytes of a table cell's first channels
    (``CODE_FEATURES`` then ``height``) in observation dtype ``dtype``."""
    high = min(int(np.iinfo(dtype).max), 2 * MAX_DECK)
    return tuple(
        tuple(np.array([*CODE_FEATURES[code], h], dtype=dtype).tobytes() for h in range(high + 1))
        for code in range(len(CODE_FEATURES))
    )


def copy_lists(value: Any) -> Any:
    """Return a copy of nested lists (the JSON-plain result), other values as they are."""
    return [copy_lists(v) for v in value] if isinstance(value, list) else value


_PCG64 = np.random.PCG64


def draw_seed(rng: np.random.Generator) -> int:
    """Return ``int(rng.integers(2**63))``, advancing ``rng`` exactly as that call does.

    For numpy's PCG64 bit generator the draw is one raw 64-bit output shifted right by one
    (``integers`` maps a 64-bit word ``x`` onto ``[0, 2**63)`` as ``(x * 2**63) >> 64``, with
    no rejection for this range), read without ``integers``' argument handling;
    ``tests/irk/test_irk_fast_paths.py`` checks the equality on the installed numpy.
    """
    bits = rng.bit_generator
    if type(bits) is _PCG64:
        return int(bits.random_raw()) >> 1
    return int(rng.integers(2**63))


@lru_cache(maxsize=DECK_CACHE_SIZE)
def game_spec(
    num_players: int,
    table_size: int,
    deck: tuple[str, ...],
    reward: str,
    group_planes: bool,
    action_values: bool,
) -> GameSpec:
    """Return Irk's :class:`~tabletop_envs.core.GameSpec` for one parameter set."""
    tiles = deck_tiles(deck)
    layout = observation_layout(table_size, num_players, len(deck), group_planes, action_values)
    max_on_table = opening_count(num_players) + 4 * num_players
    per_tile_color = max(max(pile_counts([tile])[0]) for tile in tiles)
    per_color = pile_counts(tiles)[0]  # every flower of the deck, by color
    high = max(max_on_table, 3 * per_tile_color, HAND_SIZE, 1)
    if group_planes or action_values:  # a group is worth at most all flowers of its color
        high = max(high, *per_color)
    # int8 holds every bound of the standard deck; a custom deck's group values may need more
    dtype = np.int8 if high <= np.iinfo(np.int8).max else np.int16
    reward_range = (0.0, float(sum(per_color))) if reward == "score" else (-1.0, 1.0)
    return GameSpec(
        num_players=num_players,
        num_actions=len(deck) + table_size * table_size * 4,
        observation_shape=(layout.size,),
        observation_channels=layout.names,
        max_game_length=(NUM_ROUNDS + 4) * num_players,  # 7 choices + 4 placements per seat
        reward_range=reward_range,
        observation_dtype=dtype,
        observation_high=high,
    )
