"""Irk as a picture: :func:`drawing` describes it once, for ``rgb_array`` and ``svg`` alike.

The table is cropped to its occupied part with a margin of two cells (at least a 7x7 window),
rows numbered on the left and columns above as in placement ids. A flower is a square in its
color carrying its label (``G3``, ``R*``, ``Y1``: color letter and mark, so colors are never
the only cue); gray squares are gray; stacked cells get a dark notch per extra layer (up to
three). Below the table: the round, its kind and phase, the seat to move and the box holder
(a box icon in its row); one row per seat with its score pile (each tile upright, its three
squares labelled as on the table, so ``G2 R1 .`` and ``R1 G2 .`` differ at a glance) and its
count per color (``*`` a star); the tile being placed is shown. A seat's hand (and its secret
choice) appears only in that seat's own view, ``drawing(state, seat)``, its tiles labelled the
same way. At the end the picture gives the result with its reasons: each color's table value,
every seat's points per color (what its counts won of each majority) and total, and who won
(on points, or on stars after a tie).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_envs.games.irk.deck import COLOR_LETTERS, GRAY, SQUARE_COLOR, SQUARE_LABEL
from tabletop_envs.games.irk.observation import NUM_ROUNDS
from tabletop_envs.games.irk.rules import OVER, PHASE_NAMES, PLACE, IrkState
from tabletop_envs.render.draw import Drawing, Polygon, Rect, Text, to_rgb, wrap
from tabletop_envs.render.raster import Color

#: Side of a table cell in pixels.
CELL = 24
MARGIN = 8
LABEL_ROOM = 20
CROP_MARGIN = 2  # empty cells shown around the occupied part of the table
MIN_WINDOW = 7  # cells
MINI = 20  # side of a square of a tile in a pile or hand: room for its label
ROW_HEIGHT = 3 * MINI + 8
PANEL_WIDTH = 430
STATUS_SIZE = 10
STATUS_LINE = 14
ROW_TEXT = 8  # size of the texts in a seat's row, one under the other
ROW_LINE = 13

BACKGROUND: Color = (240, 236, 226)
GRID: Color = (225, 220, 208)
EMPTY_DOT: Color = (200, 194, 180)
GRAY_SQUARE: Color = (175, 175, 175)
NOTCH: Color = (40, 40, 40)
INK: Color = (20, 20, 20)
LABEL: Color = (110, 100, 90)
BOX: Color = (150, 105, 60)
FLOWER_COLORS: tuple[Color, ...] = (
    (40, 150, 60),  # green
    (210, 40, 40),  # red
    (235, 195, 30),  # yellow
    (130, 60, 170),  # purple
    (40, 90, 200),  # blue
)
#: Label ink per flower color: dark on yellow, white on the others.
FLOWER_INK: tuple[Color, ...] = ((255, 255, 255),) * 2 + ((20, 20, 20),) + ((255, 255, 255),) * 2


def window(state: IrkState) -> tuple[int, int, int, int]:
    """Return the shown part of the table as ``(row0, col0, rows, cols)``."""
    t = state.params.table_size
    occupied = np.flatnonzero(np.asarray(state.height) > 0)
    if len(occupied) == 0:
        occupied = np.array([(t // 2) * t + t // 2])
    rows, cols = occupied // t, occupied % t
    out = []
    for lo, hi in ((int(rows.min()), int(rows.max())), (int(cols.min()), int(cols.max()))):
        lo, hi = lo - CROP_MARGIN, hi + CROP_MARGIN
        while hi - lo + 1 < MIN_WINDOW:
            lo, hi = lo - 1, hi + 1
        lo, hi = max(lo, 0), min(hi, t - 1)
        out.append((lo, hi - lo + 1))
    (r0, nr), (c0, nc) = out
    return r0, c0, nr, nc


def _square(out: Drawing, x: float, y: float, side: float, code: int, label: bool) -> None:
    """Add one square (a table cell's or a tile's) with its top-left corner at ``(x, y)``."""
    if code == GRAY:
        out.add(Rect(x, y, side, side, GRAY_SQUARE))
        return
    color = SQUARE_COLOR[code]
    out.add(Rect(x, y, side, side, FLOWER_COLORS[color]))
    if label:
        text = SQUARE_LABEL[code].strip()
        out.add(Text(x + side / 2, y + side / 2, text, side * 0.42, FLOWER_INK[color]))


def _tile(out: Drawing, state: IrkState, x: float, y: float, tile: int, side: float) -> None:
    """Add a tile standing upright: its three squares, top to bottom."""
    for k, code in enumerate(state.tiles[tile]):
        _square(out, x, y + k * side, side - 1, code, label=side >= 14)


def drawing(state: IrkState, seat: int | None = None) -> Drawing:
    """Return the drawing of the public position, plus ``seat``'s hand if given."""
    if seat is not None:
        seat = state._check_seat(seat)
    n = state.params.num_players
    r0, c0, nr, nc = window(state)
    width = 2 * MARGIN + max(LABEL_ROOM + nc * CELL, PANEL_WIDTH)
    status = [
        line for text in _status(state) for line in wrap(text, STATUS_SIZE, width - 2 * MARGIN)
    ]
    top = MARGIN + LABEL_ROOM
    panel = top + nr * CELL + MARGIN
    rows = panel + 6 + STATUS_LINE * len(status)
    height = rows + n * ROW_HEIGHT + 2 * MARGIN + (ROW_HEIGHT + 18 if seat is not None else 0)
    out = Drawing(width, height, BACKGROUND)
    _table(out, state, (r0, c0, nr, nc))
    for i, line in enumerate(status):
        out.add(Text(MARGIN, panel + 6 + i * STATUS_LINE, line, STATUS_SIZE, INK, "start"))
    y = rows
    for s in range(n):
        _seat_row(out, state, s, MARGIN, y)
        y += ROW_HEIGHT
    if seat is not None:
        out.add(Text(MARGIN, y + 8, f"player_{seat} hand (own view):", 8, INK, "start"))
        x = MARGIN
        for tile in state.hands[seat]:
            _tile(out, state, x, y + 18, tile, MINI)
            x += MINI + 4
        if state.chosen[seat] >= 0:
            out.add(Text(x + 8, y + 18 + 1.5 * MINI, "chose:", 8, INK, "start"))
            _tile(out, state, x + 60, y + 18, state.chosen[seat], MINI)
    return out


def _table(out: Drawing, state: IrkState, shown: tuple[int, int, int, int]) -> None:
    """Add the shown part of the table: coordinates, cells, stacking notches."""
    r0, c0, nr, nc = shown
    t = state.params.table_size
    top, left = MARGIN + LABEL_ROOM, MARGIN + LABEL_ROOM
    for c in range(nc):
        out.add(Text(left + (c + 0.5) * CELL, MARGIN + LABEL_ROOM / 2, str(c0 + c), 9, LABEL))
    for r in range(nr):
        y = top + r * CELL
        out.add(Text(MARGIN + LABEL_ROOM / 2, y + CELL / 2, str(r0 + r), 9, LABEL))
        for c in range(nc):
            x = left + c * CELL
            cell = (r0 + r) * t + c0 + c
            code = int(state.visible[cell])
            if code == 0:
                out.add(Rect(x + CELL / 2 - 1, y + CELL / 2 - 1, 2, 2, EMPTY_DOT))
                continue
            out.add(Rect(x, y, CELL, CELL, GRID))
            _square(out, x + 1, y + 1, CELL - 2, code, label=True)
            for k in range(min(int(state.height[cell]) - 1, 3)):
                out.add(Rect(x + 2 + 5 * k, y + 2, 4, 4, NOTCH))


def _seat_row(out: Drawing, state: IrkState, s: int, x: float, y: float) -> None:
    """Add ``s``'s row: name, box icon, pile tiles, then its counts per color, and its hand
    during the game or its points per color at the end."""
    cy = y + ROW_HEIGHT / 2
    if s == state.current_player:
        out.add(Polygon(((x, cy - 5), (x + 6, cy), (x, cy + 5)), INK))
    out.add(Text(x + 10, cy, f"P{s}", 10, INK, "start"))
    if s == state.box and state.phase != OVER:
        out.add(Rect(x + 32, cy - 6, 14, 12, BOX, INK, 1.0))
        out.add(Rect(x + 32, cy - 6, 14, 4, BOX, INK, 1.0))
    px = x + 54
    for tile in state.piles[s]:
        _tile(out, state, px, y + 4, tile, MINI)
        px += MINI + 4
    counts = " ".join(
        f"{COLOR_LETTERS[c]}{int(state._pile_count[s, c])}" + "*" * int(state._pile_stars[s, c])
        for c in range(len(COLOR_LETTERS))
        if state._pile_count[s, c]
    )
    lines = [f"count {counts or '-'}"]
    if state.phase == OVER:
        res = state._result
        won = " ".join(f"{COLOR_LETTERS[c]}{p}" for c, p in enumerate(res["points"][s]) if p)
        lines.append(f"points {won or '-'} = {res['totals'][s]}")
    else:
        lines.append(f"hand {len(state.hands[s])}" + (", chose" if state.chosen[s] >= 0 else ""))
    tx = max(px + 8, x + 54 + 3 * (MINI + 4) + 8)
    for i, line in enumerate(lines):
        ty = cy + (i - (len(lines) - 1) / 2) * ROW_LINE
        out.add(Text(tx, ty, line, ROW_TEXT, INK, "start"))


def _status(state: IrkState) -> list[str]:
    """Return the status: round, phase and mover; at the end the result and the table values."""
    if state.phase == OVER:
        res = state._result
        values = " ".join(f"{COLOR_LETTERS[c]}{v}" for c, v in enumerate(res["table_values"]))
        return [*_verdict(res), f"table values V(c): {values}"]
    text = (
        f"round {state.round + 1}/{NUM_ROUNDS} {state.round_kind}, "
        f"{PHASE_NAMES[state.phase]}: P{state.to_move}"
    )
    if state.phase == PLACE:
        text += f" places {state.tile_label(state.chosen[state.to_move])}"
    return [text]


def _verdict(res: dict[str, Any]) -> list[str]:
    """Return who won and how (on points, on stars after a tie on points, or a shared win)."""
    totals, stars, winners = res["totals"], res["star_totals"], res["winners"]
    points = "points " + ", ".join(f"P{s} {p}" for s, p in enumerate(totals))
    tied = [s for s, p in enumerate(totals) if p == max(totals)]
    on_stars = "stars " + ", ".join(f"P{s} {stars[s]}" for s in tied)
    if len(winners) > 1:
        names = ", ".join(f"P{s}" for s in winners)
        return [f"game over: {names} share the win", f"{points}; {on_stars}"]
    if len(tied) > 1:
        return [f"game over: P{winners[0]} wins on stars (tie on points)", f"{points}; {on_stars}"]
    return [f"game over: P{winners[0]} wins on points", points]


def draw(state: IrkState, seat: int | None = None) -> np.ndarray:
    """Return an ``(H, W, 3)`` uint8 picture (the public position, plus ``seat``'s hand)."""
    return to_rgb(drawing(state, seat))


__all__ = ["draw", "drawing", "window"]
