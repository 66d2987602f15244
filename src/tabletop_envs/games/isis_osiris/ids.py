"""Isis & Osiris's squares, action ids and their names: a mixin of the rules' state.

Squares are numbered ``row * 6 + col`` (row 0 at the top). Action ids: ``s`` (0-35) puts a
stone on square ``s``; ``36 + s`` (36-71) puts the revealed tile on square ``s``; ``72``
reveals the top tile of the mover's stack. Kept apart so that the rules file stays within its
size.
"""

from __future__ import annotations

from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.core.params import check_int_range
from tabletop_envs.games.isis_osiris.tables import (
    NUM_ACTIONS,
    NUM_SQUARES,
    REVEAL,
    TILE_BASE,
    coord_to_square,
    square_name,
    square_to_coord,
)


class ActionIds:
    """The conversions between squares, coordinates and action ids, and their text."""

    __slots__ = ()

    @staticmethod
    def square_to_coord(square: int) -> tuple[int, int]:
        """Return ``(row, col)`` of square id ``square`` (0-35, row-major, row 0 on top)."""
        return square_to_coord(square)

    @staticmethod
    def coord_to_square(row: int, col: int) -> int:
        """Return the square id of ``(row, col)``."""
        return coord_to_square(row, col)

    @staticmethod
    def stone_action(row: int, col: int) -> int:
        """Return the action id "put a stone on ``(row, col)``"."""
        return coord_to_square(row, col)

    @staticmethod
    def tile_action(row: int, col: int) -> int:
        """Return the action id "put the revealed tile on ``(row, col)``"."""
        return TILE_BASE + coord_to_square(row, col)

    @property
    def reveal_action(self) -> int:
        """Return the id of "reveal the top tile of my stack" (the last id)."""
        return REVEAL

    @staticmethod
    def action_to_coord(action: int) -> tuple[int, int]:
        """Return the ``(row, col)`` of a stone or tile action; ValueError for reveal."""
        action = check_int_range("action id", action, 0, NUM_ACTIONS - 1)
        if action == REVEAL:
            raise InvalidParameterError(f"action {REVEAL} is reveal, not a square")
        return square_to_coord(action % NUM_SQUARES)

    def action_to_string(self, action: int) -> str:
        """Return ``"reveal"``, ``"stone c2"`` or ``"tile c2"``; ValueError for a bad id."""
        action = check_int_range("action id", action, 0, NUM_ACTIONS - 1)
        if action == REVEAL:
            return "reveal"
        kind = "stone" if action < TILE_BASE else "tile"
        return f"{kind} {square_name(action % NUM_SQUARES)}"
