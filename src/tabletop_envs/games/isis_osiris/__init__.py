"""Isis & Osiris (Michael Schacht): stones and hidden-value tiles on a 6x6 board, 2-4 players.

``SPEC`` is everything the library needs to know about the game: the registry collects it.
The names below are imported from their modules on first use, so registering imports no rules.
"""

from __future__ import annotations

import importlib
from typing import Any

from tabletop_envs.core.registration import EnvSpec

SPEC = EnvSpec(
    name="isis_osiris_v0",
    game="tabletop_envs.games.isis_osiris.rules:IsisOsirisState",
    image="tabletop_envs.games.isis_osiris.image:drawing",
    frame="tabletop_envs.games.isis_osiris.image:frame_size",
    description="Isis & Osiris: stones and hidden-value tiles on a 6x6 board, 2-4 players",
    test_params=(
        {},
        {"num_players": 3},
        {"num_players": 4, "memory": True},
        {"num_players": 2, "memory": True, "reward": "score"},
        {"num_players": 4, "reward": "score"},
    ),
    helpers=(
        "square_to_coord",
        "coord_to_square",
        "stone_action",
        "tile_action",
        "reveal_action",
        "action_to_coord",
    ),
    heuristics={"greedy": "tabletop_envs.games.isis_osiris.heuristics:score_actions"},
    moves="tabletop_envs.games.isis_osiris.moves:SYNTAX",
    score_key="scores",
    gym_id="tabletop_envs/IsisOsiris-v0",
    results="tabletop_envs.games.isis_osiris.results:result_arrays",
    targets="tabletop_envs.games.isis_osiris.image:targets",
)

_EXPORTS = {
    "channel_names": "observation",
    "IsisOsirisParams": "rules",
    "IsisOsirisState": "rules",
    "coord_to_square": "tables",
    "square_to_coord": "tables",
}

__all__ = [
    "SPEC",
    "IsisOsirisParams",
    "IsisOsirisState",
    "channel_names",
    "coord_to_square",
    "square_to_coord",
]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
