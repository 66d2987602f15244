"""Gymnasium ids of the single-agent view of every game, registered on ``import tabletop_envs``.

``gymnasium.make("tabletop_envs/Iris-v0", opponent="greedy", board_size=7)`` builds a
:class:`~tabletop_envs.training.SingleAgentEnv` through
:func:`~tabletop_envs.training.sb3.make_single_agent_env`. The entry point is a string, so
registering imports no training module (and never torch or Stable-Baselines3).
"""

from __future__ import annotations

import gymnasium

#: Gymnasium id -> registered env name.
GYM_IDS = {
    "tabletop_envs/Iris-v0": "iris_v0",
    "tabletop_envs/IsisOsiris-v0": "isis_osiris_v0",
    "tabletop_envs/Irk-v0": "irk_v0",
}
ENTRY_POINT = "tabletop_envs.training.sb3:make_single_agent_env"


def register_gym_ids() -> None:
    """Register every id of :data:`GYM_IDS` with Gymnasium (once per process)."""
    for gym_id, name in GYM_IDS.items():
        if gym_id not in gymnasium.registry:
            gymnasium.register(id=gym_id, entry_point=ENTRY_POINT, kwargs={"env_name": name})
