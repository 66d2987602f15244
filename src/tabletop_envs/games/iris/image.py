"""Iris as a picture: :func:`drawing` describes it once, for ``rgb_array`` and ``svg`` alike.

Pointy-top hexagons at their axial positions (row ``r`` downwards, shifted half a cell per row,
as in the text render). Each perimeter color pair gets its own hue, interior cells are gray,
stones are black and white discs, the pending first stone of a turn wears a red ring and a
forced opposite cell a red dot. Coordinates: ``r`` left of each row, ``q`` below the lowest cell
of each ``q`` line (actions read ``(q, r)``). A disc in the top-left corner shows the player to
move; the status is at the bottom, wrapped to the picture's width. At the end the picture gives
the result with its reasons: every stone of a scoring group carries that group's score (the rim
cells it connects), and the status names the winner, the comparison that decided and both
players' lists of group scores.
"""

from __future__ import annotations

import colorsys
import math

import numpy as np

from tabletop_envs.core.components import connected_components
from tabletop_envs.games.iris.rules import PLAYER_NAMES, IrisParams, IrisState
from tabletop_envs.games.iris.tables import FIRST, OVER, SECOND_OPPOSITE
from tabletop_envs.render.draw import Circle, Drawing, Polygon, Text, hexagon, to_rgb, wrap
from tabletop_envs.render.raster import Color
from tabletop_envs.render.targets import Box, Target

#: Circumradius of a cell in pixels.
CELL_RADIUS = 20
MARGIN = 10
STATUS_HEIGHT = 20  # the room of a one-line status; each further line adds STATUS_LINE
STATUS_LINE = 14
STATUS_SIZE = 10

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


def image_size(board_size: int, status_lines: int = 1) -> tuple[int, int]:
    """Return the ``(height, width)`` in pixels of the image of a board of side ``board_size``
    whose status takes ``status_lines`` lines (one during a game on boards of side 4 and up;
    the end's result takes more)."""
    m = board_size - 1
    width = 2 * MARGIN + math.sqrt(3) * CELL_RADIUS * (2 * m + 2.5)
    height = _board_height(board_size) + STATUS_HEIGHT + STATUS_LINE * (status_lines - 1)
    return math.ceil(height), math.ceil(width)


#: Status lines an env frame has room for: the end's result takes four on most boards (a
#: longer one is scaled down to fit).
FRAME_STATUS_LINES = 4


def frame_size(params: IrisParams) -> tuple[int, int]:
    """Return the ``(height, width)`` of every ``rgb_array``/``svg`` frame of an env with
    ``params``: the picture with room for :data:`FRAME_STATUS_LINES` status lines."""
    return image_size(params.board_size, FRAME_STATUS_LINES)


def _board_height(board_size: int) -> float:
    return 2 * MARGIN + CELL_RADIUS * (2 + 3 * (board_size - 1) + 1.5)


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
    width = image_size(n)[1]
    lines = [
        part for text in _status(state) for part in wrap(text, STATUS_SIZE, width - 2 * MARGIN)
    ]
    height = image_size(n, len(lines))[0]
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
    if state.phase == OVER:
        for idx, score in _group_scores_by_stone(state).items():
            x, y = cell_center(n, *t.board.coord(idx))
            out.add(Text(x, y, str(score), 8, STONE_COLORS[2 - state.board[idx]]))
    else:
        radius = 0.4 * CELL_RADIUS
        out.add(_stone(MARGIN + radius, MARGIN + radius, radius, state.current_player))
    top = _board_height(n) + 5
    for i, line in enumerate(lines):
        out.add(Text(MARGIN, top + i * STATUS_LINE, line, STATUS_SIZE, TEXT, "start"))
    return out


def _group_scores_by_stone(state: IrisState) -> dict[int, int]:
    """Return, for every stone of a group that scores, that group's score (its rim cells)."""
    t = state.tables
    out: dict[int, int] = {}
    for value in (1, 2):
        stones = [i for i, v in enumerate(state.board) if v == value]
        for group in connected_components(stones, t.board.neighbors):
            score = sum(1 for i in group if t.colored[i])
            out.update(dict.fromkeys(group, score) if score else {})
    return out


def _status(state: IrisState) -> list[str]:
    """Return the status: who moves, or at the end the result, why, and both score lists."""
    if state.phase != OVER:
        text = f"{PLAYER_NAMES[state.to_move]} to move"
        return [text + ("; opponent passed" if state.passed_last else "")]
    lists = state.group_scores()
    return [
        *_decision(lists),
        *(f"{PLAYER_NAMES[s]} groups (rim cells): {lists[s]}" for s in (0, 1)),
    ]


def _decision(lists: tuple[list[int], list[int]]) -> list[str]:
    """Return who won and the comparison that decided (the first place the lists differ)."""
    length = max(len(lists[0]), len(lists[1]))
    padded = [[*scores, *[0] * (length - len(scores))] for scores in lists]
    for i, (black, white) in enumerate(zip(*padded, strict=True)):
        if black != white:
            won = f"game over: {PLAYER_NAMES[0 if black > white else 1]} wins"
            high, low = max(black, white), min(black, white)
            if i == 0:
                return [won, f"best group: {high} to {low}"]
            return [won, f"groups equal down to #{i}, then #{i + 1}: {high} to {low}"]
    return ["game over: draw", "equal group scores"]


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
