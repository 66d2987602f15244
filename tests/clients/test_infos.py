"""Issue 23, items 3 and 4: every view puts the action mask in the infos (the observation's own
array), and the infos keep one layout (keys, shapes, dtypes) per env and parameters at every
step of every game, the end included; the readable result is ``result_details()``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tabletop_envs.agents.single_agent import make_single_agent_env
from tabletop_envs.envs.registry import make, make_parallel
from tests.clients.configs import CONFIGS, label

SEEDS = range(3)


def info_layout(info: dict[str, Any]) -> dict[str, Any]:
    """Return per key the dtype and shape of an array, the type of anything else."""
    return {
        k: (v.dtype.str, v.shape) if isinstance(v, np.ndarray) else type(v) for k, v in info.items()
    }


def _obs_type(obs_type: str) -> dict[str, str]:
    """Return the keyword of ``obs_type``: none for the default (so these tests run against
    the library before ``obs_type`` existed too, and fail there for what they check)."""
    return {} if obs_type == "dict" else {"obs_type": obs_type}


def _won(details: dict[str, Any]) -> list[int]:
    """Return the winning seats of a readable result (Iris names one ``winner`` or None)."""
    if "winners" in details:
        return list(details["winners"])
    return [] if details["winner"] is None else [details["winner"]]


def _check_result(info: dict[str, Any], details: dict[str, Any], n: int, where: str) -> None:
    """The result arrays of the infos say what the readable result says."""
    assert info["winners"].tolist() == [int(s in _won(details)) for s in range(n)], where
    if "group_scores" in details:  # Iris: one row per seat, padded with zeros
        for seat, groups in enumerate(details["group_scores"]):
            count = info["group_counts"][seat]
            assert count == len(groups) and info["group_scores"][seat, :count].tolist() == groups
            assert not info["group_scores"][seat, count:].any(), where
    for key in ("scores", "totals", "star_totals", "points", "counts", "stars", "table_values"):
        if key in details:
            assert info[key].tolist() == details[key], f"{where}: {key}"


def _expected_mask(env: Any, agent: str) -> np.ndarray:
    game = env.game
    if game.is_terminal or env.agent_selection != agent or env.terminations[agent]:
        return np.zeros(game.spec.num_actions, dtype=np.int8)
    return game.legal_mask()


@pytest.mark.parametrize("obs_type", ["dict", "box"])
@pytest.mark.parametrize(("name", "params"), CONFIGS)
def test_aec_infos_hold_the_mask_and_keep_one_layout(
    name: str, params: dict[str, Any], obs_type: str
) -> None:
    env = make(name, **params, **_obs_type(obs_type))
    layout = None
    for seed in SEEDS:
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for agent in env.agent_iter():
            obs, _, terminated, truncated, info = env.last()
            where = f"{label(name, params)} seed {seed} step {len(env.game.actions)} {agent}"
            for other in env.agents:  # every agent, at every step
                mask = env.infos[other]["action_mask"]
                if obs_type == "dict":
                    assert env.observe(other)["action_mask"] is mask, where
                assert mask.dtype == np.int8 and np.array_equal(mask, _expected_mask(env, other))
                layout = layout or info_layout(env.infos[other])
                assert info_layout(env.infos[other]) == layout, f"{where}: {other}'s infos"
            if obs_type == "dict":
                assert obs["action_mask"] is info["action_mask"], where
            if terminated or truncated:
                _check_result(info, env.result_details(), len(env.possible_agents), where)
                env.step(None)
            else:
                env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))


@pytest.mark.parametrize("obs_type", ["dict", "box"])
@pytest.mark.parametrize(("name", "params"), CONFIGS)
def test_parallel_infos_hold_the_mask_and_keep_one_layout(
    name: str, params: dict[str, Any], obs_type: str
) -> None:
    env = make_parallel(name, **params, **_obs_type(obs_type))
    layout = None
    for seed in SEEDS:
        observations, infos = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while True:
            game = env.game
            where = f"{label(name, params)} seed {seed} step {len(game.actions)}"
            acting = game.acting_seats()
            for agent, info in infos.items():
                seat = env.possible_agents.index(agent)
                mask = info["action_mask"]
                if obs_type == "dict":
                    assert observations[agent]["action_mask"] is mask, where
                expected = game.legal_mask_of(seat) if seat in acting else 0 * mask
                assert mask.dtype == np.int8 and np.array_equal(mask, expected), where
                layout = layout or info_layout(info)
                assert info_layout(info) == layout, f"{where}: {agent}'s infos"
            if not env.agents:
                break
            actions = {
                agent: int(rng.choice(np.flatnonzero(info["action_mask"])))
                for agent, info in infos.items()
                if info["action_mask"].any()
            }
            observations, _, _, _, infos = env.step(actions)
        for info in infos.values():
            _check_result(info, env.result_details(), len(env.possible_agents), where)


@pytest.mark.parametrize(("name", "params"), CONFIGS)
def test_gymnasium_infos_hold_the_mask_and_keep_one_layout(
    name: str, params: dict[str, Any]
) -> None:
    env = make_single_agent_env(name, **params)
    layout = None
    for seed in SEEDS:
        _, info = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        done = False
        while True:
            where = f"{label(name, params)} seed {seed} step {len(env.game.actions)}"
            mask = info["action_mask"]
            assert mask.dtype == np.int8 and np.array_equal(mask, env.action_masks()), where
            layout = layout or info_layout(info)
            assert info_layout(info) == layout, where
            if done:
                break
            action = int(rng.choice(np.flatnonzero(mask)))
            _, _, done, _, info = env.step(action)
        assert info["learner_return"] == env.game.returns()[info["learner_seat"]]
        _check_result(info, env.result_details(), env.num_players, where)


@pytest.mark.parametrize(("name", "params"), CONFIGS)
def test_gymnasium_infos_share_no_array_between_calls(name: str, params: dict[str, Any]) -> None:
    """Every reset and step returns arrays of its own: the AEC env keeps one info dict per agent
    for a whole game, and Gymnasium's ``check_env`` from 1.3 on (what a plain install gets;
    ``ray[rllib]`` pins 1.2) refused the three ids for sharing its result arrays."""
    env = make_single_agent_env(name, **params)
    _, info = env.reset(seed=0)
    seen = [info]
    rng = np.random.default_rng(0)
    done = False
    while not done:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, _, done, _, info = env.step(action)
        seen.append(info)
    seen.append(env.reset(seed=0)[1])
    arrays = [id(v) for info in seen for v in info.values() if isinstance(v, np.ndarray)]
    assert len(arrays) == len(set(arrays)), label(name, params)


def test_a_penalized_illegal_action_sets_the_flag_and_details_say_why() -> None:
    env = make("iris_v0")
    env.reset(seed=0)
    layout = info_layout(env.infos["player_0"])
    env.step(env.pass_action)  # Black may not pass on the opening turn
    assert [env.infos[a]["illegal_action"] for a in env.possible_agents] == [True, False]
    assert all(info_layout(env.infos[a]) == layout for a in env.possible_agents)
    details = env.result_details()
    assert "may not pass" in details["illegal_action"]["player_0"], details
    env.reset(seed=0)
    assert env.result_details() == {}  # a new game forgets it
    assert not env.infos["player_0"]["illegal_action"]


@pytest.mark.parametrize(("name", "params"), CONFIGS)
def test_infos_have_one_layout_from_reset_to_the_end_of_every_game(
    name: str, params: dict[str, Any]
) -> None:
    """Item 4 alone: the same keys, shapes and dtypes after reset, during play and at the end,
    over games whose results differ (Iris: one to many groups, one or no winner)."""
    env = make(name, **params)
    layouts = set()
    for seed in range(6):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in env.agent_iter():
            *_, terminated, truncated, info = env.last()
            layouts.add(tuple(info_layout(info).items()))
            if terminated or truncated:
                env.step(None)
            else:
                env.step(int(rng.choice(np.flatnonzero(env.game.legal_mask()))))
    assert len(layouts) == 1, f"{label(name, params)}: {len(layouts)} layouts {layouts}"
