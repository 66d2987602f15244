"""Iris as a picture: :func:`drawing` describes it once, for ``rgb_array`` and ``svg`` alike.

Pointy-top hexagons at their axial positions (row ``r`` downwards, shifted half a cell per row,
as in the text render). Each perimeter color pair gets its own hue, interior cells are gray,
stones are black and white discs, the pending first stone of a turn wears a red ring and a
forced opposite cell a red dot. Coordinates: ``r`` left of each row, ``q`` below the lowest cell
of each ``q`` line (actions read ``(q, r)``). A disc in the top-left corner shows the player to
move; the status line is at the bottom.
"""

from __future__ import annotations

import colorsys
import math

import numpy as np

from tabletop_envs.games.iris.rules import PLAYER_NAMES, IrisState
from tabletop_envs.games.iris.tables import FIRST, OVER, SECOND_OPPOSITE
from tabletop_envs.render.draw import Circle, Drawing, Polygon, Text, hexagon, to_rgb
from tabletop_envs.render.raster import Color
from tabletop_envs.render.targets import Box, Target

#: Circumradius of a cell in pixels.
CELL_RADIUS = 20
MARGIN = 10
STATUS_HEIGHT = 20

BACKGROUND: Color = (240, 236, 226)
GRID: Color = (90, 90, 90)
GRAY: Color = (200, 200, 200)
STONE_COLORS: tuple[Color, Color] = ((20, 20, 20), (250, 250, 250))
STONE_EDGE: Color = (60, 60, 60)
HIGHLIGHT: Color = (220, 30, 30)
LABEL: Color = (110, 100, 90)
TEXT: Color = (30, 30, 30)


def cell_center(board_size: int, q: int, r: int) -> tuple[float, float]:
    """Return the pixel ``(x, y)`` of the centre of axial cell ``(q, r)``."""
    m = board_size - 1
    dx = math.sqrt(3) * CELL_RADIUS
    x = MARGIN + dx / 2 + dx * (q + r / 2 + m + 1)  # one cell of room for the r labels
    y = MARGIN + CELL_RADIUS + 1.5 * CELL_RADIUS * (r + m)
    return x, y


def image_size(board_size: int) -> tuple[int, int]:
    """Return the ``(height, width)`` in pixels of the image of a board of side ``board_size``."""
    m = board_size - 1
    width = 2 * MARGIN + math.sqrt(3) * CELL_RADIUS * (2 * m + 2.5)
    height = 2 * MARGIN + CELL_RADIUS * (2 + 3 * m + 1.5) + STATUS_HEIGHT
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


def _stone(x: float, y: float, radius: float, seat: int) -> Circle:
    return Circle(x, y, radius - 0.75, STONE_COLORS[seat], STONE_EDGE, 1.5)


def drawing(state: IrisState, seat: int | None = None) -> Drawing:
    """Return the drawing description of ``state`` (the same from every ``seat``)."""
    if seat is not None:
        state._check_seat(seat)  # perfect information: every seat sees the same picture
    n = state.params.board_size
    m = n - 1
    t = state.tables
    height, width = image_size(n)
    out = Drawing(width, height, BACKGROUND)
    hues = pair_colors(n)
    for idx in t.board.cells:
        x, y = cell_center(n, *t.board.coord(idx))
        fill = hues[t.color[idx]] if t.colored[idx] else GRAY
        out.add(Polygon(hexagon(x, y, CELL_RADIUS - 0.5), fill, GRID, 2.0))
    for r in range(-m, m + 1):
        out.add(Text(*cell_center(n, max(-m, -m - r) - 1, r), str(r), 10, LABEL))
    for q in range(-m, m + 1):
        out.add(Text(*cell_center(n, q, min(m, m - q) + 1), str(q), 10, LABEL))
    out.add(Text(width - MARGIN, MARGIN + 6, "(q, r)", 10, LABEL, "end"))
    stone_radius = 0.62 * CELL_RADIUS
    if state.pending >= 0:
        x, y = cell_center(n, *t.board.coord(state.pending))
        out.add(Circle(x, y, stone_radius + 4, HIGHLIGHT))
    for idx, value in enumerate(state.board):
        if value:
            out.add(_stone(*cell_center(n, *t.board.coord(idx)), stone_radius, value - 1))
    if state.phase == SECOND_OPPOSITE:
        x, y = cell_center(n, *t.board.coord(t.opposite[state.pending]))
        out.add(Circle(x, y, 0.25 * CELL_RADIUS, HIGHLIGHT))
    if not state.is_terminal:
        radius = 0.4 * CELL_RADIUS
        out.add(_stone(MARGIN + radius, MARGIN + radius, radius, state.current_player))
    out.add(Text(MARGIN, height - MARGIN - 5, _status(state), 10, TEXT, "start"))
    return out


def _status(state: IrisState) -> str:
    if state.phase == OVER:
        w = state.result_info()["winner"]
        return "game over: " + ("draw" if w is None else f"{PLAYER_NAMES[w]} wins")
    text = f"{PLAYER_NAMES[state.to_move]} to move"
    return text + ("; opponent passed" if state.passed_last else "")


def _cell_box(board_size: int, q: int, r: int) -> Box:
    """Return the disc inscribed in the hexagon of cell ``(q, r)``."""
    x, y = cell_center(board_size, q, r)
    inner = CELL_RADIUS * math.sqrt(3) / 2
    return Box(x - inner, y - inner, 2 * inner, 2 * inner, round=True)


def targets(state: IrisState, seat: int | None = None) -> list[Target]:
    """Return where the mover's moves are on :func:`drawing`: one target per cell.

    Pointing at an empty colored cell for a first stone previews its opposite cell (where the
    second stone is then forced). Pass is no place on the board. None once the game is over.
    """
    if seat is not None:
        state._check_seat(seat)
    if state.is_terminal:
        return []
    n = state.params.board_size
    t = state.tables
    out = []
    for idx in t.board.cells:
        preview: tuple[Box, ...] = ()
        if state.phase == FIRST and t.colored[idx] and not state.board[idx]:
            preview = (_cell_box(n, *t.board.coord(t.opposite[idx])),)
        out.append(
            Target(idx, (_cell_box(n, *t.board.coord(idx)),), "a cell for your stone", preview)
        )
    return out


def draw(state: IrisState) -> np.ndarray:
    """Return a fresh ``(H, W, 3)`` uint8 picture of ``state`` (see the module docstring)."""
    return to_rgb(drawing(state))


__all__ = ["cell_center", "draw", "drawing", "image_size", "pair_colors", "targets"]
