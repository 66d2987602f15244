"""Isis & Osiris's end of game as fixed-shape arrays: the ``results`` its ``EnvSpec`` declares.

The envs put these arrays in every agent's infos at every step (zeros until the game is over),
so that the infos of one player count always have the same keys, shapes and dtypes. The
readable result (``result_info()``: the scores and the list of winning seats) stays on the game.
"""

from __future__ import annotations

import numpy as np

from tabletop_envs.games.isis_osiris.rules import IsisOsirisState


def result_arrays(game: IsisOsirisState) -> dict[str, np.ndarray]:
    """Return ``winners`` and ``scores`` of ``game``, one entry per seat (zeros before the end).

    - ``winners``: int8 ``(num_players,)``, 1 for every seat with the top score (a shared top
      score marks each of them);
    - ``scores``: int64 ``(num_players,)``, each seat's final score (it can be negative).
    """
    n = game.params.num_players
    winners = np.zeros(n, dtype=np.int8)
    scores = np.zeros(n, dtype=np.int64)
    result = game.result_info()
    if result:
        winners[result["winners"]] = 1
        scores[:] = result["scores"]
    return {"winners": winners, "scores": scores}
