"""Static facts of Iris: seats, phases, and per-size tables (cached by board side, read-only)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from tabletop_envs.core.hexgrid import HexBoard, hex_board

BLACK, WHITE = 0, 1

# Phases of a turn.
OPENING = 0  # Black's single gray stone
FIRST = 1  # first stone of a two-stone turn, or pass
SECOND_OPPOSITE = 2  # the forced opposite cell
SECOND_GRAY = 3  # an empty gray cell not adjacent to the first stone
FORFEIT = 4  # no legal second stone: only "pass" (forfeit) is legal
OVER = 5
PHASE_NAMES = ("opening", "first stone", "forced opposite", "second gray stone", "forfeit", "over")


@dataclass(frozen=True, eq=False)
class IrisTables:
    """Everything about an Iris board of one side that never changes during play."""

    board: HexBoard
    num_actions: int  # width*width cell ids + 1 pass
    pass_action: int
    colored: tuple[bool, ...]  # per index
    color: tuple[int, ...]  # per index: perimeter color, -1 for gray / off-board
    opposite: tuple[int, ...]  # per index: point reflection (-1 off-board)
    rowcol: tuple[tuple[int, int], ...]  # per index: (row, col) in the (w, w) planes
    gray_neighbors: tuple[tuple[int, ...], ...]  # per index: its gray neighbour cells
    gray_cells: tuple[int, ...]
    colored_cells: tuple[int, ...]
    # int8 masks over the action space (pass slot included)
    empty_mask0: np.ndarray  # every cell + pass
    gray_mask0: np.ndarray  # every gray cell, no pass
    far_gray: tuple[np.ndarray, ...]  # per index: gray cells not adjacent to it (nor it)
    colored_plane: np.ndarray  # (w, w) int8
    on_board_plane: np.ndarray  # (w, w) int8


@cache
def iris_tables(side: int) -> IrisTables:
    """Return the tables of the Iris board of side ``side``."""
    board = hex_board(side)
    size = board.width * board.width
    num_actions = size + 1
    colors = 3 * (side - 1)
    color = [-1] * size
    for k, idx in enumerate(board.ring):
        color[idx] = k % colors
    colored = tuple(c >= 0 for c in color)
    opposite = [-1] * size
    for idx in board.cells:
        opposite[idx] = board.opposite(idx)
    gray_cells = tuple(i for i in board.cells if not colored[i])
    colored_cells = tuple(i for i in board.cells if colored[i])

    empty_mask0 = np.zeros(num_actions, dtype=np.int8)
    empty_mask0[list(board.cells)] = 1
    empty_mask0[size] = 1
    gray_mask0 = np.zeros(num_actions, dtype=np.int8)
    gray_mask0[list(gray_cells)] = 1
    far_gray = []
    for idx in range(size):
        far = gray_mask0.copy()
        if board.on_board[idx]:
            far[idx] = 0
            far[list(board.neighbors[idx])] = 0
        far.setflags(write=False)
        far_gray.append(far)
    colored_plane = np.zeros(size, dtype=np.int8)
    colored_plane[list(colored_cells)] = 1
    on_board_plane = board.on_board.astype(np.int8)
    for arr in (empty_mask0, gray_mask0, colored_plane, on_board_plane):
        arr.setflags(write=False)
    return IrisTables(
        board=board,
        num_actions=num_actions,
        pass_action=size,
        colored=colored,
        color=tuple(color),
        opposite=tuple(opposite),
        rowcol=tuple(divmod(i, board.width) for i in range(size)),
        gray_neighbors=tuple(
            tuple(n for n in board.neighbors[i] if not colored[n]) for i in range(size)
        ),
        gray_cells=gray_cells,
        colored_cells=colored_cells,
        empty_mask0=empty_mask0,
        gray_mask0=gray_mask0,
        far_gray=tuple(far_gray),
        colored_plane=colored_plane.reshape(board.width, board.width),
        on_board_plane=on_board_plane.reshape(board.width, board.width),
    )
