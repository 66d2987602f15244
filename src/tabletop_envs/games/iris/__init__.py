"""Iris (Craig Duncan): hexhex connection game for two players.

``SPEC`` is everything the library needs to know about the game: the registry collects it.
The names below are imported from their modules on first use, so registering imports no rules.
"""

from __future__ import annotations

import importlib
from typing import Any

from tabletop_envs.core.registration import EnvSpec

SPEC = EnvSpec(
    name="iris_v0",
    game="tabletop_envs.games.iris.rules:IrisState",
    image="tabletop_envs.games.iris.image:drawing",
    frame="tabletop_envs.games.iris.image:frame_size",
    description="Iris: hexhex connection game, 2 players",
    test_params=({}, {"board_size": 8}, {"board_size": 3, "auto_forced": True}),
    helpers=("action_to_coord", "coord_to_action", "pass_action"),
    heuristics={"greedy": "tabletop_envs.games.iris.heuristics:score_actions"},
    moves="tabletop_envs.games.iris.moves:SYNTAX",
    gym_id="tabletop_envs/Iris-v0",
    results="tabletop_envs.games.iris.results:result_arrays",
    targets="tabletop_envs.games.iris.image:targets",
)

_EXPORTS = {
    "CHANNELS": "rules",
    "IrisParams": "rules",
    "IrisState": "rules",
}

__all__ = ["CHANNELS", "SPEC", "IrisParams", "IrisState"]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
