"""The env's life cycle on every case: before ``reset``, after the game, bad seeds and agents.

Each misuse gets an error that says what to do, never a bare ``KeyError`` or
``AttributeError`` from the bookkeeping.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tabletop_envs import ResetNeededError
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.envs.registry import make
from tabletop_envs.testing.play import info_key
from tests.conformance.cases import CASES, ENVS


def _play_to_the_end(env: Any, seed: int) -> None:
    """Reset with ``seed`` and play random legal moves until every agent has stepped out."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("name", ENVS)
def test_bookkeeping_before_reset_says_to_call_reset(name: str) -> None:
    """``agents``, ``agent_selection``, ``agent_iter()`` … before ``reset`` say to call it.

    The fields hold placeholders until ``reset()``: reading one gives an object whose every use
    (iterating, indexing, comparing, hashing, methods) raises ResetNeededError.
    """
    env = make(name)
    uses = {
        "num_agents": lambda: env.num_agents,
        "agent_iter": env.agent_iter,
        "last": env.last,
        "iterate agents": lambda: list(env.agents),
        "agents[0]": lambda: env.agents[0],
        "len(agents)": lambda: len(env.agents),
        "agent_selection ==": lambda: env.agent_selection == "player_0",
        "rewards[agent_selection]": lambda: env.rewards[env.possible_agents[0]],
        "terminations.values()": lambda: env.terminations.values(),
        "infos as a key": lambda: {env.agent_selection: 1},
        "truncations truth": lambda: bool(env.truncations),
    }
    for what, use in uses.items():
        with pytest.raises(ResetNeededError, match=r"call reset\(\)"):
            use()
            pytest.fail(f"{what} before reset() raised nothing")
    assert "call reset()" in repr(env.agent_selection) and "agents" in str(env.agents)
    env.reset(seed=0)
    assert env.agents == env.possible_agents and env.agent_selection in env.agents
    assert env.num_agents == len(env.possible_agents)


@pytest.mark.parametrize(("name", "params"), CASES)
def test_step_and_last_after_the_game_say_it_is_over(name: str, params: dict[str, Any]) -> None:
    """Once every agent has stepped out, ``step``/``last`` say to reset; ``reset`` works."""
    env = make(name, **params)
    _play_to_the_end(env, seed=3)
    assert env.agents == []
    for call in (lambda: env.step(None), lambda: env.step(0), env.last):
        with pytest.raises(RuntimeError, match=r"game is over.*call reset\(\)"):
            call()
    env.reset(seed=3)
    assert env.agents == env.possible_agents
    env.last()


@pytest.mark.parametrize(("name", "params"), CASES)
def test_each_agent_gets_its_own_final_info(name: str, params: dict[str, Any]) -> None:
    """Changing one agent's end-of-game info (its arrays too) leaves the others' alone, and the
    readable result (``result_details()``) too."""
    env = make(name, **params)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    while not all(env.terminations.values()):
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    first, *others = env.possible_agents
    before = [info_key(env.infos[a]) for a in others]
    for value in env.infos[first].values():
        if isinstance(value, np.ndarray):
            value[...] = 99
    env.infos[first]["extra"] = 1
    assert [info_key(env.infos[a]) for a in others] == before
    assert env.result_details() == env.game.result_info()


@pytest.mark.parametrize("name", ENVS)
def test_observe_and_spaces_of_an_unknown_agent_list_the_agents(name: str) -> None:
    env = make(name)
    env.reset(seed=0)
    valid = ", ".join(env.possible_agents)
    for call in (env.observe, env.observation_space, env.action_space):
        for bad in ("nobody", 0, None):
            with pytest.raises(InvalidParameterError, match=f"unknown agent {bad!r}.*{valid}"):
                call(bad)


@pytest.mark.parametrize("name", ENVS)
def test_reset_accepts_none_and_non_negative_integer_seeds_only(name: str) -> None:
    env = make(name)
    for bad in (-1, 3.0, "3", True, np.int64(-2), [1]):
        with pytest.raises(InvalidParameterError, match="seed must be None or a non-negative"):
            env.reset(seed=bad)
    env.reset(seed=np.int64(7))
    numpy_seeded = env.game.clone()
    env.reset(seed=7)
    assert env.game == numpy_seeded
    env.reset(seed=None)
    env.reset(seed=0)
