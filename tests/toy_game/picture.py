"""Pebbles as a picture: :func:`drawing` describes it once, for ``rgb_array`` and ``svg`` alike.

The pile is a row of gray pebbles; under it each player has a column with the pebbles taken
(a number) and a token disc: the viewer's own token shows its value, the others' are face down
until the game is over. A red ring marks the player to move.
"""

from __future__ import annotations

from tabletop_envs.render.draw import Circle, Drawing, Rect, Text
from tabletop_envs.render.raster import Color

from .rules import MAX_PILE, PebblesState

PEBBLE = 8  # radius in pixels
MARGIN = 12
COLUMN = 86  # width of a player's column
BACKGROUND: Color = (236, 232, 220)
STONE: Color = (150, 150, 150)
EDGE: Color = (80, 80, 80)
TOKEN: Color = (215, 175, 60)
FACE_DOWN: Color = (120, 95, 60)
MOVER: Color = (220, 30, 30)
INK: Color = (30, 30, 30)


def drawing(state: PebblesState, seat: int | None = None) -> Drawing:
    """Return the picture of ``state`` as ``seat`` sees it (``None``: the public view)."""
    if seat is not None:
        seat = state._check_seat(seat)
    n = state.params.num_players
    width = max(2 * MARGIN + 2 * PEBBLE * MAX_PILE // 2, 2 * MARGIN + COLUMN * n)
    out = Drawing(width, 120, BACKGROUND)
    for k in range(state.left):  # the pile, two rows of up to 15
        row, col = divmod(k, MAX_PILE // 2)
        x = MARGIN + PEBBLE + 2 * PEBBLE * col
        out.add(Circle(x, MARGIN + PEBBLE + 2 * PEBBLE * row, PEBBLE - 1, STONE, EDGE))
    for player in range(n):
        x = MARGIN + COLUMN * player
        if player == state.current_player:
            out.add(Rect(x, 52, COLUMN - 6, 60, BACKGROUND, MOVER, 2))
        out.add(Text(x + 6, 62, f"player {player}", 9, INK, "start"))
        out.add(Text(x + 6, 80, f"took {state.taken[player]}", 9, INK, "start"))
        shown = state.is_terminal or player == seat
        token = TOKEN if shown else FACE_DOWN
        out.add(Circle(x + 14, 98, 8, token, EDGE))
        if shown:
            out.add(Text(x + 14, 98, str(state.tokens[player]), 9, INK))
    return out
