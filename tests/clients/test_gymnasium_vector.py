"""Gymnasium's ``make_vec`` with ``vectorization_mode="async"`` (one subprocess per env) on
every env id and player count: seeded games to their ends, actions drawn from the infos' masks,
the infos stacked into arrays of one shape at every step."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest

import tabletop_envs  # noqa: F401  (registers the ids)
from tests.clients.configs import CONFIGS, GYM_IDS, label

NUM_ENVS = 2
GAMES = 4


@pytest.mark.parametrize(("name", "params"), CONFIGS)
def test_async_vector_env_plays_seeded_games(name: str, params: dict[str, Any]) -> None:
    envs = gymnasium.make_vec(
        GYM_IDS[name], num_envs=NUM_ENVS, vectorization_mode="async", **params
    )
    try:
        _, info = envs.reset(seed=0)
        shapes = {k: np.shape(v) for k, v in info.items()}
        rng = np.random.default_rng(0)
        ended = 0
        while ended < GAMES:
            masks = info["action_mask"]
            # an env whose game ended at the last step resets now (its mask is all zeros)
            actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
            _, rewards, terminated, truncated, info = envs.step(actions)
            assert {k: np.shape(v) for k, v in info.items()} == shapes, label(name, params)
            assert not info["illegal_action"].any() and not truncated.any()
            ended += int(terminated.sum())
            for i in np.flatnonzero(terminated):
                assert rewards[i] == info["learner_return"][i]
                assert info["winners"][i].any() or rewards[i] == 0.0
    finally:
        envs.close()
