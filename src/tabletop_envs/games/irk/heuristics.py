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

:func:`plan_scores` is the ``planner`` agent's heuristic: the same margin, counted with the next
bet (a tile still in hand) added to the own pile (see the comment above it and docs/agents.md).
"""

from __future__ import annotations

import numpy as np

from tabletop_envs.games.irk.deck import (
    COLORS,
)
from tabletop_envs.games.irk.rules import CHOOSE, ROUND_KINDS, IrkState
from tabletop_envs.games.irk.scoring import (
    TableAfter,
    cell_table_values,
    majority_points,
    pile_counts,
)

NUM_COLORS = len(COLORS)
#: Placements per hand tile tried when choosing the tile of a table round (a random sample).
CHOOSE_SAMPLE = 24


class _Piles:
    """Every seat's pile counts and stars (now, or after some own bets), with a margin cache."""

    __slots__ = ("cache", "counts", "stars")

    def __init__(self, counts: list[list[int]], stars: list[list[int]]) -> None:
        self.counts = counts
        self.stars = stars
        self.cache: dict[tuple[int, int], float] = {}


class _Evaluator:
    """Own points minus the opponents' mean for a table and the piles of one position."""

    def __init__(self, game: IrkState, seat: int) -> None:
        self.game = game
        self.seat = seat
        self.shape = (game.params.table_size, game.params.table_size)
        self.cells = game.occupied_cells()
        per_seat = [pile_counts([game.tiles[t] for t in pile]) for pile in game.piles]
        self.counts = [c for c, _ in per_seat]
        self.stars = [s for _, s in per_seat]
        self.values = cell_table_values(self.cells, self.shape)
        self.now = _Piles(self.counts, self.stars)
        self._after: TableAfter | None = None

    def _margin_of(
        self, color: int, value: int, counts: list[list[int]], stars: list[list[int]]
    ) -> float:
        """Return own points minus the opponents' mean points for one color of table value."""
        pts = majority_points([c[color] for c in counts], [s[color] for s in stars], value)
        return pts[self.seat] - (sum(pts) - pts[self.seat]) / (len(counts) - 1)

    def bet(self, tile: int) -> float:
        """Return the margin after adding ``tile`` to the own score pile."""
        return self.margin_at(self.values, self.piles_after([tile]))

    def place(self, tile: int, placement: int) -> float:
        """Return the margin after laying ``tile`` at ``placement``."""
        return self.margin_at(self.placed_values(tile, placement), self.now)

    def placed_values(self, tile: int, placement: int) -> list[int]:
        """Return the table value of each color after laying ``tile`` at ``placement``."""
        after = self._after
        if after is None:
            after = self._after = TableAfter(self.cells, self.shape)
        return after.values(self.game.tiles[tile], self.game.tables.cells[placement].tolist())

    def margin_at(self, values: list[int], piles: _Piles) -> float:
        """Return own points minus the opponents' mean points for these table values at
        ``piles`` (cached per color and value)."""
        total = 0.0
        cache = piles.cache
        for c in range(NUM_COLORS):
            v = values[c]
            if v:
                m = cache.get((c, v))
                if m is None:
                    m = cache[(c, v)] = self._margin_of(c, v, piles.counts, piles.stars)
                total += m
        return total

    def piles_after(self, bets: list[int]) -> _Piles:
        """Return every seat's piles with ``bets`` added to the own score pile."""
        tiles = self.game.tiles
        counts, stars = list(self.counts), list(self.stars)
        counts[self.seat], stars[self.seat] = pile_counts(
            [tiles[t] for t in self.game.piles[self.seat]] + [tiles[t] for t in bets]
        )
        return _Piles(counts, stars)


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
        placements = _sample(game.placements_of(tile).tolist(), rng)
        out.append(max((ev.place(tile, p) for p in placements), default=-1e6))
    return out


def _sample(placements: list[int], rng: np.random.Generator) -> list[int]:
    """Return at most ``CHOOSE_SAMPLE`` of ``placements``, drawn with ``rng`` when more."""
    if len(placements) > CHOOSE_SAMPLE:
        return rng.choice(placements, CHOOSE_SAMPLE, replace=False).tolist()
    return placements


# ---- the planner: greedy's margin, counting the hand tiles that will become bets ----------
#
# Every hand tile ends either on the table or in the score pile, and from round 4 on the order
# is nearly forced: after the bet of round 4 three tiles remain, two for the table rounds 5 and
# 6 and the last one for the bet of round 7. Greedy values a placement with the piles as they
# are now; the planner values it with the piles as they will be after the next bet, choosing
# that bet from the tiles left in hand. It reads what greedy reads (table, piles, own hand).


def _lay(
    game: IrkState, seat: int, tile: int, bets: list[int], rng: np.random.Generator
) -> IrkState:
    """Return a copy of ``game`` with ``tile`` laid where the margin with ``bets`` is best.

    Over a seeded sample of at most ``CHOOSE_SAMPLE`` legal placements; a tile with none is
    discarded (the copy is unchanged), as the rules do.
    """
    placements = _sample(game.placements_of(tile).tolist(), rng)
    after = game.clone()
    if placements:
        ev = _Evaluator(game, seat)
        piles = ev.piles_after(bets)
        best = max(placements, key=lambda p: ev.margin_at(ev.placed_values(tile, p), piles))
        after._put(tile, best)
    return after


def _final_margin(game: IrkState, seat: int, bets: list[int]) -> float:
    ev = _Evaluator(game, seat)
    return ev.margin_at(ev.values, ev.piles_after(bets))


def plan_scores(
    game: IrkState, seat: int, actions: list[int], rng: np.random.Generator
) -> list[float]:
    """Score each legal action of ``seat`` for the planner (see ``docs/agents.md``)."""
    ev = _Evaluator(game, seat)
    d = game.deck_size
    hand = list(game.hands[seat])
    r = game.round
    if game.phase != CHOOSE:
        # the best placement once the next bet (a tile still in hand) is added to the pile;
        # a table round always leaves a tile in hand for the bet that follows it
        tile = game.chosen[seat]
        futures = [ev.piles_after([z]) for z in hand]
        out = []
        for a in actions:
            values = ev.placed_values(tile, a - d)
            out.append(max(ev.margin_at(values, f) for f in futures))
        return out
    if r in (0, 6):
        # the first bet: what greedy does (planning it measured no better); the last bet has
        # one tile left and nothing after it: greedy's score
        return [ev.bet(a) for a in actions]
    out = []
    for x in actions:
        rest = [t for t in hand if t != x]
        if r == 3:
            # bet x; of the other three, two go on the table and the last is the final bet
            best = -1e9
            for z in rest:
                first, second = [t for t in rest if t != z]
                laid = _lay(_lay(game, seat, first, [x, z], rng), seat, second, [x, z], rng)
                best = max(best, _final_margin(laid, seat, [x, z]))
            out.append(best)
        elif r == 4:
            # lay x now and y in round 6; z is the final bet
            best = -1e9
            for y in rest:
                (z,) = [t for t in rest if t != y]
                laid = _lay(_lay(game, seat, x, [z], rng), seat, y, [z], rng)
                best = max(best, _final_margin(laid, seat, [z]))
            out.append(best)
        else:
            # rounds 2, 3 and 6: lay x at its best placement, bet the best tile left in hand
            futures = [ev.piles_after([z]) for z in rest]
            placements = _sample(game.placements_of(x).tolist(), rng)
            best = -1e6  # no legal placement: the tile would be discarded
            for p in placements:
                values = ev.placed_values(x, p)
                best = max(best, max(ev.margin_at(values, f) for f in futures))
            out.append(best)
    return out
