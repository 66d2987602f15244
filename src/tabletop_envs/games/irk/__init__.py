"""Irk (Pack O Game): secret simultaneous choices, tile stacking and majorities, 2-4 players.

``SPEC`` is everything the library needs to know about the game: the registry collects it.
The names below are imported from their modules on first use, so registering imports no rules.
"""

from __future__ import annotations

import importlib
from typing import Any

from tabletop_envs.core.registration import EnvSpec

SPEC = EnvSpec(
    name="irk_v0",
    game="tabletop_envs.games.irk.rules:IrkState",
    image="tabletop_envs.games.irk.image:drawing",
    frame="tabletop_envs.games.irk.image:frame_size",
    description="Irk: secret simultaneous choices, tile stacking and majorities, 2-4 players",
    test_params=(
        {},
        {"num_players": 3},
        {"num_players": 4, "reward": "score"},
        {"num_players": 2, "table_size": 9},
        {"num_players": 3, "group_planes": True},
        {"num_players": 2, "table_size": 9, "action_values": True},
    ),
    helpers=(
        "action_to_tile",
        "tile_to_action",
        "action_to_placement",
        "placement_to_action",
        "score",
    ),
    heuristics={
        "greedy": "tabletop_envs.games.irk.heuristics:score_actions",
        "planner": "tabletop_envs.games.irk.heuristics:plan_scores",
    },
    moves="tabletop_envs.games.irk.moves:SYNTAX",
    score_key="totals",
    gym_id="tabletop_envs/Irk-v0",
    results="tabletop_envs.games.irk.results:result_arrays",
    targets="tabletop_envs.games.irk.image:targets",
)

_EXPORTS = {
    "STANDARD_DECK": "deck",
    "IrkParams": "rules",
    "IrkState": "rules",
    "score_game": "scoring",
}

__all__ = ["SPEC", "STANDARD_DECK", "IrkParams", "IrkState", "score_game"]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
