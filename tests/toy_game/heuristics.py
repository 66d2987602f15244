"""Pebbles' greedy heuristic: take what scores now, and do not hand the last pebble over.

A take of ``k`` pebbles scores ``k``, plus the last-pebble bonus if it empties the pile, minus
that bonus if it leaves 1 to 3 pebbles (the next player can then empty the pile). It reads only
the public pile, so it knows nothing of the hidden tokens.
"""

from __future__ import annotations

import numpy as np

from tabletop_envs.core.game import GameState

from .rules import LAST_PEBBLE, NUM_ACTIONS, PebblesState


def score_actions(
    game: GameState, seat: int, actions: list[int], rng: np.random.Generator
) -> list[float]:
    """Return one score per action of ``actions`` (higher is better) for ``seat`` to move."""
    assert isinstance(game, PebblesState)
    scores = []
    for action in actions:
        take = action + 1
        after = game.left - take
        score = float(take)
        if after == 0:
            score += LAST_PEBBLE
        elif after <= NUM_ACTIONS:
            score -= LAST_PEBBLE
        scores.append(score)
    return scores
