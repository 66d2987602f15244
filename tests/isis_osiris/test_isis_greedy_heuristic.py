"""The Isis & Osiris greedy heuristic scores every action exactly as docs/agents.md states it.

The reference below is the documented rule written out plainly (every square's exposure, the
best placement of every unrevealed value); the library's version takes shortcuts for speed
(exposure only where needed, the extremes of the exposure for a reveal) and must agree on every
legal action of random games, 2-4 players, both memory modes.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from tabletop_envs.games.isis_osiris.heuristics import REVEAL_PENALTY, score_actions
from tabletop_envs.games.isis_osiris.rules import PLACE, IsisOsirisState
from tabletop_envs.games.isis_osiris.tables import (
    NEIGHBORS,
    NUM_SQUARES,
    REVEAL,
    TILE_BASE,
    all_tiles,
)


def reference_scores(game: IsisOsirisState, seat: int, actions: list[int]) -> list[float]:
    """Return the documented score of each action, computed the long way."""
    n = game.num_players
    exposure = []
    for sq in range(NUM_SQUARES):
        owners = [game.owner[nb] for nb in NEIGHBORS[sq]]
        own = sum(o == seat for o in owners)
        opp = sum(o >= 0 and o != seat for o in owners)
        exposure.append(own - opp / (n - 1))
    empty = [sq for sq in range(NUM_SQUARES) if game.owner[sq] < 0 and not game.tiles[sq]]
    pool = Counter(all_tiles())
    pool.subtract(v for v in game.tiles if v)
    if game.phase == PLACE and game.in_hand:
        pool[game.in_hand] -= 1
    pool = +pool
    out = []
    for action in actions:
        if action == REVEAL:
            total = sum(pool.values())
            if not total or not empty:
                out.append(-REVEAL_PENALTY)
                continue
            best = {v: max(v * exposure[sq] for sq in empty) for v in pool}
            out.append(sum(best[v] * k for v, k in pool.items()) / total - REVEAL_PENALTY)
        elif action < TILE_BASE:
            out.append(float(sum(game.tiles[nb] for nb in NEIGHBORS[action])))
        else:
            out.append(game.in_hand * exposure[action - TILE_BASE])
    return out


@pytest.mark.parametrize("memory", [False, True])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_scores_follow_the_documented_rule(n, memory):
    checked = Counter()
    for seed in range(6):
        game = IsisOsirisState.new(seed=seed, num_players=n, memory=memory)
        rng = np.random.default_rng(seed)
        while not game.is_terminal:
            seat = game.current_player
            actions = game.legal_actions()
            got = score_actions(game, seat, actions, rng)
            assert got == pytest.approx(reference_scores(game, seat, actions), abs=1e-12)
            checked["reveal" if REVEAL in actions else "other"] += 1
            checked["place"] += game.phase == PLACE
            game.apply(int(rng.choice(actions)))
    assert checked["reveal"] > 50 and checked["place"] > 50
