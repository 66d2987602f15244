"""Isis & Osiris (Michael Schacht): stones and hidden-value tiles on a 6x6 board, 2-4 players."""

from tabletop_envs.games.isis_osiris.observation import channel_names
from tabletop_envs.games.isis_osiris.rules import IsisOsirisParams, IsisOsirisState
from tabletop_envs.games.isis_osiris.tables import coord_to_square, square_to_coord

__all__ = [
    "IsisOsirisParams",
    "IsisOsirisState",
    "channel_names",
    "coord_to_square",
    "square_to_coord",
]
