"""Isis & Osiris as an RGB image (numpy only): ``render_mode="rgb_array"`` uses :func:`draw`.

The 6x6 board on top: stones are discs in their seat's color, tiles are green (positive) or
red (negative) squares with one pip per point; in memory mode a tile the viewer's observation
shows face down (see ``observation.shows_value``) shows the eye. Below, one row per seat: its
color, a dot per stone left, a bar per tile left in its stack; the seat to move has a marker,
and a tile being placed is drawn at the end of its row. Stacks and the box are never shown.
"""

from __future__ import annotations

import numpy as np

from tabletop_envs.games.isis_osiris.observation import shows_value
from tabletop_envs.games.isis_osiris.rules import PLACE, IsisOsirisState
from tabletop_envs.games.isis_osiris.tables import COLS, ROWS
from tabletop_envs.render.raster import Color, canvas, fill_circle, fill_polygon, fill_rect

#: Side of a square in pixels.
CELL = 40
MARGIN = 10
ROW_HEIGHT = 24

BACKGROUND: Color = (240, 236, 226)
GRID: Color = (120, 104, 80)
SQUARE: Color = (226, 206, 160)
SEAT_COLORS: tuple[Color, ...] = ((200, 40, 40), (40, 80, 200), (40, 150, 60), (230, 180, 20))
POSITIVE: Color = (60, 140, 80)
NEGATIVE: Color = (170, 50, 50)
FACE_DOWN: Color = (150, 120, 70)
PIP: Color = (250, 250, 250)
EYE_WHITE: Color = (245, 240, 225)
EYE_PUPIL: Color = (30, 30, 30)
MARKER: Color = (20, 20, 20)

# Pip positions (fractions of the tile side) for 1-4 points.
_PIPS = {
    1: ((0.5, 0.5),),
    2: ((0.3, 0.3), (0.7, 0.7)),
    3: ((0.27, 0.27), (0.5, 0.5), (0.73, 0.73)),
    4: ((0.3, 0.3), (0.7, 0.3), (0.3, 0.7), (0.7, 0.7)),
}


def image_size(num_players: int) -> tuple[int, int]:
    """Return the ``(height, width)`` in pixels of the image for ``num_players``."""
    width = 2 * MARGIN + COLS * CELL
    height = 2 * MARGIN + ROWS * CELL + MARGIN + num_players * ROW_HEIGHT
    return height, width


def _tile(img: np.ndarray, x: float, y: float, side: float, value: int | None) -> None:
    """Draw a tile with its top-left corner at ``(x, y)``; ``None`` draws it face down."""
    if value is None:
        fill_rect(img, x, y, x + side, y + side, FACE_DOWN)
        cx, cy = x + side / 2, y + side / 2
        w, h = side * 0.38, side * 0.2
        fill_polygon(img, [(cx - w, cy), (cx, cy - h), (cx + w, cy), (cx, cy + h)], EYE_WHITE)
        fill_circle(img, cx, cy, side * 0.1, EYE_PUPIL)
        return
    fill_rect(img, x, y, x + side, y + side, POSITIVE if value > 0 else NEGATIVE)
    for fx, fy in _PIPS[abs(value)]:
        fill_circle(img, x + fx * side, y + fy * side, side * 0.08, PIP)
    if value < 0:  # a bar across the top tells negatives apart without color
        fill_rect(img, x + side * 0.2, y + side * 0.06, x + side * 0.8, y + side * 0.12, PIP)


def draw(state: IsisOsirisState, seat: int | None = None) -> np.ndarray:
    """Return ``seat``'s view of the position as an ``(H, W, 3)`` uint8 image.

    ``seat=None`` is the seat to move (what ``env.render()`` shows), like ``render_text``.
    """
    viewer = state._viewer(seat)
    n = state.num_players
    height, width = image_size(n)
    img = canvas(height, width, BACKGROUND)
    top = MARGIN
    fill_rect(img, MARGIN - 1, top - 1, MARGIN + COLS * CELL + 1, top + ROWS * CELL + 1, GRID)
    for row in range(ROWS):
        for col in range(COLS):
            x, y = MARGIN + col * CELL, top + row * CELL
            fill_rect(img, x + 1, y + 1, x + CELL - 1, y + CELL - 1, SQUARE)
            sq = row * COLS + col
            if state.owner[sq] >= 0:
                fill_circle(img, x + CELL / 2, y + CELL / 2, CELL * 0.36, GRID)
                fill_circle(
                    img, x + CELL / 2, y + CELL / 2, CELL * 0.32, SEAT_COLORS[state.owner[sq]]
                )
            elif state.tiles[sq]:
                shown = shows_value(state, viewer, sq)
                _tile(img, x + 4, y + 4, CELL - 8, state.tiles[sq] if shown else None)
    y0 = top + ROWS * CELL + MARGIN
    for seat in range(n):
        y = y0 + seat * ROW_HEIGHT
        cy = y + ROW_HEIGHT / 2
        if seat == state.current_player:
            fill_polygon(img, [(2, cy - 5), (8, cy), (2, cy + 5)], MARKER)
        fill_circle(img, MARGIN + 8, cy, 8, SEAT_COLORS[seat])
        x = MARGIN + 24
        for _ in range(state.stones_left[seat]):
            fill_circle(img, x + 4, cy, 4, SEAT_COLORS[seat])
            x += 10
        x += 6
        for _ in range(len(state.stacks[seat])):
            fill_rect(img, x, cy - 7, x + 5, cy + 7, FACE_DOWN)
            x += 8
        if state.phase == PLACE and seat == state.current_player:
            _tile(img, width - MARGIN - 20, y + 2, 20, state.in_hand)
    return img
