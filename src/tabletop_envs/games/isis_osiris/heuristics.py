"""Greedy heuristic of Isis & Osiris: stones by good tiles, tiles for friends or against foes.

Everything it reads is public: stones and tiles on the board (every value was shown to all
when revealed; the heuristic has perfect recall, also in the memory variant), the tile in hand,
and the multiset of tiles not yet on the board. It never reads a stack or the box.

An action's score is the change of *own score minus the opponents' mean score*:

- a **stone** on square ``s``: the sum of the tiles next to ``s``;
- placing the revealed **tile** of value ``v`` on ``s``: ``v`` times (own stones next to ``s``
  minus the opponents' stones next to ``s`` divided by the number of opponents);
- **reveal**: the expected score of the best placement of a tile drawn from the unrevealed
  multiset (each unrevealed tile is equally likely to be the top of the stack), minus 0.25 so
  that with nothing at stake a stone is preferred while stones last.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from tabletop_envs.games.isis_osiris.rules import IsisOsirisState
from tabletop_envs.games.isis_osiris.tables import (
    NEIGHBORS,
    NUM_SQUARES,
    PLACE,
    REVEAL,
    TILE_BASE,
    all_tiles,
)

REVEAL_PENALTY = 0.25


#: The multiset of every tile value, in the canonical order (copied, never changed).
_ALL_TILES = Counter(all_tiles())


def _exposure(game: IsisOsirisState, seat: int, square: int) -> float:
    """Return own stones next to ``square`` minus the opponents' mean stones next to it."""
    owner = game.owner
    own = opp = 0
    for nb in NEIGHBORS[square]:
        o = owner[nb]
        if o == seat:
            own += 1
        elif o >= 0:
            opp += 1
    return own - opp / (game.params.num_players - 1)


def _unrevealed(game: IsisOsirisState) -> Counter[int]:
    """Return the multiset of values not face up (public: the mix minus the board and hand)."""
    pool = Counter(_ALL_TILES)
    for v in game.tiles:
        if v:
            pool[v] -= 1
    if game.phase == PLACE and game.in_hand:
        pool[game.in_hand] -= 1
    return +pool


def score_actions(
    game: IsisOsirisState, seat: int, actions: list[int], rng: np.random.Generator
) -> list[float]:
    """Score each legal action of ``seat`` (see the module docstring)."""
    tiles = game.tiles
    out = []
    for action in actions:
        if action == REVEAL:
            out.append(_reveal_score(game, seat))
        elif action < TILE_BASE:
            out.append(float(sum(tiles[nb] for nb in NEIGHBORS[action])))
        else:
            out.append(game.in_hand * _exposure(game, seat, action - TILE_BASE))
    return out


def _reveal_score(game: IsisOsirisState, seat: int) -> float:
    """Return the expected best placement of a tile drawn from the unrevealed ones, minus 0.25.

    Only the extremes of the exposure matter: a tile of value ``v`` goes where ``v`` times the
    exposure is largest, the highest exposure for ``v > 0`` and the lowest for ``v < 0``.
    """
    owner, tiles = game.owner, game.tiles
    exposures = [
        _exposure(game, seat, sq) for sq in range(NUM_SQUARES) if owner[sq] < 0 and not tiles[sq]
    ]
    pool = _unrevealed(game)
    total = sum(pool.values())
    if not total or not exposures:
        return -REVEAL_PENALTY
    high, low = max(exposures), min(exposures)
    best = {v: v * high if v >= 0 else v * low for v in pool}
    return sum(best[v] * k for v, k in pool.items()) / total - REVEAL_PENALTY
