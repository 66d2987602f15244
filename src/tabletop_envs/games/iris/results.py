"""Iris's end of game as fixed-shape arrays: the ``results`` its ``EnvSpec`` declares.

The envs put these arrays in every agent's infos at every step (zeros until the game is over),
so that the infos of one board size always have the same keys, shapes and dtypes. The readable
result (``result_info()``: each colour's list of group scores and the winner) stays on the game.
"""

from __future__ import annotations

import numpy as np

from tabletop_envs.games.iris.rules import IrisState


def result_arrays(game: IrisState) -> dict[str, np.ndarray]:
    """Return ``winners``, ``group_scores`` and ``group_counts`` of ``game`` (zeros before the end).

    - ``winners``: int8 ``(2,)``, 1 for the winning seat (all zeros for a draw);
    - ``group_scores``: int64 ``(2, G)``, each seat's group scores highest first, padded with
      zeros; ``G`` is the number of coloured cells of the board (no seat can have more groups);
    - ``group_counts``: int64 ``(2,)``, how many entries of each row are groups.
    """
    width = len(game.tables.colored_cells)
    winners = np.zeros(2, dtype=np.int8)
    scores = np.zeros((2, width), dtype=np.int64)
    counts = np.zeros(2, dtype=np.int64)
    result = game.result_info()
    if result:
        if result["winner"] is not None:
            winners[result["winner"]] = 1
        for seat, groups in enumerate(result["group_scores"]):
            scores[seat, : len(groups)] = groups
            counts[seat] = len(groups)
    return {"winners": winners, "group_scores": scores, "group_counts": counts}
