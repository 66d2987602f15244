"""What every view takes as an action: integer ids, NumPy integer scalars and 0-d integer arrays
(what ``Discrete.contains`` accepts and vectorised clients such as AgileRL pass); anything else
is an illegal action, penalized or raised per ``illegal_action`` as in the AEC env."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tabletop_envs.agents.single_agent import make_single_agent_env
from tabletop_envs.core.errors import IllegalActionError
from tabletop_envs.envs.registry import make, make_parallel, registered_envs

#: Each env at its default parameters, and with three players where it has them.
VIEWS = [
    *[pytest.param(name, {}, id=name) for name in registered_envs()],
    pytest.param("irk_v0", {"num_players": 3}, id="irk_v0[num_players=3]"),
    pytest.param("isis_osiris_v0", {"num_players": 3}, id="isis_osiris_v0[num_players=3]"),
]
DTYPES = [np.int64, np.int32, np.uint16]


def _middle(mask: np.ndarray) -> int:
    """Return a legal action from the middle of ``mask`` (the ends may be a pass or resign)."""
    legal = np.flatnonzero(mask)
    return int(legal[len(legal) // 2])


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize(("name", "params"), VIEWS)
def test_aec_plays_a_0d_integer_array(name: str, params: dict[str, Any], dtype: type) -> None:
    env = make(name, **params)
    env.reset(seed=3)
    obs, *_ = env.last()
    action = _middle(obs["action_mask"])
    env.step(np.array(action, dtype=dtype))
    assert env.game.actions == [action]
    assert not any(env.terminations.values()), env.infos


@pytest.mark.parametrize(("name", "params"), VIEWS)
def test_parallel_plays_0d_integer_arrays(name: str, params: dict[str, Any]) -> None:
    env = make_parallel(name, **params)
    observations, _ = env.reset(seed=5)
    for _ in range(3):  # a few steps: Irk's first is a simultaneous round of every seat
        actions = {
            agent: np.array(_middle(obs["action_mask"]))
            for agent, obs in observations.items()
            if obs["action_mask"].any()
        }
        before = len(env.game.actions)
        observations, _, terms, _, infos = env.step(actions)
        assert not any(info["illegal_action"] for info in infos.values()), infos
        assert sorted(env.game.actions[before:]) == sorted(int(a) for a in actions.values())
        assert not any(terms.values())


@pytest.mark.parametrize(("name", "params"), VIEWS)
def test_gymnasium_view_plays_a_0d_integer_array(name: str, params: dict[str, Any]) -> None:
    env = make_single_agent_env(name, illegal_action="raise", **params)
    env.reset(seed=7)
    action = _middle(env.action_masks())
    before = len(env.game.actions)
    *_, info = env.step(np.array(action))
    assert env.game.actions[before] == action
    assert not info["illegal_action"]
    env.step(np.int32(_middle(env.action_masks())))  # a NumPy integer scalar too


def _refused(action: int) -> list[Any]:
    """Actions the gymnasium view refuses although some of them hold the id ``action``."""
    return [
        float(action) + 0.7,
        float(action),
        True,
        np.bool_(False),
        str(action),
        None,
        [],
        [action, 0],
        [action],
        np.array([action]),  # shape (1,): not in Discrete; a 0-d array or a scalar is
        np.array(float(action)),
    ]


@pytest.mark.parametrize(("name", "params"), VIEWS)
def test_gymnasium_view_raises_on_what_the_aec_env_calls_illegal(
    name: str, params: dict[str, Any]
) -> None:
    env = make_single_agent_env(name, illegal_action="raise", **params)
    env.reset(seed=11)
    legal = int(np.flatnonzero(env.action_masks())[0])
    text, mask = env.game.to_json(), env.action_masks()
    for action in _refused(legal):
        with pytest.raises(IllegalActionError):
            env.step(action)
        assert env.game.to_json() == text, f"refused {action!r} changed the game"
        assert (env.action_masks() == mask).all()
    *_, info = env.step(legal)  # the episode goes on
    assert not info["illegal_action"]


@pytest.mark.parametrize(("name", "params"), VIEWS)
def test_gymnasium_view_penalizes_what_the_aec_env_calls_illegal(
    name: str, params: dict[str, Any]
) -> None:
    env = make_single_agent_env(name, **params)
    env.reset(seed=13)
    legal = int(np.flatnonzero(env.action_masks())[0])
    for action in _refused(legal):
        env.reset(seed=13)
        text = env.game.to_json()
        _, reward, terminated, truncated, info = env.step(action)
        assert (reward, terminated, truncated) == (-1.0, True, False), action
        assert info["illegal_action"] is True, info
        assert "illegal" in env.result_details()["illegal_action"][f"player_{env.learner_seat}"]
        assert env.game.to_json() == text, f"refused {action!r} changed the game"
        assert not env.action_masks().any()
