"""The Parallel view's errors and metadata on every env.

(PettingZoo's parallel tests, seeded replays, acting seats and the agreement with the AEC env
of every case: the ``parallel`` check of ``tabletop_envs.testing``, run on every case by
``test_conformance_checks``.)
"""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_envs import IllegalActionError, iris_v0, irk_v0, isis_osiris_v0
from tabletop_envs.envs.registry import make, make_parallel
from tests.conformance.cases import ENVS


def _acting(obs: dict[str, dict[str, np.ndarray]]) -> list[str]:
    return [agent for agent, o in obs.items() if o["action_mask"].any()]


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
    assert {a: info["illegal_action"] for a, info in infos.items()} == {
        a: a == mover for a in env.possible_agents
    }
    assert "illegal" in env.result_details()["illegal_action"][mover]
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
