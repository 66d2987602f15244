"""The Gymnasium ids: registered on ``import tabletop_envs`` (nothing heavy), made and checked."""

from __future__ import annotations

import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import tabletop_envs
from tabletop_envs import IllegalActionError, InvalidParameterError
from tabletop_envs.agents.greedy import GreedyAgent
from tabletop_envs.agents.single_agent import SingleAgentEnv
from tabletop_envs.envs.gym_ids import GYM_IDS

IDS = sorted(GYM_IDS)


def test_the_three_ids_are_registered_for_every_env() -> None:
    assert GYM_IDS == {
        "tabletop_envs/Iris-v0": "iris_v0",
        "tabletop_envs/IsisOsiris-v0": "isis_osiris_v0",
        "tabletop_envs/Irk-v0": "irk_v0",
    }
    assert sorted(GYM_IDS.values()) == tabletop_envs.registered_envs()
    for gym_id in IDS:
        assert gym_id in gymnasium.registry


def test_import_registers_without_torch_sb3_or_matplotlib() -> None:
    code = (
        "import sys, gymnasium, tabletop_envs\n"
        "assert 'tabletop_envs/Irk-v0' in gymnasium.registry\n"
        "heavy = ('torch', 'stable_baselines3', 'sb3_contrib', 'matplotlib')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy"
        " or m.startswith('tabletop_envs.training')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("gym_id", IDS)
def test_make_and_check_env_with_the_defaults(gym_id: str) -> None:
    env = gymnasium.make(gym_id)
    assert isinstance(env.unwrapped, SingleAgentEnv)
    assert env.unwrapped.env_name == GYM_IDS[gym_id]
    assert env.metadata["render_fps"] > 0
    assert env.unwrapped.aec.illegal_action == "penalize"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert not caught, [str(w.message) for w in caught]


@pytest.mark.parametrize("gym_id", IDS)
def test_the_old_raising_default_fails_the_checker(gym_id: str) -> None:
    """Why the default changed: ``check_env`` steps actions drawn from the whole action space.

    Most of them are illegal; with ``illegal_action="raise"`` the first illegal one it draws
    stops the checker. The draw is made to be an illegal action here (a random draw is legal
    now and then, e.g. in Isis & Osiris, where many actions are legal), so the test is certain.
    """
    env = gymnasium.make(gym_id, illegal_action="raise").unwrapped

    def first_illegal(*args: object, **kwargs: object) -> int:
        return int(np.flatnonzero(env.action_masks() == 0)[0])

    env.action_space.sample = first_illegal  # type: ignore[method-assign]
    with pytest.raises(IllegalActionError):
        check_env(env)


def test_keywords_reach_the_adapter_and_the_game() -> None:
    env = gymnasium.make(
        "tabletop_envs/IsisOsiris-v0",
        opponent="greedy",
        learner_seat=2,
        num_players=3,
        memory=True,
        reward="margin",
        env_kwargs={"reward": "score"},
        render_mode="ansi",
    ).unwrapped
    assert env.aec.params.num_players == 3 and env.aec.params.memory
    assert env.aec.params.reward == "score" and env.reward_mode == "margin"
    assert env.learner_seat_mode == 2 and env.render_mode == "ansi"
    assert all(isinstance(a, GreedyAgent) for a in env.pool.agents)
    env.reset(seed=0)
    assert isinstance(env.render(), str)
    iris = gymnasium.make("tabletop_envs/Iris-v0", board_size=4, flatten=False).unwrapped
    assert iris.aec.params.board_size == 4 and iris.observation_space.shape == iris.planes_shape


def test_bad_keywords_are_refused_with_the_valid_ones() -> None:
    with pytest.raises(InvalidParameterError, match="board_size"):
        gymnasium.make("tabletop_envs/Iris-v0", boardsize=4)
    with pytest.raises(InvalidParameterError, match="env_kwargs"):
        gymnasium.make("tabletop_envs/Irk-v0", reward="score")
    with pytest.raises(ValueError, match="unknown agent"):
        gymnasium.make("tabletop_envs/Irk-v0", opponent="nobody")


def test_a_seeded_episode_replays() -> None:
    def episode() -> list[tuple[bytes, float]]:
        env = gymnasium.make("tabletop_envs/Irk-v0", opponent=["greedy", "random"], table_size=9)
        obs, _ = env.reset(seed=3)
        out, done = [], False
        while not done:
            action = int(np.flatnonzero(env.unwrapped.action_masks())[-1])
            obs, reward, done, _, _ = env.step(action)
            out.append((obs.tobytes(), reward))
        return out

    assert episode() == episode()
