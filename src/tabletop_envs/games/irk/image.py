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

The own hand's tiles are large enough to pick with a click (:func:`targets` says where).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tabletop_envs.games.irk.deck import COLOR_LETTERS, GRAY, SQUARE_COLOR, SQUARE_LABEL
from tabletop_envs.games.irk.observation import NUM_ROUNDS
from tabletop_envs.games.irk.params import IrkParams
from tabletop_envs.games.irk.placement import FOOTPRINTS
from tabletop_envs.games.irk.rules import CHOOSE, OVER, PHASE_NAMES, PLACE, IrkState
from tabletop_envs.render.draw import Drawing, Polygon, Rect, Text, to_rgb, wrap
from tabletop_envs.render.raster import Color
from tabletop_envs.render.targets import Box, Target

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
LEFT = MARGIN + LABEL_ROOM  # the table's left edge
TOP = MARGIN + LABEL_ROOM  # the table's top edge
HAND = MINI  # side of a square of a tile in the own hand: large enough to click, labelled
HAND_GAP = 6
HAND_BLOCK = 18 + 3 * HAND + 4  # the own hand's caption and tiles

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


#: Table cells across and down an env frame has room for (a 2-player game's table stays within
#: 16 in most games; a larger one is scaled down to fit), and its status lines.
FRAME_CELLS = 17
FRAME_STATUS_LINES = 3


def frame_size(params: IrkParams) -> tuple[int, int]:
    """Return the ``(height, width)`` of every ``rgb_array``/``svg`` frame of an env with
    ``params``: the public picture of a :data:`FRAME_CELLS` table window."""
    cells = min(FRAME_CELLS, params.table_size)
    width = 2 * MARGIN + max(LABEL_ROOM + cells * CELL, PANEL_WIDTH)
    rows = TOP + cells * CELL + MARGIN + 6 + STATUS_LINE * FRAME_STATUS_LINES
    return rows + params.num_players * ROW_HEIGHT + 2 * MARGIN, width


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


@dataclass(frozen=True)
class _Layout:
    """Where the parts of a picture of ``state`` lie (shared by :func:`drawing` and
    :func:`targets`)."""

    r0: int
    c0: int
    nr: int
    nc: int
    width: int
    status: tuple[str, ...]  # the status lines, wrapped to the picture's width
    panel: int  # top of the status lines
    rows: int  # top of the seats' rows
    hand: int  # top of the own hand's block

    def cell(self, row: int, col: int) -> Box | None:
        """Return the box of table cell ``(row, col)``, or None outside the shown window."""
        if not (0 <= row - self.r0 < self.nr and 0 <= col - self.c0 < self.nc):
            return None
        return Box(LEFT + (col - self.c0) * CELL, TOP + (row - self.r0) * CELL, CELL, CELL)

    def hand_tile(self, k: int) -> Box:
        """Return the box of the ``k``-th tile of the own hand."""
        return Box(MARGIN + k * (HAND + HAND_GAP), self.hand + 18, HAND - 1, 3 * HAND - 1)


def _layout(state: IrkState) -> _Layout:
    r0, c0, nr, nc = window(state)
    width = 2 * MARGIN + max(LABEL_ROOM + nc * CELL, PANEL_WIDTH)
    status = tuple(
        line for text in _status(state) for line in wrap(text, STATUS_SIZE, width - 2 * MARGIN)
    )
    panel = TOP + nr * CELL + MARGIN
    rows = panel + 6 + STATUS_LINE * len(status)
    hand = rows + state.params.num_players * ROW_HEIGHT
    return _Layout(r0, c0, nr, nc, width, status, panel, rows, hand)


def drawing(state: IrkState, seat: int | None = None) -> Drawing:
    """Return the drawing of the public position, plus ``seat``'s hand if given."""
    if seat is not None:
        seat = state._check_seat(seat)
    n = state.params.num_players
    t = state.params.table_size
    at = _layout(state)
    height = at.hand + 2 * MARGIN + (HAND_BLOCK if seat is not None else 0)
    out = Drawing(at.width, height, BACKGROUND)
    for c in range(at.nc):
        out.add(Text(LEFT + (c + 0.5) * CELL, MARGIN + LABEL_ROOM / 2, str(at.c0 + c), 9, LABEL))
    for r in range(at.nr):
        y = TOP + r * CELL
        out.add(Text(MARGIN + LABEL_ROOM / 2, y + CELL / 2, str(at.r0 + r), 9, LABEL))
        for c in range(at.nc):
            x = LEFT + c * CELL
            cell = (at.r0 + r) * t + at.c0 + c
            code = int(state.visible[cell])
            if code == 0:
                out.add(Rect(x + CELL / 2 - 1, y + CELL / 2 - 1, 2, 2, EMPTY_DOT))
                continue
            out.add(Rect(x, y, CELL, CELL, GRID))
            _square(out, x + 1, y + 1, CELL - 2, code, label=True)
            for k in range(min(int(state.height[cell]) - 1, 3)):
                out.add(Rect(x + 2 + 5 * k, y + 2, 4, 4, NOTCH))
    for i, line in enumerate(at.status):
        out.add(Text(MARGIN, at.panel + 6 + i * STATUS_LINE, line, STATUS_SIZE, INK, "start"))
    for s in range(n):
        _seat_row(out, state, s, MARGIN, at.rows + s * ROW_HEIGHT)
    if seat is not None:
        _hand(out, state, seat, at)
    return out


def _hand(out: Drawing, state: IrkState, seat: int, at: _Layout) -> None:
    """Add ``seat``'s hand (and its secret choice): its own view only."""
    out.add(Text(MARGIN, at.hand + 8, f"player_{seat} hand (own view):", 8, INK, "start"))
    k = -1
    for k, tile in enumerate(state.hands[seat]):
        box = at.hand_tile(k)
        _tile(out, state, box.x, box.y, tile, HAND)
    if state.chosen[seat] >= 0:
        x = at.hand_tile(k + 1).x
        out.add(Text(x + 8, at.hand + 18 + 1.5 * HAND, "chose:", 8, INK, "start"))
        _tile(out, state, x + 56, at.hand + 18, state.chosen[seat], HAND)


def targets(state: IrkState, seat: int | None = None) -> list[Target]:
    """Return where the mover's moves are on ``drawing(state, seat)``.

    Choosing: the tiles of the own hand (group ``"a tile of your hand"``). Placing: each legal
    placement's cells in the window (group ``"where your tile goes"``), and for every other cell
    of the window the placement whose top square lands there running down (illegal: clicking it
    says why).
    """
    if seat is not None:
        seat = state._check_seat(seat)
    at = _layout(state)
    if state.phase == CHOOSE:
        if seat != state.to_move:
            return []
        return [
            Target(tile, (at.hand_tile(k),), "a tile of your hand")
            for k, tile in enumerate(state.hands[seat])
        ]
    if state.phase != PLACE:
        return []
    out = []
    covered = set()
    for action in state.legal_actions():
        row, col, o = state.action_to_placement(action)
        cells = [(row + dr, col + dc) for dr, dc in FOOTPRINTS[o]]
        boxes = tuple(b for b in (at.cell(r, c) for r, c in cells) if b is not None)
        covered.update(cells)
        out.append(Target(action, boxes, "where your tile goes"))
    for r in range(at.r0, at.r0 + at.nr):
        for c in range(at.c0, at.c0 + at.nc):
            box = at.cell(r, c)
            if (r, c) not in covered and box is not None:
                out.append(
                    Target(state.placement_to_action(r, c, 0), (box,), "where your tile goes")
                )
    return out


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
    pile, stars = state.pile_totals(s)
    counts = " ".join(
        f"{COLOR_LETTERS[c]}{pile[c]}" + "*" * stars[c]
        for c in range(len(COLOR_LETTERS))
        if pile[c]
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


__all__ = ["draw", "drawing", "targets", "window"]
