"""Iris as an RGB image (numpy only): ``render_mode="rgb_array"`` draws through :func:`draw`.

Pointy-top hexagons at their axial positions (row ``r`` downwards, shifted half a cell per row,
as in the text render). Each perimeter color pair gets its own hue, interior cells are gray,
stones are black and white discs, the pending first stone of a turn wears a red ring and a
forced opposite cell a red dot. A small disc in the top-left corner shows the player to move.
"""

from __future__ import annotations

import colorsys
import math
from functools import cache

import numpy as np

from tabletop_envs.games.iris.rules import SECOND_OPPOSITE, IrisState
from tabletop_envs.games.iris.tables import iris_tables
from tabletop_envs.render.raster import Color, canvas, fill_circle, fill_polygon, hexagon

#: Circumradius of a cell in pixels.
CELL_RADIUS = 20
MARGIN = 10

BACKGROUND: Color = (240, 236, 226)
GRID: Color = (90, 90, 90)
GRAY: Color = (200, 200, 200)
STONE_COLORS: tuple[Color, Color] = ((20, 20, 20), (250, 250, 250))
STONE_EDGE: Color = (60, 60, 60)
HIGHLIGHT: Color = (220, 30, 30)


def cell_center(board_size: int, q: int, r: int) -> tuple[float, float]:
    """Return the pixel ``(x, y)`` of the centre of axial cell ``(q, r)``."""
    m = board_size - 1
    dx = math.sqrt(3) * CELL_RADIUS
    x = MARGIN + dx / 2 + dx * (q + r / 2 + m)
    y = MARGIN + CELL_RADIUS + 1.5 * CELL_RADIUS * (r + m)
    return x, y


def image_size(board_size: int) -> tuple[int, int]:
    """Return the ``(height, width)`` in pixels of the image of a board of side ``board_size``."""
    m = board_size - 1
    width = 2 * MARGIN + math.sqrt(3) * CELL_RADIUS * (2 * m + 1)
    height = 2 * MARGIN + CELL_RADIUS * (2 + 3 * m)
    return math.ceil(height), math.ceil(width)


def pair_colors(board_size: int) -> tuple[Color, ...]:
    """Return one distinct color per perimeter color pair (``3(n-1)`` of them).

    Hues step by the golden ratio so that neighbouring pairs on the ring contrast.
    """
    out = []
    for k in range(3 * (board_size - 1)):
        hue = (k * 0.618034) % 1.0
        red, green, blue = colorsys.hsv_to_rgb(hue, 0.5 + 0.2 * (k % 2), 0.95 - 0.1 * (k % 3))
        out.append((round(red * 255), round(green * 255), round(blue * 255)))
    return tuple(out)


@cache
def _empty_board(board_size: int) -> np.ndarray:
    """Return the (read-only) image of the empty board of one side."""
    t = iris_tables(board_size)
    hues = pair_colors(board_size)
    img = canvas(*image_size(board_size), BACKGROUND)
    for idx in t.board.cells:
        x, y = cell_center(board_size, *t.board.coord(idx))
        fill_polygon(img, hexagon(x, y, CELL_RADIUS + 0.5), GRID)
        fill = hues[t.color[idx]] if t.colored[idx] else GRAY
        fill_polygon(img, hexagon(x, y, CELL_RADIUS - 1.5), fill)
    img.setflags(write=False)
    return img


def _stone(img: np.ndarray, x: float, y: float, radius: float, seat: int) -> None:
    fill_circle(img, x, y, radius, STONE_EDGE)
    fill_circle(img, x, y, radius - 1.5, STONE_COLORS[seat])


def draw(state: IrisState) -> np.ndarray:
    """Return a fresh ``(H, W, 3)`` uint8 picture of ``state`` (see the module docstring)."""
    n = state.params.board_size
    t = state.tables
    img = _empty_board(n).copy()
    stone_radius = 0.62 * CELL_RADIUS
    if state.pending >= 0:
        x, y = cell_center(n, *t.board.coord(state.pending))
        fill_circle(img, x, y, stone_radius + 4, HIGHLIGHT)
    for idx, value in enumerate(state.board):
        if value:
            x, y = cell_center(n, *t.board.coord(idx))
            _stone(img, x, y, stone_radius, value - 1)
    if state.phase == SECOND_OPPOSITE:
        x, y = cell_center(n, *t.board.coord(t.opposite[state.pending]))
        fill_circle(img, x, y, 0.25 * CELL_RADIUS, HIGHLIGHT)
    if not state.is_terminal:
        r = 0.4 * CELL_RADIUS
        _stone(img, MARGIN + r, MARGIN + r, r, state.current_player)
    return img


__all__ = ["cell_center", "draw", "image_size", "pair_colors"]
