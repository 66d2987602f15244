"""The Parallel view of every case: PettingZoo's parallel tests, seeding, and agreement with AEC.

Every step of the Parallel view plays the core's ``acting_seats()`` at once. The differential
test replays each Parallel game in the AEC env (same seed, same actions, the acting seats one
after another) and requires the same observations, masks, rewards and result infos.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test

from tabletop_envs import IllegalActionError, iris_v0, irk_v0, isis_osiris_v0
from tabletop_envs.envs.registry import make, make_parallel
from tests.conformance.cases import CASES, ENVS, assert_same_obs, random_trajectory

#: Warnings for Dict observations (as in ``test_conformance_pettingzoo``).
EXPECTED_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box",
)


def _no_unexpected_warnings(caught: list[warnings.WarningMessage]) -> None:
    unexpected = {
        str(w.message)
        for w in caught
        if not any(str(w.message).startswith(msg) for msg in EXPECTED_WARNINGS)
    }
    assert not unexpected, f"unexpected warnings: {sorted(unexpected)}"


@pytest.mark.parametrize("illegal_action", ["penalize", "raise"])
@pytest.mark.parametrize(("name", "params"), CASES)
def test_parallel_api_test(name: str, params: dict[str, Any], illegal_action: str) -> None:
    """``parallel_api_test`` passes (it samples every live agent's action with its mask)."""
    env = make_parallel(name, illegal_action=illegal_action, **params)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parallel_api_test(env, num_cycles=1000)
    _no_unexpected_warnings(caught)


@pytest.mark.parametrize(("name", "params"), CASES)
def test_parallel_seed_test(name: str, params: dict[str, Any]) -> None:
    """PettingZoo's ``parallel_seed_test`` (unmasked samples: the first illegal one ends it)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parallel_seed_test(lambda: make_parallel(name, **params))
    _no_unexpected_warnings(caught)


def _masked_play(env: Any, seed: int, junk: bool = False) -> list[tuple[Any, ...]]:
    """Play one game with seeded random legal actions; return every step's outputs.

    With ``junk``, agents that do not act send an out-of-range action (it must be ignored).
    """
    rng = np.random.default_rng(seed)
    obs, infos = env.reset(seed=seed)
    trace: list[tuple[Any, ...]] = [(obs, infos)]
    while env.agents:
        played = {}
        for agent in env.agents:
            legal = np.flatnonzero(obs[agent]["action_mask"])
            if len(legal):
                played[agent] = int(legal[rng.integers(len(legal))])
        junk_entries = {a: -7 for a in env.agents if a not in played} if junk else {}
        obs, rewards, terms, truncs, infos = env.step({**played, **junk_entries})
        trace.append((played, obs, rewards, terms, truncs, infos))
    return trace


def _same_trace(a: list[tuple[Any, ...]], b: list[tuple[Any, ...]]) -> bool:
    """Return whether two traces of :func:`_masked_play` are identical."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        for u, v in zip(x, y, strict=True):
            if u.keys() != v.keys():
                return False
            for key in u:
                p, q = u[key], v[key]
                if isinstance(p, dict) and p and isinstance(next(iter(p.values())), np.ndarray):
                    if any(not np.array_equal(p[k], q[k]) for k in p):
                        return False
                elif p != q:
                    return False
    return True


@pytest.mark.parametrize(("name", "params"), CASES)
def test_parallel_seeded_games_replay_and_non_movers_are_ignored(
    name: str, params: dict[str, Any]
) -> None:
    """The same seed and legal actions replay the same game, whatever non-movers send."""
    first = _masked_play(make_parallel(name, **params), seed=5)
    assert _same_trace(first, _masked_play(make_parallel(name, **params), seed=5))
    assert _same_trace(first, _masked_play(make_parallel(name, **params), seed=5, junk=True))
    assert not _same_trace(first, _masked_play(make_parallel(name, **params), seed=6))
    *_, (_, _, rewards, terms, truncs, infos) = first
    assert all(terms.values()) and not any(truncs.values())
    assert all(info and "illegal_action" not in info for info in infos.values())
    assert set(rewards) == set(make(name, **params).possible_agents)


@pytest.mark.parametrize(("name", "params"), CASES)
def test_acting_seats_and_their_masks(name: str, params: dict[str, Any]) -> None:
    """The mover acts first; its ``legal_mask_of`` is ``legal_mask``; non-acting seats get zeros."""
    for game in random_trajectory(name, params, seed=3):
        acting = game.acting_seats()
        if game.is_terminal:
            assert acting == ()
        else:
            assert acting[0] == game.current_player and len(set(acting)) == len(acting)
            assert np.array_equal(game.legal_mask_of(game.current_player), game.legal_mask())
        for seat in range(game.num_players):
            if seat not in acting:
                assert not game.legal_mask_of(seat).any()


def _acting(obs: dict[str, dict[str, np.ndarray]]) -> list[str]:
    return [agent for agent, o in obs.items() if o["action_mask"].any()]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(("name", "params"), CASES)
def test_parallel_view_matches_the_aec_env(name: str, params: dict[str, Any], seed: int) -> None:
    """Same seed, same actions: same observations, masks, rewards and outcome as AEC.

    Before each Parallel step every agent's observation equals its AEC observation at the start
    of the step; each acting agent's mask equals its AEC mask when its turn comes (the acting
    agents play in the order ``agent_selection`` takes them); the others' masks are zeros.
    """
    par = make_parallel(name, **params)
    aec = make(name, **params)
    rng = np.random.default_rng(seed)
    obs, _ = par.reset(seed=seed)
    aec.reset(seed=seed)
    while par.agents:
        for agent in par.agents:
            assert np.array_equal(obs[agent]["observation"], aec.observe(agent)["observation"])
        acting = _acting(obs)
        assert acting, "a live game has an acting agent"
        actions = {}
        for _ in acting:
            agent = aec.agent_selection
            assert agent in acting, f"AEC moves {agent}, the Parallel step lets {acting} act"
            assert np.array_equal(obs[agent]["action_mask"], aec.observe(agent)["action_mask"])
            legal = np.flatnonzero(obs[agent]["action_mask"])
            actions[agent] = int(legal[rng.integers(len(legal))])
            aec.step(actions[agent])
        assert sorted(actions) == sorted(acting)
        obs, rewards, terms, _, infos = par.step(actions)
        assert rewards == aec.rewards
        assert terms == aec.terminations
        assert infos == aec.infos
    assert all(aec.terminations.values())
    for agent in aec.possible_agents:
        assert_same_obs(obs[agent], aec.observe(agent), f"final view of {agent}")


@pytest.mark.parametrize("name", ENVS)
def test_parallel_errors(name: str) -> None:
    """Missing movers, unknown agents, steps before reset and after the end are errors."""
    env = make_parallel(name, illegal_action="raise")
    with pytest.raises(RuntimeError, match="reset"):
        env.step({})
    obs, _ = env.reset(seed=0)
    with pytest.raises(TypeError, match="dict"):
        env.step([0])
    with pytest.raises(ValueError, match="every acting agent"):
        env.step({})
    with pytest.raises(ValueError, match="unknown agents"):
        env.step({"player_9": 0, **{a: 0 for a in env.agents}})
    before = env.game.to_json()
    mover = _acting(obs)[0]
    illegal = int(np.flatnonzero(obs[mover]["action_mask"] == 0)[0])
    actions = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in _acting(obs)}
    with pytest.raises(IllegalActionError):
        env.step({**actions, mover: illegal})
    with pytest.raises(IllegalActionError):
        env.step({**actions, mover: 1.0})
    assert env.game.to_json() == before, "a rejected step left the game changed"
    env.step(actions)  # play goes on


@pytest.mark.parametrize("name", ENVS)
def test_parallel_illegal_action_is_penalized(name: str) -> None:
    """Under ``penalize`` an illegal action ends the game: -1 for its player, 0 for the others."""
    env = make_parallel(name)
    obs, _ = env.reset(seed=0)
    mover = _acting(obs)[-1]
    actions = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in _acting(obs)}
    actions[mover] = int(np.flatnonzero(obs[mover]["action_mask"] == 0)[0])
    before = env.game.to_json()
    obs, rewards, terms, truncs, infos = env.step(actions)
    assert rewards == {a: -1.0 if a == mover else 0.0 for a in env.possible_agents}
    assert all(terms.values()) and not any(truncs.values()) and env.agents == []
    assert "illegal_action" in infos[mover]
    assert all(not o["action_mask"].any() for o in obs.values())
    assert env.game.to_json() == before


def test_versioned_modules_offer_parallel_env() -> None:
    for module, name in (
        (iris_v0, "iris_v0"),
        (isis_osiris_v0, "isis_osiris_v0"),
        (irk_v0, "irk_v0"),
    ):
        env = module.parallel_env()
        assert str(env) == name and env.illegal_action == "penalize"


@pytest.mark.parametrize("name", ENVS)
def test_is_parallelizable_tells_the_truth(name: str) -> None:
    """AEC envs are not parallel envs in disguise (a mover sees earlier moves); views are."""
    assert make(name).metadata["is_parallelizable"] is False
    assert make_parallel(name).metadata["is_parallelizable"] is True
