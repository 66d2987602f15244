"""Isis & Osiris as a picture: :func:`drawing` describes it once, for ``rgb_array`` and ``svg``.

The 6x6 board with its coordinates (columns ``a``-``f`` above, rows ``1``-``6`` on the left, as
actions read them). Stones are discs in their seat's color carrying the seat's letter
(``A``-``D``); tiles are squares that never use a seat color: positive tiles white with dark
``+N`` and pips, negative tiles charcoal with white ``-N`` and pips, so shape, sign and shade
tell them apart without color. In memory mode a tile the viewer's observation shows face down
(see ``observation.shows_value``) shows the eye. Below, one row per seat: its letter and color,
a dot per stone left, a bar per tile left in its stack and the counts; the seat to move has a
marker, and a tile being placed is drawn at the end of its row. Stacks and the box are never
shown. Seat colors are the Okabe-Ito palette (distinct under the common color blindnesses).
At the end the picture gives the result with its reasons: every stone carries its worth (the
sum of the tiles next to it) under its letter, and each seat's row reads its score as the sum
of its stones' worths, the winners marked.
"""

from __future__ import annotations

import numpy as np

from tabletop_envs.games.isis_osiris.observation import shows_value
from tabletop_envs.games.isis_osiris.rules import IsisOsirisParams, IsisOsirisState
from tabletop_envs.games.isis_osiris.tables import COLS, NEIGHBORS, PLACE, ROWS, TILE_BASE, TURN
from tabletop_envs.games.isis_osiris.text import STONE_LETTERS
from tabletop_envs.render.draw import Circle, Drawing, Polygon, Rect, Text, to_rgb
from tabletop_envs.render.raster import Color
from tabletop_envs.render.targets import Box, Target

#: Side of a square in pixels.
CELL = 40
MARGIN = 10
LABEL_ROOM = 16  # coordinates above and left of the board
ROW_HEIGHT = 24
INFO_WIDTH = 150  # the counts at the end of each seat's row

BACKGROUND: Color = (240, 236, 226)
GRID: Color = (120, 104, 80)
SQUARE: Color = (226, 206, 160)
#: Okabe-Ito orange, sky blue, bluish green, reddish purple.
SEAT_COLORS: tuple[Color, ...] = ((230, 159, 0), (86, 180, 233), (0, 158, 115), (204, 121, 167))
POSITIVE: Color = (252, 252, 248)
NEGATIVE: Color = (45, 45, 50)
TILE_EDGE: Color = (70, 60, 50)
FACE_DOWN: Color = (150, 120, 70)
EYE_WHITE: Color = (245, 240, 225)
EYE_PUPIL: Color = (30, 30, 30)
MARKER: Color = (20, 20, 20)
LABEL: Color = (110, 100, 90)
INK: Color = (20, 20, 20)

# Pip positions (fractions of the tile side) for 1-4 points, in the tile's lower half.
_PIPS = {
    1: ((0.5, 0.74),),
    2: ((0.35, 0.74), (0.65, 0.74)),
    3: ((0.25, 0.74), (0.5, 0.74), (0.75, 0.74)),
    4: ((0.2, 0.74), (0.4, 0.74), (0.6, 0.74), (0.8, 0.74)),
}


def image_size(num_players: int) -> tuple[int, int]:
    """Return the ``(height, width)`` in pixels of the image for ``num_players``."""
    width = 2 * MARGIN + LABEL_ROOM + COLS * CELL + INFO_WIDTH
    height = 2 * MARGIN + LABEL_ROOM + ROWS * CELL + MARGIN + num_players * ROW_HEIGHT
    return height, width


def frame_size(params: IsisOsirisParams) -> tuple[int, int]:
    """Return the ``(height, width)`` of every ``rgb_array``/``svg`` frame (the picture's own)."""
    return image_size(params.num_players)


def _tile(out: Drawing, x: float, y: float, side: float, value: int | None) -> None:
    """Add a tile with its top-left corner at ``(x, y)``; ``None`` draws it face down."""
    cx, cy = x + side / 2, y + side / 2
    if value is None:
        out.add(Rect(x, y, side, side, FACE_DOWN, TILE_EDGE, 1.0))
        w, h = side * 0.38, side * 0.2
        out.add(Polygon(((cx - w, cy), (cx, cy - h), (cx + w, cy), (cx, cy + h)), EYE_WHITE))
        out.add(Circle(cx, cy, side * 0.1, EYE_PUPIL))
        return
    fill, ink = (POSITIVE, INK) if value > 0 else (NEGATIVE, POSITIVE)
    out.add(Rect(x, y, side, side, fill, TILE_EDGE, 1.0))
    if side >= 24:
        out.add(Text(cx, y + side * 0.32, f"{value:+d}", side * 0.3, ink))
        for fx, fy in _PIPS[abs(value)]:
            out.add(Circle(x + fx * side, y + fy * side, side * 0.07, ink))
    else:  # a small tile (the one in hand): the signed value only
        out.add(Text(cx, cy, f"{value:+d}", 10, ink))


def drawing(state: IsisOsirisState, seat: int | None = None) -> Drawing:
    """Return the drawing description of ``seat``'s view (``None``: the seat to move's)."""
    viewer = state._viewer(seat)
    n = state.num_players
    height, width = image_size(n)
    out = Drawing(width, height, BACKGROUND)
    left, top = MARGIN + LABEL_ROOM, MARGIN + LABEL_ROOM
    out.add(Rect(left - 1, top - 1, COLS * CELL + 2, ROWS * CELL + 2, GRID))
    for col in range(COLS):
        out.add(Text(left + (col + 0.5) * CELL, top - LABEL_ROOM / 2, "abcdef"[col], 10, LABEL))
    for row in range(ROWS):
        out.add(Text(MARGIN + LABEL_ROOM / 2, top + (row + 0.5) * CELL, str(row + 1), 10, LABEL))
        for col in range(COLS):
            x, y = left + col * CELL, top + row * CELL
            out.add(Rect(x + 1, y + 1, CELL - 2, CELL - 2, SQUARE))
            sq = row * COLS + col
            owner = state.owner[sq]
            if owner >= 0:
                cx, cy = x + CELL / 2, y + CELL / 2
                out.add(Circle(cx, cy, CELL * 0.34, SEAT_COLORS[owner], GRID, 2.0))
                if state.is_terminal:  # the letter small, the stone's worth under it
                    out.add(Text(cx, cy - 7, STONE_LETTERS[owner], 5, INK))
                    out.add(Text(cx, cy + 4, f"{_worth(state, sq):+d}", 8, INK))
                else:
                    out.add(Text(cx, cy, STONE_LETTERS[owner], 10, INK))
            elif state.tiles[sq]:
                shown = shows_value(state, viewer, sq)
                _tile(out, x + 4, y + 4, CELL - 8, state.tiles[sq] if shown else None)
    y0 = top + ROWS * CELL + MARGIN
    info_x = left + COLS * CELL + 8
    for s in range(n):
        y = y0 + s * ROW_HEIGHT
        cy = y + ROW_HEIGHT / 2
        if s == state.current_player:
            out.add(Polygon(((2, cy - 5), (8, cy), (2, cy + 5)), MARKER))
        out.add(Circle(MARGIN + 8, cy, 8, SEAT_COLORS[s]))
        out.add(Text(MARGIN + 8, cy, STONE_LETTERS[s], 8, INK))
        x = MARGIN + 24
        if state.is_terminal:
            out.add(Text(x, cy, _sum_line(state, s), 8, INK, "start"))
            continue
        for _ in range(state.stones_left[s]):
            out.add(Circle(x + 4, cy, 4, SEAT_COLORS[s], GRID, 1.0))
            x += 10
        x += 6
        for _ in range(len(state.stacks[s])):
            out.add(Rect(x, cy - 7, 5, 14, FACE_DOWN))
            x += 8
        label = f"{state.stones_left[s]} stones {len(state.stacks[s])} tiles"
        out.add(Text(info_x, cy, label, 8, INK, "start"))
        if state.phase == PLACE and s == state.current_player:
            _tile(out, x + 4, y + 1, ROW_HEIGHT - 2, state.in_hand)  # the tile being placed
    return out


def _worth(state: IsisOsirisState, square: int) -> int:
    """Return what the stone on ``square`` is worth: the sum of the tiles next to it."""
    return sum(state.tiles[nb] for nb in NEIGHBORS[square])


def _sum_line(state: IsisOsirisState, seat: int) -> str:
    """Return ``seat``'s score as the sum of its stones' worths, board order, and if it won."""
    worths = [_worth(state, sq) for sq, owner in enumerate(state.owner) if owner == seat]
    scores = state.scores()
    top = max(scores)
    shared = scores.count(top) > 1
    verdict = ("  shares the win" if shared else "  wins") if scores[seat] == top else ""
    terms = " ".join(f"{w:+d}" for w in worths) or "no stones"
    return f"{scores[seat]:+d} = {terms}{verdict}"


def targets(state: IsisOsirisState, seat: int | None = None) -> list[Target]:
    """Return where the mover's moves are on :func:`drawing`: one target per square.

    At the start of a turn they put a stone (group ``"a square for a stone"``); once a tile is
    revealed they put that tile (group ``"a square for the revealed tile"``). Reveal is no place
    on the board.
    """
    state._viewer(seat)  # checks the seat
    if state.phase not in (TURN, PLACE):
        return []
    base, group = (
        (TILE_BASE, "a square for the revealed tile")
        if state.phase == PLACE
        else (0, "a square for a stone")
    )
    left, top = MARGIN + LABEL_ROOM, MARGIN + LABEL_ROOM
    return [
        Target(
            base + row * COLS + col, (Box(left + col * CELL, top + row * CELL, CELL, CELL),), group
        )
        for row in range(ROWS)
        for col in range(COLS)
    ]


def draw(state: IsisOsirisState, seat: int | None = None) -> np.ndarray:
    """Return ``seat``'s view of the position as an ``(H, W, 3)`` uint8 image.

    ``seat=None`` is the seat to move (what ``env.render()`` shows), like ``render_text``.
    """
    return to_rgb(drawing(state, seat))


__all__ = ["draw", "drawing", "image_size", "targets"]
