"""Isis & Osiris as text: the board a person reads, and a board typed in to set up a position."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tabletop_envs.games.isis_osiris.observation import shows_value
from tabletop_envs.games.isis_osiris.tables import (
    COLS,
    MATERIAL,
    NUM_SQUARES,
    OVER,
    PLACE,
    ROWS,
    TILE_MIX,
    all_tiles,
    square_name,
)

if TYPE_CHECKING:
    from tabletop_envs.games.isis_osiris.rules import IsisOsirisState

#: Stone letters of the text render, per seat.
STONE_LETTERS = "ABCD"
#: The eye on the back of a face-down tile in the text render.
EYE = "()"


def render(state: IsisOsirisState, viewer: int, show_values: bool = False) -> str:
    """Return ``viewer``'s board (see :meth:`IsisOsirisState.render_text`)."""
    lines = ["    " + "  ".join("abcdef")]
    for row in range(ROWS):
        cells = []
        for col in range(COLS):
            sq = row * COLS + col
            if state.owner[sq] >= 0:
                cells.append(f" {STONE_LETTERS[state.owner[sq]]}")
            elif state.tiles[sq]:
                shown = show_values or shows_value(state, viewer, sq)
                cells.append(f"{state.tiles[sq]:+d}" if shown else EYE)
            else:
                cells.append(" .")
        lines.append(f"{row + 1:2d}  " + " ".join(cells))
    for s in range(state.params.num_players):
        mark = "  <- to move" if s == state.current_player else ""
        lines.append(
            f"{STONE_LETTERS[s]} player_{s}: stones {state.stones_left[s]}, "
            f"tiles {len(state.stacks[s])}{mark}"
        )
    if state.phase == PLACE:
        lines.append(f"placing a {state.in_hand:+d} tile")
    elif state.phase == OVER:
        res = state._result
        lines.append(f"game over: scores {res['scores']}, winners {res['winners']}")
    return "\n".join(lines)


def read_board(rows: list[list[str]], n: int) -> tuple[list[int], list[int], list[int]]:
    """Return the owners and tiles of a text board, and the tile values not on it."""
    owner = [-1] * NUM_SQUARES
    tiles = [0] * NUM_SQUARES
    pool = all_tiles()
    for sq, token in enumerate(t for row in rows for t in row):
        if token in STONE_LETTERS[:n]:
            owner[sq] = STONE_LETTERS.index(token)
        elif token != ".":
            try:
                value = int(token)
                pool.remove(value)
            except ValueError:
                raise ValueError(
                    f"token {token!r} at {square_name(sq)}: use '.', a stone letter "
                    f"{', '.join(STONE_LETTERS[:n])} or a tile value left in the mix "
                    f"{sorted(TILE_MIX)}"
                ) from None
            tiles[sq] = value
    return owner, tiles, pool


def material_left(
    owner: list[int], filled: int, n: int, to_move: int, in_hand: int
) -> tuple[list[int], list[int]]:
    """Return each seat's stones left and stack size after ``filled`` turns; ValueError if
    the board cannot be reached."""
    stones, tiles, _ = MATERIAL[n]
    stones_left, sizes = [], []
    for seat in range(n):
        turns = filled // n + (seat < filled % n)
        used = owner.count(seat)
        played = turns - used + (1 if in_hand and seat == to_move else 0)
        if used > stones or not 0 <= played <= tiles:
            raise ValueError(
                f"seat {seat} has {used} stones on the board after {turns} turns; "
                f"with {stones} stones and {tiles} tiles each that is impossible"
            )
        stones_left.append(stones - used)
        sizes.append(tiles - played)
    return stones_left, sizes
