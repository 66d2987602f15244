"""Checks of a registered env (the PettingZoo AEC adapter over the game): spaces, parameters,
random playouts through the env, seeding, copies, rejected actions and ``load_state``.

Conventions checked (see ``docs/conventions.md``): the mask of every agent that is not to move
is all zeros, every mask is all zeros once the game is over, every reward before the last step
is 0, the final rewards are ``game.returns()``; every agent's infos have the same keys, shapes
and dtypes at every step, their ``action_mask`` is the observation's, and ``result_details()`` is
``game.result_info()`` at the end.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import math
import numbers
import pickle
import re
import warnings
from typing import Any

import numpy as np

from tabletop_envs.core.errors import IllegalActionError, InvalidParameterError
from tabletop_envs.core.game import GameSpec
from tabletop_envs.core.registration import load
from tabletop_envs.core.rng import make_rng, rng_to_json
from tabletop_envs.envs.registry import env_spec, make
from tabletop_envs.testing.play import (
    Case,
    assert_same_obs,
    expect_raises,
    info_key,
    info_layout,
    mid_game_env,
    play_out,
    random_action,
    random_trajectory,
)

#: Steps played before a mid-game check (capped by the game's length).
MID_GAME_STEPS = (0, 1, 7, 25)
#: Seeds of the seeding check's games (a deal per seed, one action policy).
SEEDING_SEEDS = (3, 4)


def check_spaces(case: Case) -> None:
    """Spaces, agent names and metadata follow the game's spec; state() says it is not offered."""
    env: Any = case.make()
    spec = env.game_spec
    assert spec == case.new_game(case.seed).spec, "the env's game_spec is not the game's spec"
    assert env.possible_agents == [f"player_{i}" for i in range(spec.num_players)], "agents"
    assert env.metadata["name"] == case.name and str(env) == case.name, "metadata name"
    for agent in env.possible_agents:
        obs_space = env.observation_space(agent)
        assert obs_space["observation"].shape == spec.observation_shape, f"{agent}: shape"
        assert obs_space["observation"].dtype == np.dtype(spec.observation_dtype), agent
        assert obs_space["action_mask"].shape == (spec.num_actions,), f"{agent}: mask space"
        assert env.action_space(agent).n == spec.num_actions, f"{agent}: action space"
    env.reset(seed=case.seed)
    with expect_raises(NotImplementedError, "env.state()", match="state"):
        env.state()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert env.render() is None, "render() without a render_mode returned something"
    assert any(
        issubclass(w.category, UserWarning) and "render_mode" in str(w.message) for w in caught
    ), "render() without a render_mode did not warn"


def check_params(case: Case) -> None:
    """An unknown keyword lists the valid ones; a bad value of each parameter names it."""
    fields = [f.name for f in dataclasses.fields(case.game_class.params_class)]
    try:
        make(case.name, no_such_parameter=1)
    except InvalidParameterError as err:
        assert "no_such_parameter" in str(err), err
        assert all(f in str(err) for f in fields), f"valid keywords not listed: {err}"
    else:
        raise AssertionError("make() accepted an unknown keyword no_such_parameter")
    for name in fields:
        with expect_raises(InvalidParameterError, f"{name}='not a valid value'", re.escape(name)):
            make(case.name, **{name: "not a valid value"})


def check_heuristics(case: Case) -> None:
    """Each heuristic the spec declares gives one finite score per legal action of the mover,
    along random games, and leaves the state as it was (agents call it on the live game)."""
    for kind, path in env_spec(case.name).heuristics.items():
        heuristic = load(path)
        for seed in case.seeds:
            states = random_trajectory(case, seed)[:-1]  # the live positions
            for step in sorted({0, len(states) // 3, (2 * len(states)) // 3, len(states) - 1}):
                game = states[step]
                before = game.clone()
                actions = game.legal_actions()
                scores = heuristic(game, game.current_player, actions, np.random.default_rng(step))
                where = f"{kind} heuristic, seed {seed} step {step}"
                assert len(scores) == len(actions), f"{where}: {len(scores)} scores"
                assert all(isinstance(x, numbers.Real) and math.isfinite(x) for x in scores), (
                    f"{where}: scores must be finite numbers, got {scores}"
                )
                assert game == before, f"{where}: scoring changed the state"


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


def _check_info(env: Any, agent: str, obs: dict[str, np.ndarray], where: str) -> None:
    """The agent's infos have the layout of a fresh game's and hold the observation's mask."""
    layout = info_layout(env._new_info(env.game_class(env.params, 0)))
    info = env.infos[agent]
    assert info_layout(info) == layout, f"{where}: infos {info_layout(info)}, expected {layout}"
    assert info["action_mask"] is obs["action_mask"], f"{where}: infos hold another mask"


def _play_env_game(env: Any, seed: int) -> None:
    """Play one seeded random game through ``env``, checking every agent at every step."""
    spec = env.game_spec
    agents = env.possible_agents
    rng = np.random.default_rng(seed)
    steps = 0
    while not env.game.is_terminal:
        game = env.game
        where = f"seed {seed} step {steps}"
        mover = env.agent_selection
        assert mover == agents[game.current_player], f"{where}: agent_selection"
        for agent in agents:
            obs = env.observe(agent)
            _check_obs(obs, env.observation_space(agent), spec, f"{where} {agent}")
            _check_info(env, agent, obs, f"{where} {agent}")
            if agent == mover:
                assert np.array_equal(obs["action_mask"], game.legal_mask()), (
                    f"{where}: the env's action_mask is not the game's legal_mask"
                )
                assert obs["action_mask"].any(), f"{where}: mover has no legal action"
            else:
                assert not obs["action_mask"].any(), f"{where}: {agent} (not to move) mask"
            assert not env.terminations[agent] and not env.truncations[agent], where
        env.step(random_action(game, rng))
        steps += 1
        assert steps <= spec.max_game_length, f"{where}: longer than max_game_length"
        if not env.game.is_terminal:
            assert all(env.rewards[a] == 0 for a in agents), f"{where}: nonzero reward"


def _check_env_end(env: Any, seed: int) -> None:
    """Check the end of a game: rewards, flags, infos, and the agents leaving one by one."""
    spec = env.game_spec
    agents = env.possible_agents
    low, high = spec.reward_range
    returns = env.game.returns()
    result = env.game.result_info()
    assert returns.shape == (len(agents),), f"seed {seed}: returns shape"
    for seat, agent in enumerate(agents):
        where = f"seed {seed} end {agent}"
        obs = env.observe(agent)
        _check_obs(obs, env.observation_space(agent), spec, where)
        _check_info(env, agent, obs, where)
        assert not obs["action_mask"].any(), f"{where}: mask not zero at the end"
        assert not env.infos[agent]["illegal_action"], f"{where}: illegal_action"
        reward = env.rewards[agent]
        assert isinstance(reward, float) and not _is_negative_zero(reward), f"{where}: {reward!r}"
        assert reward == returns[seat], f"{where}: reward {reward} != returns {returns}"
        assert low <= reward <= high, f"{where}: reward {reward} outside {spec.reward_range}"
        assert env.terminations[agent] and not env.truncations[agent], where
        final = env._new_info(env.game)  # the declared result arrays of the game
        assert info_key(env.infos[agent]) == info_key(final), f"{where}: result arrays"
    assert env.result_details() == result, f"seed {seed}: result_details() is not result_info()"
    seen = []
    while env.agents:
        agent = env.agent_selection
        _, reward, term, trunc, _ = env.last()
        assert term and not trunc and reward == returns[agents.index(agent)], agent
        seen.append(agent)
        env.step(None)
    assert sorted(seen) == sorted(agents), f"seed {seed}: agents leaving {seen}"


def check_env_playouts(case: Case) -> None:
    """Seeded random games through the env: every agent's observation and mask at every step
    (the mover's mask is the game's legal mask), rewards, lengths and final infos."""
    env = case.make()
    for seed in case.seeds:
        env.reset(seed=seed)
        _play_env_game(env, seed)
        _check_env_end(env, seed)


def trace_digest(env: Any, seed: int, env_seed: int | None = None) -> str:
    """Return a digest of one game of ``env`` (reset with ``env_seed``, default ``seed``) played
    by a random policy seeded with ``seed``: every agent's observation, the mask, the action,
    rewards, flags and infos of every step."""
    policy = np.random.default_rng(seed)
    env.reset(seed=seed if env_seed is None else env_seed)
    h = hashlib.sha256()
    while not all(env.terminations[a] or env.truncations[a] for a in env.agents):
        for agent in env.possible_agents:
            obs = env.observe(agent)
            h.update(obs["observation"].tobytes() + obs["action_mask"].tobytes())
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        action = int(legal[policy.integers(len(legal))])
        env.step(action)
        infos = {a: info_key(i) for a, i in env.infos.items()}
        bookkeeping = (action, env.rewards, env.terminations, env.truncations, infos)
        h.update(repr(bookkeeping).encode())
    return h.hexdigest()


def _uses_chance(case: Case) -> bool:
    """Return whether seeded games draw from their RNG at all (set-up or play)."""
    for seed in range(3):
        game = case.game_class(case.game_class.params_class(**case.params), seed)
        fresh = rng_to_json(make_rng(seed))
        if rng_to_json(game.rng) != fresh:
            return True
        play_out(game, np.random.default_rng(seed))
        if rng_to_json(game.rng) != fresh:
            return True
    return False


def check_env_seeding(case: Case) -> None:
    """``reset(seed)`` is reproducible (two envs, one env twice, unseeded resets after a seeded
    one); with one action policy, seeds change the game if and only if the game has chance."""
    seeds = [s + case.seed for s in SEEDING_SEEDS]
    first = [trace_digest(case.make(), s) for s in seeds]
    assert [trace_digest(case.make(), s) for s in seeds] == first, "same seed, another game"
    env: Any = case.make()
    assert [trace_digest(env, seeds[0]) for _ in range(2)] == [first[0]] * 2, (
        "one env reset twice with the same seed played two games"
    )
    games = []
    for _ in range(2):
        env = case.make()
        env.reset(seed=21)
        env.reset()
        games.append(env.game.clone())
    assert games[0] == games[1], "unseeded resets after reset(seed=21) differ between envs"
    traces = {trace_digest(env, seed=0, env_seed=s) for s in range(4)}
    if _uses_chance(case):
        assert len(traces) > 1, "different seeds gave identical games, yet the game draws chance"
    else:
        assert len(traces) == 1, "a game without chance depends on the seed"


def _env_view(env: Any) -> tuple[Any, ...]:
    """Return what an agent can see of an env: selection, rewards, flags, infos."""
    return (
        env.agent_selection,
        list(env.agents),
        dict(env.rewards),
        dict(env._cumulative_rewards),
        dict(env.terminations),
        dict(env.truncations),
        {agent: info_key(info) for agent, info in env.infos.items()},
    )


def play_envs_together(envs: list[Any], seed: int, what: str) -> None:
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


def check_env_deepcopy_and_pickle(case: Case, steps: int) -> None:
    """A deep copy and a pickle round trip of a mid-game env play on exactly as the original."""
    env = mid_game_env(case, seed=steps + case.seed, steps=steps)
    copied = copy.deepcopy(env)
    pickled = pickle.loads(pickle.dumps(env))
    for other in (copied, pickled):
        assert other.game is not env.game and other.game == env.game, f"after {steps} steps"
    play_envs_together([env, copied, pickled], seed=steps, what=f"after {steps} steps")


def check_env_copies(case: Case) -> None:
    """Deep copies and pickles of an env, fresh or mid-game, play on as the original.

    The mid-game copies are taken after the last ``games`` of ``MID_GAME_STEPS`` steps.
    """
    env = case.make()
    copied, pickled = copy.deepcopy(env), pickle.loads(pickle.dumps(env))
    for e in (env, copied, pickled):
        e.reset(seed=11 + case.seed)
    play_envs_together([env, copied, pickled], seed=11, what="fresh copies")
    for steps in MID_GAME_STEPS[-case.games :]:
        check_env_deepcopy_and_pickle(case, steps)


def _illegal_actions(env: Any, rng: np.random.Generator) -> list[Any]:
    """Return a few actions the mover may not play: masked-out ids, out of range, wrong type
    (a float, string, bool or None, and arrays that are not 0-d integer arrays)."""
    mask = env.observe(env.agent_selection)["action_mask"]
    masked_out = rng.permutation(np.flatnonzero(mask == 0))[:2].tolist()
    n = env.game_spec.num_actions
    wrong_type = [1.5, "0", True, None, np.array(1.0), np.array([0]), np.bool_(True)]
    return [*masked_out, n, -1, np.int64(n + 1), np.array(n), *wrong_type]


def check_raw_env_rejects(case: Case, steps: int) -> None:
    """``raw_env``: an illegal action raises IllegalActionError and changes nothing."""
    env: Any = mid_game_env(case, seed=steps + case.seed, steps=steps, illegal_action="raise")
    rng = np.random.default_rng(steps)
    text, view = env.game.to_json(), _env_view(env)
    mover = env.game.current_player
    for action in _illegal_actions(env, rng):
        try:
            env.step(action)
        except IllegalActionError as err:
            assert isinstance(err, ValueError), f"{action!r}: not a ValueError"
            assert err.player == mover and err.reason, f"{action!r}: player or reason of {err}"
        else:
            raise AssertionError(f"after {steps} steps: step({action!r}) was accepted")
        assert env.game.to_json() == text, f"rejected {action!r} changed the game"
        assert _env_view(env) == view, f"rejected {action!r} changed the env bookkeeping"
    env.step(np.array(random_action(env.game, rng)))  # the env still plays a 0-d int array


def check_env_penalizes(case: Case, steps: int) -> None:
    """``env()``: an illegal action ends the game, -1 to the mover, 0 to others, info says why."""
    env: Any = mid_game_env(case, seed=steps + case.seed, steps=steps)
    mover = env.agent_selection
    text = env.game.to_json()
    env.step(_illegal_actions(env, np.random.default_rng(steps))[0])
    where = f"after {steps} steps"
    assert env.game.to_json() == text, f"{where}: the rejected action changed the game"
    for agent in env.possible_agents:
        assert env.terminations[agent] and not env.truncations[agent], f"{where}: {agent}"
        assert env.rewards[agent] == (-1.0 if agent == mover else 0.0), f"{where}: {agent}"
        assert not env.observe(agent)["action_mask"].any(), f"{where}: {agent}"
    assert all(env.infos[a]["illegal_action"] == (a == mover) for a in env.possible_agents)
    assert "illegal" in env.result_details()["illegal_action"][mover], env.result_details()
    finals = {}
    while env.agents:
        agent = env.agent_selection
        finals[agent] = env.last()[1]
        env.step(None)
    assert finals == {a: (-1.0 if a == mover else 0.0) for a in env.possible_agents}, where


def check_env_illegal(case: Case) -> None:
    """Illegal actions, from the start and mid-game: ``raw_env`` raises and changes nothing,
    ``env()`` ends the game with -1 for the mover."""
    for steps in MID_GAME_STEPS:
        check_raw_env_rejects(case, steps)
        check_env_penalizes(case, steps)


def check_load_state(case: Case) -> None:
    """``env.load_state(game)`` continues from a copy of any core state, terminal included."""
    states = random_trajectory(case, case.seed + 7)
    env = case.make()
    for step in sorted({0, len(states) // 2, max(len(states) - 2, 0), len(states) - 1}):
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
        reference = case.make()
        reference.load_state(snapshot)
        play_envs_together([reference, env], seed=step, what=f"loaded at {where}")


def check_load_state_refuses(case: Case) -> None:
    """``load_state`` refuses a state of another game or other parameters."""
    env: Any = case.make()
    with expect_raises(ValueError, "load_state(object())", match=re.escape(case.name)):
        env.load_state(object())
    for other in env_spec(case.name).test_params:
        game = case.game_class.new(seed=0, **other)
        if game.params != env.params:
            with expect_raises(ValueError, f"load_state of a {other} game", match="cannot load"):
                env.load_state(game)


def check_env_load_state(case: Case) -> None:
    """``load_state`` plays on from any core state and refuses other games' states."""
    check_load_state(case)
    check_load_state_refuses(case)
