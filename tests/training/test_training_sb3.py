"""The adapter under Stable-Baselines3: check_env, MaskablePPO on every env, SubprocVecEnv."""

from __future__ import annotations

import glob
import os
import tempfile
import warnings
from pathlib import Path
from typing import ClassVar

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
from tabletop_envs.agents.single_agent import SingleAgentEnv
from tabletop_envs.training.ppo.config import TrainConfig
from tabletop_envs.training.ppo.evaluation import evaluate
from tabletop_envs.training.ppo.run import rollout_total, sb3_logger, train
from tabletop_envs.training.sb3 import PolicyAgent

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
    model.set_logger(sb3_logger())
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
        model.set_logger(sb3_logger())
        model.learn(total_timesteps=256)
        assert model.num_timesteps >= 256
        # a frozen snapshot travels to the workers (self-play pools)
        vec.env_method("add_opponent", PolicyAgent.snapshot(model))  # after learn()
        assert vec.env_method("pool_size") == [2, 2]
        model.learn(total_timesteps=128, reset_num_timesteps=False)
    finally:
        vec.close()


def _sb3_folders() -> set[str]:
    return set(glob.glob(os.path.join(tempfile.gettempdir(), "SB3-*")))


class _Bar:
    """Stands in for tqdm in SB3's progress bar callback: records its total and its updates."""

    made: ClassVar[list[_Bar]] = []

    def __init__(self, total: int) -> None:
        self.total, self.n = total, 0
        _Bar.made.append(self)

    def update(self, n: int) -> None:
        self.n += n

    def refresh(self) -> None:
        """Nothing to draw."""

    def close(self) -> None:
        """Nothing to release."""


def test_training_leaves_no_sb3_folder_and_its_progress_bar_ends_at_the_steps_trained(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import stable_baselines3.common.callbacks as callbacks

    monkeypatch.delenv("SB3_LOGDIR", raising=False)
    monkeypatch.setattr(callbacks, "tqdm", _Bar)
    _Bar.made.clear()
    before = _sb3_folders()
    config = TrainConfig(
        env="iris_v0",
        env_kwargs={"board_size": 3},
        timesteps=100,  # not a multiple of the 2 x 32 steps of a rollout
        n_envs=2,
        n_steps=32,
        batch_size=32,
        n_epochs=1,
        net_arch=(16,),
        eval_every=0,
        final_eval_games=2,
        out=str(tmp_path / "run"),
    )
    messages: list[str] = []
    results = train(config, log=messages.append)
    assert _sb3_folders() == before
    assert results["timesteps"] == 128 == rollout_total(100, 64)
    [bar] = _Bar.made
    assert bar.total == bar.n == 128
    assert any("100 rounded up" in m for m in messages)


def test_rollout_total_rounds_up_to_whole_rollouts() -> None:
    assert rollout_total(100_000, 1024) == 100_352
    assert rollout_total(1024, 1024) == 1024
    assert rollout_total(0, 64) == 0
    with pytest.raises(ValueError, match="at least 1 step"):
        rollout_total(10, 0)
