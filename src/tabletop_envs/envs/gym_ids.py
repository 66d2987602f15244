"""Gymnasium ids of the single-agent view of every game (kept for imports of 0.1).

Each game declares its id in its :class:`~tabletop_envs.core.registration.EnvSpec`
(``gym_id``); :func:`tabletop_envs.envs.registry.register` registers it with Gymnasium.
"""

from __future__ import annotations

from tabletop_envs.envs.registry import GYM_ENTRY_POINT, gym_ids

#: Gymnasium id -> registered env name (the built-in envs'; see :func:`gym_ids` for all).
GYM_IDS = gym_ids()
ENTRY_POINT = GYM_ENTRY_POINT


def register_gym_ids() -> None:
    """Nothing to do: the registry registers each env's id as the env is registered."""
