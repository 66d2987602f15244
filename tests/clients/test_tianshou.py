"""Tianshou's ``Collector`` over seeded episodes of every env and player count: a
``PettingZooEnv`` in a ``DummyVectorEnv`` of two, a ``MultiAgentPolicy`` of masked random
policies. The Collector stacks the infos of its envs into arrays; it crashed on games whose
end-of-game infos held lists of another length (issue 23, item 4)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

from tabletop_envs.envs.registry import make
from tests.clients.configs import CONFIGS, label, need

EPISODES = 6


def collect(name: str, params: dict[str, Any], seed: int, episodes: int = EPISODES) -> Any:
    """Collect ``episodes`` episodes of random legal play; return the stats and the buffer."""
    need("tianshou")
    from tianshou.algorithm.multiagent.marl import MultiAgentPolicy
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    def env_fn() -> Any:
        return PettingZooEnv(make(name, **params))

    probe = env_fn()
    envs = DummyVectorEnv([env_fn, env_fn])
    envs.seed(seed)
    random = MARLRandomDiscreteMaskedOffPolicyAlgorithm.Policy
    policy = MultiAgentPolicy({agent: random(probe.action_space) for agent in probe.agents})
    np.random.seed(seed)  # the random policy draws from NumPy's global generator
    buffer = VectorReplayBuffer(20_000, len(envs))
    collector = Collector(policy, envs, buffer)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Tianshou's note on per-agent reward vectors
        collector.reset()
        stats = collector.collect(n_episode=episodes)
    return stats, buffer


@pytest.mark.parametrize(("name", "params"), CONFIGS)
def test_the_collector_gathers_seeded_episodes(name: str, params: dict[str, Any]) -> None:
    stats, buffer = collect(name, params, seed=0)
    assert stats.n_collected_episodes == EPISODES, label(name, params)
    batch, _ = buffer.sample(0)  # every stored step
    n = len(make(name, **params).possible_agents)
    assert batch.info.winners.shape == (len(batch), n)  # one stacked array, not objects
    assert batch.info.action_mask.shape[1] == make(name, **params).game_spec.num_actions
    assert not batch.info.illegal_action.any(), "a masked random policy played an illegal move"
    finals = batch.info.winners[batch.terminated]
    assert len(finals) >= EPISODES and (finals.sum(axis=1) >= 0).all()


def test_the_collector_is_reproducible_per_seed() -> None:
    runs = [collect("irk_v0", {"num_players": 3}, seed=s)[0].n_collected_steps for s in (4, 4, 5)]
    assert runs[0] == runs[1], runs
