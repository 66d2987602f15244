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
    SQUARE_KIND,
    SQUARE_VALUE,
    STAR,
)
from tabletop_envs.games.irk.rules import CHOOSE, ROUND_KINDS, IrkState
from tabletop_envs.games.irk.scoring import majority_points

NUM_COLORS = len(COLORS)
#: Placements per hand tile tried when choosing the tile of a table round (a random sample).
CHOOSE_SAMPLE = 24


def _pile_counts(game: IrkState) -> tuple[list[list[int]], list[list[int]]]:
    """Return per seat, per color: summed flower values and stars of the score piles."""
    counts, stars = [], []
    for pile in game.piles:
        c, s = [0] * NUM_COLORS, [0] * NUM_COLORS
        for tile in pile:
            for code in game.tiles[tile]:
                color = SQUARE_COLOR[code]
                if color >= 0:
                    c[color] += SQUARE_VALUE[code]
                    s[color] += SQUARE_KIND[code] == STAR
        counts.append(c)
        stars.append(s)
    return counts, stars


def _table_values(cells: dict[int, int], size: int, colors: list[int]) -> list[int]:
    """Return ``V(c)`` for ``colors`` (0 for the rest) from ``cell -> visible code``."""
    values = [0] * NUM_COLORS
    for color in colors:
        joins = {
            cell for cell, code in cells.items() if code == GRAY or SQUARE_COLOR[code] == color
        }
        seen: set[int] = set()
        best = 0
        for start in joins:
            if start in seen:
                continue
            seen.add(start)
            stack = [start]
            total = 0
            while stack:
                cell = stack.pop()
                code = cells[cell]
                if SQUARE_COLOR[code] == color:
                    total += SQUARE_VALUE[code]
                col = cell % size
                for nb in (cell - size, cell + size):
                    if nb in joins and nb not in seen:
                        seen.add(nb)
                        stack.append(nb)
                if col > 0 and cell - 1 in joins and cell - 1 not in seen:
                    seen.add(cell - 1)
                    stack.append(cell - 1)
                if col < size - 1 and cell + 1 in joins and cell + 1 not in seen:
                    seen.add(cell + 1)
                    stack.append(cell + 1)
            best = max(best, total)
        values[color] = best
    return values


class _Evaluator:
    """Own points minus the opponents' mean for a table and the piles of one position."""

    def __init__(self, game: IrkState, seat: int) -> None:
        self.game = game
        self.seat = seat
        self.size = game.params.table_size
        visible = game.visible[:-1]
        self.cells = {int(c): int(visible[c]) for c in np.flatnonzero(visible != EMPTY)}
        self.counts, self.stars = _pile_counts(game)
        self.values = _table_values(self.cells, self.size, list(range(NUM_COLORS)))
        # colors whose table value matters to the margin at the current piles
        self.live = [
            c for c in range(NUM_COLORS) if self._margin_of(c, 60, self.counts, self.stars)
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
        counts = [c.copy() for c in self.counts]
        stars = [s.copy() for s in self.stars]
        for code in self.game.tiles[tile]:
            color = SQUARE_COLOR[code]
            if color >= 0:
                counts[self.seat][color] += SQUARE_VALUE[code]
                stars[self.seat][color] += SQUARE_KIND[code] == STAR
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
        # a gray square may join groups of every color
        colors = self.live if GRAY in codes else [c for c in self.live if c in touched]
        values = self.values.copy()
        changed = _table_values(cells, self.size, colors)
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
