"""Seeded random playouts of every case: masks, observations, rewards and lengths by the spec.

Conventions checked (see ``envs/aec.py``): the mask of every agent that is not to move is all
zeros, every mask is all zeros once the game is over, every reward before the last step is 0,
the final rewards are ``game.returns()`` and the final infos carry ``game.result_info()``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from tabletop_envs.core.errors import IllegalActionError
from tabletop_envs.core.game import TERMINAL, GameSpec, GameState
from tabletop_envs.envs.registry import make
from tests.conformance.cases import CASES, new_game, random_action

ENV_GAMES = 12  # env-level playouts per case
CORE_GAMES = 12  # core-level playouts per case
EXHAUSTIVE_GAMES = 2  # of those, games where every legal action is applied on a clone
SAMPLED_LEGAL = 6  # legal actions tried per step in the other games
ILLEGAL_TRIES = 3  # masked-out actions tried per step


def _check_obs(obs: dict[str, np.ndarray], space: Any, spec: GameSpec, where: str) -> None:
    planes, mask = obs["observation"], obs["action_mask"]
    assert planes.shape == spec.observation_shape, f"{where}: shape {planes.shape}"
    assert planes.dtype == np.dtype(spec.observation_dtype), f"{where}: dtype {planes.dtype}"
    assert planes.min() >= spec.observation_low and planes.max() <= spec.observation_high, (
        f"{where}: observation values outside [{spec.observation_low}, {spec.observation_high}]"
    )
    assert mask.shape == (spec.num_actions,) and mask.dtype == np.int8, f"{where}: mask"
    assert set(np.unique(mask).tolist()) <= {0, 1}, f"{where}: mask values"
    assert space.contains(obs), f"{where}: observation outside the observation space"


def _is_negative_zero(x: float) -> bool:
    return x == 0 and math.copysign(1.0, x) < 0


@pytest.mark.parametrize(("name", "params"), CASES)
def test_env_random_playouts(name: str, params: dict[str, Any]) -> None:
    """Play seeded random games through the env, checking every agent at every step."""
    env = make(name, **params)
    spec = env.game_spec
    agents = env.possible_agents
    low, high = spec.reward_range
    for seed in range(ENV_GAMES):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        steps = 0
        while True:
            game = env.game
            where = f"seed {seed} step {steps}"
            if game.is_terminal:
                break
            mover = env.agent_selection
            assert mover == agents[game.current_player], where
            for agent in agents:
                obs = env.observe(agent)
                _check_obs(obs, env.observation_space(agent), spec, f"{where} {agent}")
                if agent == mover:
                    assert np.array_equal(obs["action_mask"], game.legal_mask()), where
                    assert obs["action_mask"].any(), f"{where}: mover has no legal action"
                else:
                    assert not obs["action_mask"].any(), f"{where}: {agent} (not to move) mask"
                assert not env.terminations[agent] and not env.truncations[agent], where
            env.step(random_action(game, rng))
            steps += 1
            assert steps <= spec.max_game_length, f"{where}: longer than max_game_length"
            if not env.game.is_terminal:
                assert all(env.rewards[a] == 0 for a in agents), f"{where}: nonzero reward"
        returns = game.returns()
        result = game.result_info()
        assert returns.shape == (len(agents),), f"seed {seed}: returns shape"
        for seat, agent in enumerate(agents):
            where = f"seed {seed} end {agent}"
            obs = env.observe(agent)
            _check_obs(obs, env.observation_space(agent), spec, where)
            assert not obs["action_mask"].any(), f"{where}: mask not zero at the end"
            reward = env.rewards[agent]
            assert isinstance(reward, float) and not _is_negative_zero(reward), where
            assert reward == returns[seat], f"{where}: reward {reward} != returns {returns}"
            assert low <= reward <= high, f"{where}: reward {reward} outside {spec.reward_range}"
            assert env.terminations[agent] and not env.truncations[agent], where
            assert env.infos[agent] == {**env.infos[agent], **result}, (
                f"{where}: infos {env.infos[agent]} lack result_info {result}"
            )
        # The finished agents leave one by one, each seeing its own final reward.
        seen = []
        while env.agents:
            agent = env.agent_selection
            _, reward, term, trunc, _ = env.last()
            assert term and not trunc and reward == returns[agents.index(agent)], agent
            seen.append(agent)
            env.step(None)
        assert sorted(seen) == sorted(agents), f"seed {seed}: agents leaving {seen}"


def _check_rejected(game: GameState, action: Any, where: str) -> None:
    before = game.clone()
    with pytest.raises(IllegalActionError):
        game.apply(action)
    assert game == before, f"{where}: a rejected action {action!r} changed the state"


@pytest.mark.parametrize(("name", "params"), CASES)
def test_core_mask_is_legality(name: str, params: dict[str, Any]) -> None:
    """Every masked action applies (on a clone); masked-out ones raise, state unchanged."""
    for seed in range(CORE_GAMES):
        game = new_game(name, params, seed)
        spec = game.spec
        rng = np.random.default_rng(seed)
        steps = 0
        while not game.is_terminal:
            where = f"seed {seed} step {steps}"
            assert game.spec == spec, f"{where}: the spec changed during the game"
            mask = game.legal_mask()
            assert mask.shape == (spec.num_actions,) and mask.dtype == np.int8, where
            legal = np.flatnonzero(mask)
            assert len(legal), f"{where}: no legal action"
            assert game.legal_actions() == legal.tolist(), where
            assert 0 <= game.current_player < spec.num_players, where
            assert not game.returns().any(), f"{where}: nonzero returns before the end"
            mask[:] = 1 - mask  # a fresh array: changing it changes nothing
            assert np.array_equal(game.legal_mask(), 1 - mask), f"{where}: mask not fresh"
            obs = game.observation(game.current_player)
            saved = obs.copy()
            obs[...] = 0 if saved.any() else 1
            assert np.array_equal(game.observation(game.current_player), saved), (
                f"{where}: observation not a fresh array"
            )
            tried = legal if seed < EXHAUSTIVE_GAMES else rng.permutation(legal)[:SAMPLED_LEGAL]
            for action in tried:
                game.clone().apply(int(action))
            illegal = np.flatnonzero(mask)  # mask now holds the complement
            for action in rng.permutation(illegal)[:ILLEGAL_TRIES]:
                _check_rejected(game, int(action), where)
            for action in (-1, spec.num_actions, np.int64(spec.num_actions + 5)):
                _check_rejected(game, action, where)
            game.apply(int(legal[rng.integers(len(legal))]))
            steps += 1
            assert steps <= spec.max_game_length, f"seed {seed}: longer than max_game_length"
        where = f"seed {seed} end"
        assert game.current_player == TERMINAL, where
        assert not game.legal_mask().any() and game.legal_actions() == [], where
        returns = game.returns()
        assert returns.dtype == np.float64, where
        assert ((returns >= spec.reward_range[0]) & (returns <= spec.reward_range[1])).all()
        for action in (0, spec.num_actions - 1):
            _check_rejected(game, action, where)
