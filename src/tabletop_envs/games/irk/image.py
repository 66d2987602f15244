"""Irk as an RGB image (numpy only): ``render_mode="rgb_array"`` draws through :func:`draw`.

The whole table, one square per cell: empty cells in the background color, gray squares light
gray, flowers as a colored disc on a pale square. Marks in white: three dots for a "3", two for
a "2", a six-pointed star for a starred flower, nothing for a plain one. Stacked cells (height
2 and more) get a dark corner notch per extra layer (up to three).
"""

from __future__ import annotations

import numpy as np

from tabletop_envs.games.irk.deck import GRAY, SQUARE_COLOR, SQUARE_KIND, STAR, THREE, TWO
from tabletop_envs.games.irk.rules import IrkState
from tabletop_envs.render.raster import Color, canvas, fill_circle, fill_polygon, fill_rect

#: Side of a cell in pixels.
CELL = 16
MARGIN = 6

BACKGROUND: Color = (240, 236, 226)
GRID: Color = (225, 220, 208)
SQUARE: Color = (252, 250, 244)
GRAY_SQUARE: Color = (190, 190, 190)
MARK: Color = (255, 255, 255)
NOTCH: Color = (60, 60, 60)
FLOWER_COLORS: tuple[Color, ...] = (
    (40, 150, 60),  # green
    (210, 40, 40),  # red
    (225, 185, 20),  # yellow
    (130, 60, 170),  # purple
    (40, 90, 200),  # blue
)


def draw(game: IrkState) -> np.ndarray:
    """Return an ``(H, W, 3)`` uint8 picture of the table."""
    t = game.params.table_size
    side = 2 * MARGIN + t * CELL
    img = canvas(side, side, BACKGROUND)
    for r in range(t):
        for c in range(t):
            x, y = MARGIN + c * CELL, MARGIN + r * CELL
            code = int(game.visible[r * t + c])
            if code == 0:
                fill_rect(img, x + CELL / 2 - 1, y + CELL / 2 - 1, x + CELL / 2, y + CELL / 2, GRID)
                continue
            _square(img, x, y, code)
            for k in range(min(int(game.height[r * t + c]) - 1, 3)):
                fill_rect(img, x + 1 + 3 * k, y + 1, x + 3 + 3 * k, y + 3, NOTCH)
    return img


def _square(img: np.ndarray, x: float, y: float, code: int) -> None:
    if code == GRAY:
        fill_rect(img, x + 1, y + 1, x + CELL - 1, y + CELL - 1, GRAY_SQUARE)
        return
    fill_rect(img, x + 1, y + 1, x + CELL - 1, y + CELL - 1, SQUARE)
    cx, cy = x + CELL / 2, y + CELL / 2
    fill_circle(img, cx, cy, CELL * 0.42, FLOWER_COLORS[SQUARE_COLOR[code]])
    kind = SQUARE_KIND[code]
    if kind == STAR:
        s = CELL * 0.3
        w = 0.87 * s
        fill_polygon(img, [(cx, cy - s), (cx + w, cy + s / 2), (cx - w, cy + s / 2)], MARK)
        fill_polygon(img, [(cx, cy + s), (cx + w, cy - s / 2), (cx - w, cy - s / 2)], MARK)
    elif kind in (TWO, THREE):
        dots = 2 if kind == TWO else 3
        for k in range(dots):
            dx = (k - (dots - 1) / 2) * CELL * 0.22
            fill_circle(img, cx + dx, cy, CELL * 0.08, MARK)
