"""Irk's action ids and their names: a mixin of :class:`~tabletop_envs.games.irk.rules.IrkState`.

Choose ids ``0 .. D-1`` name a tile of the deck; place ids ``D + (row * T + col) * 4 +
orientation`` a placement of the tile being placed (``D`` the deck size, ``T`` the table size).
Kept apart from the rules so that the rules file stays within its size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tabletop_envs.core.params import check_choice, check_int_range
from tabletop_envs.games.irk.deck import Tile, tile_text
from tabletop_envs.games.irk.params import IrkParams
from tabletop_envs.games.irk.placement import ORIENTATIONS

if TYPE_CHECKING:
    from tabletop_envs.core.game import GameSpec


class ActionIds:
    """The conversions between Irk's action ids, tiles and placements, and their text."""

    __slots__ = ()

    params: IrkParams
    tiles: tuple[Tile, ...]

    if TYPE_CHECKING:  # provided by IrkState

        @property
        def spec(self) -> GameSpec: ...

    @property
    def deck_size(self) -> int:
        """Return the number of tiles in the deck (= the number of choose ids)."""
        return len(self.params.deck)

    def action_to_tile(self, action: int) -> int:
        """Return the tile id chosen by a choose id; ValueError for a place id."""
        return check_int_range("choose id", action, 0, self.deck_size - 1)

    def tile_to_action(self, tile: int) -> int:
        """Return the choose id of tile ``tile`` (the tile id itself)."""
        return check_int_range("tile", tile, 0, self.deck_size - 1)

    def action_to_placement(self, action: int) -> tuple[int, int, int]:
        """Return ``(row, col, orientation)`` of a place id; ValueError for a choose id."""
        t = self.params.table_size
        d = self.deck_size
        p = check_int_range("place id", action, d, d + t * t * 4 - 1) - d
        cell, orientation = divmod(p, 4)
        row, col = divmod(cell, t)
        return row, col, orientation

    def placement_to_action(self, row: int, col: int, orientation: int | str) -> int:
        """Return the place id putting the top square on ``(row, col)`` running ``orientation``."""
        t = self.params.table_size
        row = check_int_range("row", row, 0, t - 1)
        col = check_int_range("col", col, 0, t - 1)
        if isinstance(orientation, str):
            orientation = ORIENTATIONS.index(check_choice("orientation", orientation, ORIENTATIONS))
        else:
            orientation = check_int_range("orientation", orientation, 0, len(ORIENTATIONS) - 1)
        return self.deck_size + (row * t + col) * 4 + orientation

    def tile_label(self, tile: int) -> str:
        """Return the text of tile ``tile``, e.g. ``"G2 R1 ."``."""
        return tile_text(self.tiles[check_int_range("tile", tile, 0, self.deck_size - 1)])

    def action_to_string(self, action: int) -> str:
        """Return ``"choose #12 G2 R1 ."`` or ``"place at (9, 7) right"``."""
        action = check_int_range("action", action, 0, self.spec.num_actions - 1)
        if action < self.deck_size:
            return f"choose #{action} {self.tile_label(action)}"
        row, col, o = self.action_to_placement(action)
        return f"place at ({row}, {col}) {ORIENTATIONS[o]}"
