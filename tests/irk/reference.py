"""An independent, deliberately simple Irk placement checker and scorer (strings and dicts).

Written from ``shared/rules/irk.md`` alone: squares are text (``"G3"``, ``"Y*"``, ``"."``), the
table a dict ``{(row, col): square}`` of visible squares. It shares no code with the core.
"""

from __future__ import annotations

STEP = {0: (1, 0), 1: (0, 1), 2: (-1, 0), 3: (0, -1)}  # down, right, up, left
VALUE = {"3": 3, "2": 2, "*": 1, "1": 1}


def is_flower(square: str) -> bool:
    """Return whether a square text is a flower."""
    return square != "."


def ref_legal(table: dict, tile: list[str], row: int, col: int, orient: int, size: int) -> bool:
    """Return whether ``tile`` (top, middle, bottom) may go with its top on (row, col)."""
    dr, dc = STEP[orient]
    cells = [(row + k * dr, col + k * dc) for k in range(3)]
    if any(not (0 <= r < size and 0 <= c < size) for r, c in cells):
        return False
    touches = False
    for r, c in cells:
        if (r, c) in table:
            touches = True
        for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if (nr, nc) in table:
                touches = True
    if not touches:
        return False
    mismatches = 0
    for (r, c), new in zip(cells, tile, strict=True):
        old = table.get((r, c))
        if old is None or old == ".":
            continue
        if old[1] in "23" and not (is_flower(new) and new[1] in "23"):
            return False
        if old[1] == "*" and not (is_flower(new) and new[1] == "*"):
            return False
        if not (is_flower(new) and new[0] == old[0]):
            mismatches += 1
    return mismatches <= 1


def ref_table_value(table: dict, color: str) -> int:
    """Return the largest summed value of a group of ``color`` flowers joined through gray."""
    members = {p for p, s in table.items() if s == "." or s[0] == color}
    best = 0
    done: set = set()
    for start in members:
        if start in done:
            continue
        group = {start}
        frontier = [start]
        while frontier:
            r, c = frontier.pop()
            for q in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if q in members and q not in group:
                    group.add(q)
                    frontier.append(q)
        done |= group
        best = max(best, sum(VALUE[table[p][1]] for p in group if table[p] != "."))
    return best


def ref_score(table: dict, piles: list[list[list[str]]]) -> tuple[list[int], list[int]]:
    """Return (points per player, winners) for a visible table and score piles (tile texts)."""
    n = len(piles)
    points = [0] * n
    for color in "GRYPB":
        v = ref_table_value(table, color)
        ranked = []
        for seat, pile in enumerate(piles):
            count = sum(VALUE[s[1]] for tile in pile for s in tile if s[0] == color)
            stars = sum(1 for tile in pile for s in tile if s == color + "*")
            if count > 0:
                ranked.append(((count, stars), seat))
        ranked.sort(reverse=True)
        if not ranked:
            continue
        if len(ranked) > 1 and ranked[1][0] == ranked[0][0]:
            for key, seat in ranked:
                if key == ranked[0][0]:
                    points[seat] += v // 2
            continue
        points[ranked[0][1]] += v
        if n > 2 and len(ranked) > 1:
            unique_second = len(ranked) == 2 or ranked[2][0] != ranked[1][0]
            if unique_second:
                points[ranked[1][1]] += v // 2
    best = max(points)
    stars = [sum(1 for tile in pile for s in tile if s.endswith("*")) for pile in piles]
    top = [s for s in range(n) if points[s] == best]
    most = max(stars[s] for s in top)
    return points, [s for s in top if stars[s] == most]
