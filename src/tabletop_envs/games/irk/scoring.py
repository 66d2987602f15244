"""Irk's final scoring as a pure function: table values, majorities, winners (JSON-ready)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from tabletop_envs.core.components import connected_components, group_scores
from tabletop_envs.core.squaregrid import square_neighbors
from tabletop_envs.games.irk.deck import (
    COLORS,
    EMPTY,
    GRAY,
    NUM_CODES,
    SQUARE_COLOR,
    SQUARE_KIND,
    SQUARE_VALUE,
    STAR,
    as_tile,
    parse_square,
)

#: ``_JOINS[color][code]``: the square joins groups of ``color`` (a ``color`` flower or gray).
_JOINS = tuple(
    tuple(code == GRAY or SQUARE_COLOR[code] == color for code in range(NUM_CODES))
    for color in range(len(COLORS))
)


def parse_table(text: str) -> list[list[int]]:
    """Return a grid of square codes from rows of squares such as ``"G3 . __"`` (``_`` empty)."""
    rows = [line.split() for line in text.strip("\n").splitlines() if line.strip()]
    width = max(len(r) for r in rows)
    grid = []
    for r in rows:
        codes = [EMPTY if s.strip("_") == "" else parse_square(s) for s in r]
        grid.append(codes + [EMPTY] * (width - len(codes)))
    return grid


def table_values(
    grid: Sequence[Sequence[int]] | np.ndarray, colors: Iterable[int] | None = None
) -> list[int]:
    """Return ``V(c)`` per color: the largest summed ``c`` value of a group of ``c``/gray cells.

    ``grid`` is a 2-D array of visible square codes (``EMPTY`` where no tile lies). Only the
    colors in ``colors`` (default: all) are computed; the others are reported as 0.
    """
    g = np.asarray(grid, dtype=np.intp)
    if g.ndim != 2:
        raise ValueError(f"grid must be a 2-D array of square codes, got shape {g.shape}")
    flat = g.ravel()
    if flat.size and not 0 <= flat.min() <= flat.max() < NUM_CODES:
        raise ValueError(f"square codes run from {EMPTY} to {NUM_CODES - 1}")
    occupied = np.flatnonzero(flat != EMPTY)
    cells = dict(zip(occupied.tolist(), flat[occupied].tolist(), strict=True))
    return cell_table_values(cells, g.shape, colors)


def cell_table_values(
    cells: Mapping[int, int], shape: tuple[int, int], colors: Iterable[int] | None = None
) -> list[int]:
    """Return :func:`table_values` from the occupied cells of a ``(rows, cols)`` table.

    ``cells`` maps each occupied cell's index ``row * cols + col`` to its visible square code
    (empty cells are left out: they never join a group). Groups join through shared edges
    (``core.squaregrid.square_neighbors``); a group's value is the sum of its color's flowers.
    """
    neighbors = square_neighbors(*shape)
    # gray squares join every color's groups: find their clusters once, with the flowers
    # around each, then walk each color's flowers (and the clusters they reach) alone
    cluster: dict[int, int] = {}  # gray cell -> its cluster
    around: list[list[int]] = []  # per cluster: the flower cells next to it
    touch: dict[int, list[int]] = {}  # per flower cell next to gray: those clusters
    flowers: list[list[int]] = [[] for _ in COLORS]
    for start, code in cells.items():
        if code != GRAY:
            if code != EMPTY:
                flowers[SQUARE_COLOR[code]].append(start)
            continue
        if start in cluster:
            continue
        k = len(around)
        cluster[start] = k
        near: list[int] = []
        stack = [start]
        while stack:
            for nxt in neighbors[stack.pop()]:
                code = cells.get(nxt, EMPTY)
                if code == GRAY:
                    if nxt not in cluster:
                        cluster[nxt] = k
                        stack.append(nxt)
                elif code != EMPTY:
                    near.append(nxt)
                    touch.setdefault(nxt, []).append(k)
        around.append(near)
    values = [0] * len(COLORS)
    for color in range(len(COLORS)) if colors is None else colors:
        left = set(flowers[color])  # this color's flowers not yet reached
        reached: set[int] = set()  # clusters already walked (each is in one group)
        best = 0
        while left:
            stack = [left.pop()]
            total = 0
            while stack:
                cell = stack.pop()
                total += SQUARE_VALUE[cells[cell]]
                for nxt in neighbors[cell]:
                    if nxt in left:
                        left.remove(nxt)
                        stack.append(nxt)
                for k in touch.get(cell, ()):  # the gray clusters next to it
                    if k not in reached:
                        reached.add(k)
                        for other in around[k]:
                            if other in left:
                                left.remove(other)
                                stack.append(other)
            if total > best:
                best = total
        values[color] = best
    return values


def cell_group_values(cells: Mapping[int, int], shape: tuple[int, int]) -> list[dict[int, int]]:
    """Return per color ``c`` the value of the ``c`` group holding each member cell.

    ``cells`` is as for :func:`cell_table_values`. Entry ``c`` maps every occupied cell showing
    a ``c`` flower or gray to the summed ``c`` values of its group (a gray cell is in a group of
    every color); ``max(entry.values())`` is ``V(c)``.
    """
    neighbors = square_neighbors(*shape)
    out: list[dict[int, int]] = []
    for color in range(len(COLORS)):
        joins = _JOINS[color]
        members = [cell for cell, code in cells.items() if joins[code]]
        value: dict[int, int] = {}
        for group in connected_components(members, neighbors):
            total = sum(SQUARE_VALUE[cells[cell]] for cell in group)
            for cell in group:
                value[cell] = total
        out.append(value)
    return out


class TableAfter:
    """``V(c)`` of every color after laying one tile somewhere on a fixed table, fast.

    Built once per table from its occupied cells (as for :func:`cell_table_values`); then
    :meth:`values` answers for any tile and footprint, exactly as :func:`cell_table_values` of
    the table after the placement would. Only the groups the tile lies on or touches can change;
    the others keep their values. While no square of a color's groups is covered by one that
    leaves them, a placement only joins and re-values groups: each run of the tile's squares
    that joins the color is worth its squares plus the distinct groups it touches (the old
    squares it covers taken out). A covered square that leaves its group may split it: the
    cells of the groups involved are flood-filled again.
    """

    def __init__(self, cells: Mapping[int, int], shape: tuple[int, int]) -> None:
        self.cells = dict(cells)
        self.shape = shape
        self.neighbors = square_neighbors(*shape)
        # per color: member cell -> its group (id = smallest cell, value); groups by value;
        # each group's cells
        self.group: list[dict[int, tuple[int, int]]] = []
        self.ranked: list[list[tuple[int, int]]] = []
        self.members: list[dict[tuple[int, int], list[int]]] = []
        for color in range(len(COLORS)):
            joins = _JOINS[color]
            members = [cell for cell, code in self.cells.items() if joins[code]]
            ids: dict[int, tuple[int, int]] = {}
            of: dict[tuple[int, int], list[int]] = {}
            for component in connected_components(members, self.neighbors):
                key = (component[0], sum(SQUARE_VALUE[self.cells[c]] for c in component))
                of[key] = component
                for cell in component:
                    ids[cell] = key
            self.group.append(ids)
            self.ranked.append(sorted(of, key=lambda key: -key[1]))
            self.members.append(of)
        self.before = [r[0][1] if r else 0 for r in self.ranked]
        # per occupied cell: its group in each color (None where it is not a member)
        self.keys = {cell: [g.get(cell) for g in self.group] for cell in self.cells}

    def values(self, codes: Sequence[int], footprint: Sequence[int]) -> list[int]:
        """Return ``V(c)`` per color after laying squares ``codes`` on cells ``footprint``."""
        cells = self.cells
        olds = [cells.get(cell, EMPTY) for cell in footprint]
        keys = self.keys
        # per square: the groups (one per color) of each occupied cell next to it
        near = [[keys[nxt] for nxt in self.neighbors[cell] if nxt in keys] for cell in footprint]
        out = list(self.before)
        for color in range(len(COLORS)):
            joins = _JOINS[color]
            group = self.group[color]
            # runs of consecutive squares joining the color (a tile is a straight line), each
            # with its value and the old groups it touches or lies on
            runs: list[tuple[list[int], set[tuple[int, int]]]] = []
            current: tuple[list[int], set[tuple[int, int]]] | None = None
            left: set[tuple[int, int]] = set()  # groups a covered square leaves
            for k in range(3):
                code, old = codes[k], olds[k]
                cell = footprint[k]
                if not joins[code]:
                    current = None
                    if joins[old]:  # EMPTY joins nothing
                        left.add(group[cell])
                    continue
                if current is None:
                    current = ([0], set())
                    runs.append(current)
                current[0][0] += SQUARE_VALUE[code]
                if joins[old]:  # still a member: its group stays joined to it
                    current[0][0] -= SQUARE_VALUE[old]
                    current[1].add(group[cell])
                for around in near[k]:
                    hit = around[color]
                    if hit is not None:
                        current[1].add(hit)
            if not runs and not left:
                continue
            touched = left.union(*(t for _, t in runs))
            best = next((key[1] for key in self.ranked[color] if key not in touched), 0)
            if left:
                best = max(best, self._refill(color, codes, footprint, touched))
            else:
                if len(runs) == 2 and runs[0][1] & runs[1][1]:  # both ends join one group
                    runs = [([runs[0][0][0] + runs[1][0][0]], runs[0][1] | runs[1][1])]
                for value, joined in runs:
                    best = max(best, value[0] + sum(v for _, v in joined))
            out[color] = best
        return out

    def _refill(
        self,
        color: int,
        codes: Sequence[int],
        footprint: Sequence[int],
        touched: set[tuple[int, int]],
    ) -> int:
        """Return the best group value of ``color`` among the touched groups' cells and the
        tile's squares, after the placement (a flood fill of that region only: groups are
        maximal, so no other member borders it)."""
        joins = _JOINS[color]
        value: dict[int, int] = {}
        for key in touched:
            for cell in self.members[color][key]:
                value[cell] = SQUARE_VALUE[self.cells[cell]]
        for k in range(3):
            cell = footprint[k]
            if joins[codes[k]]:
                value[cell] = SQUARE_VALUE[codes[k]]
            else:
                value.pop(cell, None)
        groups = group_scores(value, self.neighbors, value.__getitem__)
        return int(groups[0]) if groups else 0


def pile_counts(pile: Sequence[Any]) -> tuple[list[int], list[int]]:
    """Return per color the summed flower values and the starred flowers of a score pile."""
    counts = [0] * len(COLORS)
    stars = [0] * len(COLORS)
    for tile in pile:
        for code in as_tile(tile):
            color = SQUARE_COLOR[code]
            if color >= 0:
                counts[color] += SQUARE_VALUE[code]
                stars[color] += SQUARE_KIND[code] == STAR
    return counts, stars


def majority_points(counts: Sequence[int], stars: Sequence[int], value: int) -> list[int]:
    """Return each player's points for one color of table value ``value``.

    Players rank by (count, stars); count 0 takes no place. A unique first gets ``value``; a
    tie for first gives each ``value // 2`` and no second place; with 3+ players a unique
    second gets ``value // 2`` (tied seconds get nothing).
    """
    n = len(counts)
    if n == 2:  # the usual game, decided directly (the same ranking as below)
        c0, c1 = counts
        if c0 <= 0 and c1 <= 0:
            return [0, 0]
        k0, k1 = (c0, stars[0]), (c1, stars[1])
        if c1 <= 0 or (c0 > 0 and k0 > k1):
            return [value, 0]
        if c0 <= 0 or k1 > k0:
            return [0, value]
        return [value // 2, value // 2]  # tied first: no second place with two players
    points = [0] * n
    # (count, stars) per seat; only a seat with a count > 0 takes a place
    keys = [(counts[i], stars[i]) for i in range(n)]
    ranked = [k for k in keys if k[0] > 0]
    if not ranked:
        return points
    best = max(ranked)
    firsts = [i for i in range(n) if keys[i] == best]  # best[0] > 0: no zero count matches
    if len(firsts) > 1:
        for i in firsts:
            points[i] = value // 2
        return points
    points[firsts[0]] = value
    if n >= 3:
        rest = [k for k in ranked if k != best]
        if rest:
            second = max(rest)
            seconds = [i for i in range(n) if keys[i] == second]
            if len(seconds) == 1:
                points[seconds[0]] = value // 2
    return points


def score_game(grid: Sequence[Sequence[int]] | np.ndarray, piles: Sequence[Any]) -> dict[str, Any]:
    """Score a position from its visible table grid (square codes) and the score piles.

    ``piles[seat]`` lists that seat's tiles (text or square codes). Returns plain JSON types:
    ``colors``, ``table_values`` (per color), ``counts``/``stars``/``points`` (per seat, per
    color), ``totals`` and ``star_totals`` (per seat) and ``winners`` (seats: most points,
    then most stars in the whole pile; all still tied win).
    """
    per_seat = [pile_counts(p) for p in piles]
    return score_result(table_values(grid), [c for c, _ in per_seat], [s for _, s in per_seat])


def score_result(
    values: list[int], counts: list[list[int]], stars: list[list[int]]
) -> dict[str, Any]:
    """Return :func:`score_game`'s result from the table values and each seat's
    :func:`pile_counts` (``counts[seat]``, ``stars[seat]``: lists, kept in the result)."""
    n = len(counts)
    points = [[0] * len(COLORS) for _ in range(n)]
    # per color, the seats' counts and stars (zip(*...) transposes the per-seat lists)
    for color, (value, col_counts, col_stars) in enumerate(
        zip(values, zip(*counts, strict=True), zip(*stars, strict=True), strict=False)
    ):
        got = majority_points(col_counts, col_stars, value)
        for seat in range(n):
            points[seat][color] = got[seat]
    totals = [sum(p) for p in points]
    star_totals = [sum(s) for s in stars]
    winners: list[int] = []
    if n:
        top = max(totals)
        leaders = [i for i in range(n) if totals[i] == top]
        most = max(star_totals[i] for i in leaders)
        winners = [i for i in leaders if star_totals[i] == most]
    return {
        "colors": list(COLORS),
        "table_values": values,
        "counts": counts,
        "stars": stars,
        "points": points,
        "totals": totals,
        "star_totals": star_totals,
        "winners": winners,
    }


def final_rewards(result: dict[str, Any], reward: str = "win_loss") -> list[float]:
    """Return each seat's final reward from a :func:`score_game` result.

    ``"win_loss"``: a sole winner +1, players sharing the win 0, everybody else -1;
    ``"score"``: each seat's total points.
    """
    if reward == "score":
        return [float(t) for t in result["totals"]]
    winners = result["winners"]
    share = 1.0 if len(winners) == 1 else 0.0
    return [share if s in winners else -1.0 for s in range(len(result["totals"]))]
