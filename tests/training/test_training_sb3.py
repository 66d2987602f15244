"""The adapter under Stable-Baselines3: check_env, MaskablePPO on every env, SubprocVecEnv."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

import tabletop_envs

if os.environ.get("CI") == "true":
    import sb3_contrib  # noqa: F401  CI installs the train extra: missing, it must fail, not skip
else:
    pytest.importorskip("sb3_contrib")
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_checker import check_env
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

from tabletop_envs.agents.base import RandomAgent
from tabletop_envs.training import PolicyAgent, SingleAgentEnv
from tabletop_envs.training.train import evaluate

ENVS = tabletop_envs.registered_envs()
TINY = {"n_steps": 64, "batch_size": 64, "n_epochs": 1, "policy_kwargs": {"net_arch": [32]}}


@pytest.mark.parametrize("name", ENVS)
def test_check_env(name: str) -> None:
    # check_env steps with unmasked random actions: the default "penalize" ends those episodes
    env = SingleAgentEnv(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no SB3 compatibility warning either
        check_env(env, warn=True)


@pytest.mark.parametrize("name", ENVS)
def test_maskable_ppo_learns_a_few_steps(name: str) -> None:
    vec = DummyVecEnv([lambda: SingleAgentEnv(name) for _ in range(2)])
    model = MaskablePPO("MlpPolicy", vec, seed=0, device="cpu", **TINY)
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256
    # the trained policy plays legal moves only, as an opponent and in evaluation
    agent = PolicyAgent(model.policy)
    result = evaluate(agent, RandomAgent(0), name, games=4, seed=0)
    assert result["games"] == 4
    env = SingleAgentEnv(name, opponent=agent)
    env.reset(seed=0)
    done = False
    while not done:
        _, _, done, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))


def test_maskable_ppo_under_subproc_vec_env() -> None:
    name = ENVS[0]
    vec = SubprocVecEnv([lambda: SingleAgentEnv(name) for _ in range(2)])
    try:
        model = MaskablePPO("MlpPolicy", vec, seed=0, device="cpu", **TINY)
        model.learn(total_timesteps=256)
        assert model.num_timesteps >= 256
        # a frozen snapshot travels to the workers (self-play pools)
        vec.env_method("add_opponent", PolicyAgent.snapshot(model))  # after learn()
        assert vec.env_method("pool_size") == [2, 2]
        model.learn(total_timesteps=128, reset_num_timesteps=False)
    finally:
        vec.close()
