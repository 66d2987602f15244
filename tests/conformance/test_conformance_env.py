"""The env adapter on every case: copies, ``load_state``, rejected actions, clear errors."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import re
from typing import Any

import numpy as np
import pytest

from tabletop_envs.core.errors import IllegalActionError, InvalidParameterError
from tabletop_envs.envs.registry import env_spec, make, registered_envs
from tests.conformance.cases import (
    CASES,
    ENVS,
    assert_same_obs,
    game_class,
    mid_game_env,
    new_game,
    random_action,
    random_trajectory,
)

#: Steps played before a mid-game check (capped by the game's length).
MID_GAME_STEPS = (0, 1, 7, 25)


def _env_view(env: Any) -> tuple:
    """Return what an agent can see of an env: selection, rewards, flags, infos."""
    return (
        env.agent_selection,
        list(env.agents),
        dict(env.rewards),
        dict(env._cumulative_rewards),
        dict(env.terminations),
        dict(env.truncations),
        copy.deepcopy(env.infos),
    )


def _play_envs_together(envs: list[Any], seed: int, what: str) -> None:
    """Step ``envs`` with the same random legal actions to the end, comparing every step."""
    rng = np.random.default_rng(seed)
    first = envs[0]
    step = 0
    while True:
        for other in envs[1:]:
            where = f"{what} step {step}"
            assert _env_view(other) == _env_view(first), f"{where}: env bookkeeping differs"
            assert other.game == first.game, f"{where}: game states differ"
            for agent in first.possible_agents:
                assert_same_obs(other.observe(agent), first.observe(agent), f"{where} {agent}")
        if first.game.is_terminal:
            break
        action = random_action(first.game, rng)
        for env in envs:
            env.step(action)
        step += 1


@pytest.mark.parametrize("steps", MID_GAME_STEPS)
@pytest.mark.parametrize(("name", "params"), CASES)
def test_deepcopy_and_pickle_keep_the_game(name: str, params: dict[str, Any], steps: int) -> None:
    """A deep copy and a pickle round trip of a mid-game env play on exactly as the original."""
    env = mid_game_env(name, params, seed=steps, steps=steps)
    copied = copy.deepcopy(env)
    pickled = pickle.loads(pickle.dumps(env))
    for other in (copied, pickled):
        assert other.game is not env.game and other.game == env.game
    _play_envs_together([env, copied, pickled], seed=steps, what=f"after {steps} steps")


@pytest.mark.parametrize(("name", "params"), CASES)
def test_copies_of_a_fresh_env(name: str, params: dict[str, Any]) -> None:
    """An env copied before ``reset`` resets like the original."""
    env = make(name, **params)
    copied, pickled = copy.deepcopy(env), pickle.loads(pickle.dumps(env))
    for e in (env, copied, pickled):
        e.reset(seed=11)
    _play_envs_together([env, copied, pickled], seed=11, what="fresh copies")


@pytest.mark.parametrize(("name", "params"), CASES)
def test_load_state(name: str, params: dict[str, Any]) -> None:
    """``env.load_state(game)`` continues from a copy of any core state, terminal included."""
    states = random_trajectory(name, params, seed=7)
    env = make(name, **params)
    for step in sorted({0, len(states) // 2, len(states) - 2, len(states) - 1}):
        game = states[step].clone()
        where = f"step {step}"
        env.load_state(game)
        assert env.game == game and env.game is not game, where
        assert not env.truncations[env.agent_selection], where
        if game.is_terminal:
            assert all(env.terminations.values()), where
            for seat, agent in enumerate(env.possible_agents):
                assert env.rewards[agent] == game.returns()[seat], where
                assert not env.observe(agent)["action_mask"].any(), where
            continue
        assert not any(env.terminations.values()), where
        assert env.agent_selection == env.possible_agents[game.current_player], where
        for seat, agent in enumerate(env.possible_agents):
            obs = env.observe(agent)
            assert np.array_equal(obs["observation"], game.observation(seat)), where
            expected = game.legal_mask() if seat == game.current_player else 0 * obs["action_mask"]
            assert np.array_equal(obs["action_mask"], expected), where
        snapshot = env.game.clone()
        game.apply(random_action(game, np.random.default_rng(step)))  # the caller's copy
        assert env.game == snapshot, f"{where}: load_state kept a reference to the caller's game"
        reference = make(name, **params)
        reference.load_state(snapshot)
        _play_envs_together([reference, env], seed=step, what=f"loaded at {where}")


@pytest.mark.parametrize(("name", "params"), CASES)
def test_load_state_rejects_other_games(name: str, params: dict[str, Any]) -> None:
    """``load_state`` refuses a state of another game or other parameters."""
    env = make(name, **params)
    with pytest.raises(ValueError, match=name):
        env.load_state(object())
    for other in env_spec(name).test_params:
        game = new_game(name, other, seed=0)
        if game.params != env.params:
            with pytest.raises(ValueError, match="cannot load"):
                env.load_state(game)


def _illegal_actions(env: Any, rng: np.random.Generator) -> list[Any]:
    """Return a few actions the mover may not play: masked-out ids, out of range, wrong type."""
    mask = env.observe(env.agent_selection)["action_mask"]
    masked_out = rng.permutation(np.flatnonzero(mask == 0))[:2].tolist()
    n = env.game_spec.num_actions
    return [*masked_out, n, -1, np.int64(n + 1), 1.5, "0", True]


@pytest.mark.parametrize("steps", MID_GAME_STEPS)
@pytest.mark.parametrize(("name", "params"), CASES)
def test_raw_env_rejects_without_change(name: str, params: dict[str, Any], steps: int) -> None:
    """``raw_env``: an illegal action raises IllegalActionError and changes nothing."""
    env = mid_game_env(name, params, seed=steps, steps=steps, illegal_action="raise")
    rng = np.random.default_rng(steps)
    text, view = env.game.to_json(), _env_view(env)
    mover = env.game.current_player
    for action in _illegal_actions(env, rng):
        with pytest.raises(IllegalActionError) as info:
            env.step(action)
        assert isinstance(info.value, ValueError)
        assert info.value.player == mover and info.value.reason, action
        assert env.game.to_json() == text, f"rejected {action!r} changed the game"
        assert _env_view(env) == view, f"rejected {action!r} changed the env bookkeeping"
    env.step(random_action(env.game, rng))  # the env still plays


@pytest.mark.parametrize("steps", MID_GAME_STEPS)
@pytest.mark.parametrize(("name", "params"), CASES)
def test_env_penalizes_illegal_action(name: str, params: dict[str, Any], steps: int) -> None:
    """``env()``: an illegal action ends the game, -1 to the mover, 0 to others, info says why."""
    env = mid_game_env(name, params, seed=steps, steps=steps)
    mover = env.agent_selection
    text = env.game.to_json()
    env.step(_illegal_actions(env, np.random.default_rng(steps))[0])
    assert env.game.to_json() == text, "the rejected action changed the game"
    for agent in env.possible_agents:
        assert env.terminations[agent] and not env.truncations[agent], agent
        assert env.rewards[agent] == (-1.0 if agent == mover else 0.0), agent
        assert not env.observe(agent)["action_mask"].any(), agent
    assert "illegal" in str(env.infos[mover].get("illegal_action", "")), env.infos[mover]
    finals = {}
    while env.agents:
        agent = env.agent_selection
        finals[agent] = env.last()[1]
        env.step(None)
    assert finals == {a: (-1.0 if a == mover else 0.0) for a in env.possible_agents}


@pytest.mark.parametrize("name", ENVS)
def test_use_before_reset_is_a_clear_error(name: str) -> None:
    """``step``/``observe``/``render`` before ``reset`` say to call reset."""
    env = make(name, render_mode="ansi")
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        env.step(0)
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        env.observe(env.possible_agents[0])
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        env.render()


@pytest.mark.parametrize("name", ENVS)
def test_make_errors_list_valid_values(name: str) -> None:
    """Unknown env names, keywords and bad values give errors that list what is valid."""
    with pytest.raises(ValueError) as info:
        make(name.replace("_v", "_nosuch_v"))
    assert all(n in str(info.value) for n in registered_envs()), info.value
    fields = [f.name for f in dataclasses.fields(game_class(name).params_class)]
    with pytest.raises(InvalidParameterError) as info:
        make(name, no_such_parameter=1)
    assert "no_such_parameter" in str(info.value), info.value
    assert all(f in str(info.value) for f in fields), f"valid keywords not listed: {info.value}"
    for field in fields:
        with pytest.raises(InvalidParameterError, match=re.escape(field)):
            make(name, **{field: "not a valid value"})
    with pytest.raises(InvalidParameterError, match="'ansi'"):
        make(name, render_mode="human")
    with pytest.raises(InvalidParameterError, match="'penalize'"):
        make(name, illegal_action="ignore")


@pytest.mark.parametrize(("name", "params"), CASES)
def test_spaces_agents_and_metadata(name: str, params: dict[str, Any]) -> None:
    """Spaces, agent names and metadata follow the game's spec; state() says it is not offered."""
    env = make(name, **params)
    spec = env.game_spec
    assert spec == new_game(name, params, seed=0).spec
    assert env.possible_agents == [f"player_{i}" for i in range(spec.num_players)]
    assert env.metadata["name"] == name and str(env) == name
    for agent in env.possible_agents:
        obs_space = env.observation_space(agent)
        assert obs_space["observation"].shape == spec.observation_shape
        assert obs_space["observation"].dtype == np.dtype(spec.observation_dtype)
        assert obs_space["action_mask"].shape == (spec.num_actions,)
        assert env.action_space(agent).n == spec.num_actions
    low, high = spec.reward_range
    assert low < high and low <= 0 <= high
    assert spec.max_game_length > 0
    assert len(spec.observation_channels) == spec.observation_shape[-1]
    env.reset(seed=0)
    with pytest.raises(NotImplementedError, match="state"):
        env.state()
    with pytest.warns(UserWarning, match="render_mode"):
        assert env.render() is None


@pytest.mark.parametrize(("name", "params"), CASES)
def test_unseeded_resets_follow_the_seed(name: str, params: dict[str, Any]) -> None:
    """After ``reset(seed=s)``, later unseeded resets are reproducible too."""
    games = []
    for _ in range(2):
        env = make(name, **params)
        env.reset(seed=21)
        env.reset()
        games.append(env.game.clone())
    assert games[0] == games[1]
