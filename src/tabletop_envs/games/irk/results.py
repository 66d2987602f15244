"""Irk's end of game as fixed-shape arrays: the ``results`` its ``EnvSpec`` declares.

The envs put these arrays in every agent's infos at every step (zeros until the game is over),
so that the infos of one player count always have the same keys, shapes and dtypes. The
readable result (``result_info()``, with the colour names and the discarded tiles) stays on the
game.
"""

from __future__ import annotations

import numpy as np

from tabletop_envs.games.irk.deck import COLORS
from tabletop_envs.games.irk.rules import IrkState

#: The per-seat-and-colour tables of ``result_info()``, shaped ``(num_players, len(COLORS))``.
_PER_COLOR = ("counts", "stars", "points")
#: The per-seat totals of ``result_info()``, shaped ``(num_players,)``.
_PER_SEAT = ("totals", "star_totals")


def result_arrays(game: IrkState) -> dict[str, np.ndarray]:
    """Return the score of ``game`` as arrays (zeros before the end).

    - ``winners``: int8 ``(num_players,)``, 1 for every winning seat (most points, then most
      stars; a tie on both marks each of them);
    - ``totals``, ``star_totals``: int64 ``(num_players,)``, each seat's points and stars;
    - ``counts``, ``stars``, ``points``: int64 ``(num_players, 5)``, per seat and colour (the
      order of ``COLORS``: green, red, yellow, purple, blue) the tiles and stars in the seat's
      score pile and the points they scored;
    - ``table_values``: int64 ``(5,)``, what each colour was worth on the table.
    """
    n = game.params.num_players
    winners = np.zeros(n, dtype=np.int8)
    result = game._result if game.is_terminal else {}  # read, not copied (result_info copies)
    if not result:
        out = {"winners": winners}
        out.update((key, np.zeros(n, dtype=np.int64)) for key in _PER_SEAT)
        out.update((key, np.zeros((n, len(COLORS)), dtype=np.int64)) for key in _PER_COLOR)
        out["table_values"] = np.zeros(len(COLORS), dtype=np.int64)
        return out
    winners[result["winners"]] = 1
    out = {"winners": winners}
    # the result's lists have the shapes above: each becomes its array in one call
    out.update((key, np.array(result[key], dtype=np.int64)) for key in (*_PER_SEAT, *_PER_COLOR))
    out["table_values"] = np.array(result["table_values"], dtype=np.int64)
    return out
