"""The SB3 single-agent adapter without SB3: spaces, seats, rewards, masks, seeding, errors."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import tabletop_envs
from tabletop_envs.agents.base import Agent, RandomAgent
from tabletop_envs.agents.single_agent import OpponentPool, SingleAgentEnv
from tabletop_envs.core.errors import IllegalActionError
from tabletop_envs.evaluation.stats import wilson as wilson_interval
from tabletop_envs.training.ppo.evaluation import evaluate
from tabletop_envs.training.sb3 import PolicyAgent
from tabletop_envs.training.train import parse_env_args

ENVS = tabletop_envs.registered_envs()


def _play_random(env: SingleAgentEnv, rng: np.random.Generator, seed: int):
    """Play one episode with uniformly random legal learner moves; yield every step's output."""
    obs, info = env.reset(seed=seed)
    while True:
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, reward, terminated, truncated, info = env.step(action)
        yield obs, reward, terminated, truncated, info
        if terminated:
            return


@pytest.mark.parametrize("name", ENVS)
def test_spaces_and_learner_view(name: str) -> None:
    env = SingleAgentEnv(name)
    spec = env.aec.game_spec
    assert env.observation_space.dtype == np.float32
    assert env.observation_space.shape == (int(np.prod(spec.observation_shape)),)
    assert env.planes_shape == spec.observation_shape
    planes = SingleAgentEnv(name, flatten=False)
    assert planes.observation_space.shape == spec.observation_shape
    assert planes.observation_space.contains(planes.reset(seed=3)[0])
    assert env.action_space.n == spec.num_actions
    obs, info = env.reset(seed=3)
    assert obs.dtype == np.float32 and env.observation_space.contains(obs)
    seat = info["learner_seat"]
    assert env.game.current_player == seat
    np.testing.assert_array_equal(obs, env.game.observation(seat).reshape(-1))
    np.testing.assert_array_equal(env.action_masks(), env.game.legal_mask().astype(bool))
    rng = np.random.default_rng(0)
    for obs, reward, terminated, truncated, info in _play_random(env, rng, seed=3):
        assert not truncated and info["learner_seat"] == seat
        np.testing.assert_array_equal(obs, env.game.observation(seat).reshape(-1))
        if not terminated:
            assert reward == 0.0
            assert env.game.current_player == seat  # opponents have moved
            assert env.action_masks().any()
        else:
            assert not env.action_masks().any()


@pytest.mark.parametrize("name", ENVS)
def test_reward_is_the_learners_own(name: str) -> None:
    """Over random games the reward is the learner's return, losses included, never another's."""
    env = SingleAgentEnv(name)
    rng = np.random.default_rng(1)
    outcomes = set()
    for episode in range(60):
        *_, (_, reward, _, _, info) = _play_random(env, rng, seed=episode)
        returns = env.game.returns()
        seat = info["learner_seat"]
        assert reward == returns[seat] == info["learner_return"]
        outcomes.add(np.sign(reward - max(np.delete(returns, seat))))
        if len(outcomes) == 2 and -1 in outcomes:
            break
    assert -1 in outcomes and len(outcomes) >= 2  # the learner lost some games and not all


class _FirstLegal(Agent):
    """Plays the lowest legal action id."""

    def act(self, game, seat):
        return int(np.flatnonzero(game.legal_mask())[0])


def test_scripted_iris_learner_loses() -> None:
    """Iris: the learner only passes (after the forced opening); the opponent fills the board."""
    env = SingleAgentEnv("iris_v0", opponent=_FirstLegal(), learner_seat=0)
    obs, _ = env.reset(seed=0)
    pass_action = env.aec.pass_action
    terminated = False
    while not terminated:
        mask = env.action_masks()
        action = pass_action if mask[pass_action] else int(np.flatnonzero(mask)[0])
        obs, reward, terminated, _, info = env.step(action)
    assert reward == -1.0 and info["learner_seat"] == 0
    assert env.game.returns().tolist() == [-1.0, 1.0]
    np.testing.assert_array_equal(obs, env.game.observation(0).reshape(-1))
    assert not np.array_equal(obs, env.game.observation(1).reshape(-1))


@pytest.mark.parametrize("name", ENVS)
def test_seat_modes(name: str) -> None:
    env = SingleAgentEnv(name)
    n = env.num_players
    seats = [env.reset(seed=5 if i == 0 else None)[1]["learner_seat"] for i in range(2 * n)]
    assert seats == [i % n for i in range(2 * n)]
    fixed = SingleAgentEnv(name, learner_seat=n - 1)
    assert {fixed.reset()[1]["learner_seat"] for _ in range(4)} == {n - 1}
    drawn = SingleAgentEnv(name, learner_seat="random")
    drawn.reset(seed=0)
    assert {drawn.reset()[1]["learner_seat"] for _ in range(40)} == set(range(n))


@pytest.mark.parametrize("bad", ["both", -1, 99, 1.5])
def test_bad_learner_seat(bad) -> None:
    with pytest.raises(ValueError, match="learner_seat"):
        SingleAgentEnv(ENVS[0], learner_seat=bad)


@pytest.mark.parametrize("name", ENVS)
def test_seeded_resets_replay(name: str) -> None:
    def trace(seed: int) -> list:
        env = SingleAgentEnv(name, opponent=RandomAgent())
        out = []
        for episode in range(2):
            obs, _ = env.reset(seed=seed if episode == 0 else None)
            out.append(obs.tobytes())
            done = False
            while not done:
                action = int(np.flatnonzero(env.action_masks())[-1])
                obs, reward, done, _, _ = env.step(action)
                out.append((obs.tobytes(), reward))
        return out

    assert trace(11) == trace(11)


@pytest.mark.parametrize("name", ENVS)
def test_illegal_action_policies(name: str) -> None:
    env = SingleAgentEnv(name, illegal_action="raise")
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    before = env.game.to_json()
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    assert env.game.to_json() == before
    penal = SingleAgentEnv(name)  # the default: penalize
    assert penal.aec.illegal_action == "penalize"
    penal.reset(seed=0)
    _, reward, terminated, _, info = penal.step(illegal)
    assert terminated and reward == -1.0 and "illegal_action" in info
    with pytest.raises(RuntimeError, match="reset"):
        penal.step(0)


def test_step_before_reset() -> None:
    with pytest.raises(RuntimeError, match="reset"):
        SingleAgentEnv(ENVS[0]).step(0)


class _Tagged(RandomAgent):
    def __init__(self, tag: str) -> None:
        super().__init__(0)
        self.tag = tag
        self.games = 0

    def reset(self, seed=None):
        super().reset(seed)
        self.games += 1


def test_opponent_pool_sampling_and_growth() -> None:
    a, b = _Tagged("a"), _Tagged("b")
    env = SingleAgentEnv(ENVS[0], opponent=[a, b])
    env.reset(seed=0)
    for _ in range(30):
        env.reset()
    assert a.games > 3 and b.games > 3
    c = _Tagged("c")
    env.set_max_pool(2)
    env.add_opponent(c)
    assert env.pool_size() == 2 and env.pool.agents == [a, c]  # the first agent stays
    pool = OpponentPool([a, b], weights=[0.0, 1.0])
    rng = np.random.default_rng(0)
    assert {pool.sample(rng).tag for _ in range(20)} == {"b"}
    with pytest.raises(ValueError):
        OpponentPool([])


class _FakeModel:
    """Records what it is asked and answers the last legal action."""

    def __init__(self) -> None:
        self.calls = []

    def predict(self, obs, action_masks=None, deterministic=False):
        self.calls.append((obs.dtype, action_masks.dtype, deterministic))
        return np.array(np.flatnonzero(action_masks)[-1]), None


def test_policy_agent_reads_obs_and_mask() -> None:
    model = _FakeModel()
    agent = PolicyAgent(model, deterministic=True)
    env = SingleAgentEnv(ENVS[0], opponent=agent)
    env.reset(seed=0)
    for _ in range(3):
        env.step(int(np.flatnonzero(env.action_masks())[0]))
        if env.game.is_terminal:
            break
    assert model.calls and set(model.calls) == {(np.dtype(np.float32), np.dtype(bool), True)}


def test_evaluate_counts_and_seats() -> None:
    result = evaluate(RandomAgent(0), RandomAgent(1), ENVS[0], games=20, seed=3)
    assert result["wins"] + result["draws"] + result["losses"] == 20
    low, high = result["ci95"]
    assert low <= result["win_rate"] <= high
    assert all(rate is not None for rate in result["win_rate_by_seat"])
    assert evaluate(RandomAgent(0), RandomAgent(1), ENVS[0], games=20, seed=3) == result


def test_wilson_interval() -> None:
    low, high = wilson_interval(380, 400)
    assert 0.92 < low < 0.95 < high < 0.97
    assert wilson_interval(0, 0) == (0.0, 1.0)
    assert wilson_interval(10, 10)[1] == 1.0


def test_parse_env_args() -> None:
    assert parse_env_args(["board_size=7", "auto_forced=true", "name=abc", "x=1.5"]) == {
        "board_size": 7,
        "auto_forced": True,
        "name": "abc",
        "x": 1.5,
    }
    with pytest.raises(ValueError, match="key=value"):
        parse_env_args(["board_size"])


def test_no_torch_at_import() -> None:
    """Importing the library, the adapter and the training module pulls in no torch or SB3."""
    code = (
        "import sys, tabletop_envs, tabletop_envs.training, tabletop_envs.training.train\n"
        "heavy = [m for m in ('torch', 'stable_baselines3', 'sb3_contrib', 'matplotlib')"
        " if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


@pytest.mark.parametrize("name", ENVS)
def test_margin_reward(name: str) -> None:
    env = SingleAgentEnv(name, reward="margin", reward_scale=0.5)
    rng = np.random.default_rng(2)
    for episode in range(5):
        *_, (_, reward, _, _, info) = _play_random(env, rng, seed=episode)
        returns = env.game.returns()
        seat = info["learner_seat"]
        assert info["learner_return"] == returns[seat]
        assert reward == pytest.approx(0.5 * (returns[seat] - max(np.delete(returns, seat))))
    with pytest.raises(ValueError, match="reward"):
        SingleAgentEnv(name, reward="score")
