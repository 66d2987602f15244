"""Pebbles' end of game as arrays of one shape per parameter set: what the envs put in every
agent's infos at every step (zeros before the end). The readable result stays
``result_info()`` (with the tokens, shown at the end)."""

from __future__ import annotations

import numpy as np

from .rules import PebblesState


def result_arrays(game: PebblesState) -> dict[str, np.ndarray]:
    """Return ``winners`` (int8, 1 per seat with the top score) and ``scores`` (int64)."""
    n = game.params.num_players
    winners, scores = np.zeros(n, dtype=np.int8), np.zeros(n, dtype=np.int64)
    result = game.result_info()
    if result:
        winners[result["winners"]] = 1
        scores[:] = result["scores"]
    return {"winners": winners, "scores": scores}
