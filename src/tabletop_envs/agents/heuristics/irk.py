"""Greedy heuristic of Irk: maximise own points minus the opponents' mean, one step ahead.

It reads only what the seat knows: the table, every score pile (public), its own hand and its
own chosen tile. Points are the game's own scoring (table value ``V(c)`` of each color paid by
``majority_points`` of :mod:`tabletop_envs.games.irk.scoring`), evaluated as if the game ended
now; an action's score is the resulting *own points minus the opponents' mean points*:

- **bet round, choose**: the tile whose addition to the own score pile scores best (the other
  players' simultaneous bets are unknown and left out);
- **table round, choose**: the tile whose best legal placement on the current table scores best
  (over a seeded sample of at most 24 of its placements, for speed);
- **place**: the legal placement of the revealed tile that scores best.
"""

from __future__ import annotations

import numpy as np

from tabletop_envs.games.irk.deck import (
    COLORS,
    EMPTY,
    GRAY,
    SQUARE_COLOR,
)
from tabletop_envs.games.irk.rules import CHOOSE, ROUND_KINDS, IrkState
from tabletop_envs.games.irk.scoring import cell_table_values, majority_points, pile_counts

NUM_COLORS = len(COLORS)
#: Placements per hand tile tried when choosing the tile of a table round (a random sample).
CHOOSE_SAMPLE = 24


class _Evaluator:
    """Own points minus the opponents' mean for a table and the piles of one position."""

    def __init__(self, game: IrkState, seat: int) -> None:
        self.game = game
        self.seat = seat
        self.shape = (game.params.table_size, game.params.table_size)
        visible = game.visible[:-1]
        self.cells = {int(c): int(visible[c]) for c in np.flatnonzero(visible != EMPTY)}
        per_seat = [pile_counts([game.tiles[t] for t in pile]) for pile in game.piles]
        self.counts = [c for c, _ in per_seat]
        self.stars = [s for _, s in per_seat]
        self.values = cell_table_values(self.cells, self.shape)
        # colors whose table value matters to the margin at the current piles: a color's
        # margin is a * V + b * floor(V / 2), so zero at V = 60 and 61 means zero for every V
        self.live = [
            c
            for c in range(NUM_COLORS)
            if any(self._margin_of(c, v, self.counts, self.stars) for v in (60, 61))
        ]
        self._cache: dict[tuple[int, int], float] = {}

    def _margin_of(
        self, color: int, value: int, counts: list[list[int]], stars: list[list[int]]
    ) -> float:
        """Return own points minus the opponents' mean points for one color of table value."""
        pts = majority_points([c[color] for c in counts], [s[color] for s in stars], value)
        return pts[self.seat] - (sum(pts) - pts[self.seat]) / (len(counts) - 1)

    def margin(self, values: list[int], counts: list[list[int]], stars: list[list[int]]) -> float:
        """Return own points minus the opponents' mean points."""
        return sum(
            self._margin_of(c, values[c], counts, stars) for c in range(NUM_COLORS) if values[c]
        )

    def table_margin(self, values: list[int]) -> float:
        """Return :meth:`margin` at the current piles (cached per color and value)."""
        total = 0.0
        cache = self._cache
        for c in self.live:
            key = (c, values[c])
            m = cache.get(key)
            if m is None:
                m = cache[key] = self._margin_of(c, values[c], self.counts, self.stars)
            total += m
        return total

    def bet(self, tile: int) -> float:
        """Return the margin after adding ``tile`` to the own score pile."""
        tiles = self.game.tiles
        counts, stars = list(self.counts), list(self.stars)
        counts[self.seat], stars[self.seat] = pile_counts(
            [tiles[t] for t in self.game.piles[self.seat]] + [tiles[tile]]
        )
        return self.margin(self.values, counts, stars)

    def place(self, tile: int, placement: int) -> float:
        """Return the margin after laying ``tile`` at ``placement``."""
        codes = self.game.tiles[tile]
        footprint = self.game.tables.cells[placement]
        cells = dict(self.cells)
        touched = set()
        for k in range(3):
            cell = int(footprint[k])
            old = cells.get(cell, EMPTY)
            if old != EMPTY:
                touched.add(SQUARE_COLOR[old])
            cells[cell] = codes[k]
            touched.add(SQUARE_COLOR[codes[k]])
        # a gray square joins groups of every color: laying one may join them, covering one
        # may split them; other colors' groups are unchanged
        colors = (
            self.live if SQUARE_COLOR[GRAY] in touched else [c for c in self.live if c in touched]
        )
        values = self.values.copy()
        changed = cell_table_values(cells, self.shape, colors)
        for c in colors:
            values[c] = changed[c]
        return self.table_margin(values)


def score_actions(
    game: IrkState, seat: int, actions: list[int], rng: np.random.Generator
) -> list[float]:
    """Score each legal action of ``seat`` (see the module docstring)."""
    ev = _Evaluator(game, seat)
    d = game.deck_size
    if game.phase != CHOOSE:
        tile = game.chosen[seat]
        return [ev.place(tile, a - d) for a in actions]
    if ROUND_KINDS[game.round] == "bet":
        return [ev.bet(a) for a in actions]
    out = []
    for tile in actions:
        placements = game.placements_of(tile).tolist()
        if len(placements) > CHOOSE_SAMPLE:
            placements = rng.choice(placements, CHOOSE_SAMPLE, replace=False).tolist()
        out.append(max((ev.place(tile, p) for p in placements), default=-1e6))
    return out
