"""Who the learner plays: opponents from agent specs, and the training envs built around them.

Needs neither torch nor SB3 (a model ``.zip`` opponent loads them when it is made).
"""

from __future__ import annotations

from collections.abc import Callable

from tabletop_envs.agents.base import Agent
from tabletop_envs.agents.single_agent import OpponentPool, SingleAgentEnv
from tabletop_envs.training.ppo.config import TrainConfig, agent_spec


def make_opponent(spec: str, env_name: str, seed: int | None = None) -> Agent | OpponentPool:
    """Build an opponent from a :func:`tabletop_envs.agents.make_agent` spec or a model .zip.

    ``a+b+…`` builds a pool of several, one drawn per episode (e.g. ``random+greedy``).
    """
    if "+" in spec:
        parts = [p for p in spec.split("+") if p]
        return OpponentPool(
            [
                single_opponent(p, env_name, None if seed is None else seed + i)
                for i, p in enumerate(parts)
            ]
        )
    return single_opponent(spec, env_name, seed)


def single_opponent(spec: str, env_name: str, seed: int | None) -> Agent:
    """Build one agent (no ``a+b`` pool: ``make_agent`` refuses it, naming the spec).

    A path ending in ``.zip`` is a saved MaskablePPO model (``sb3:PATH``).
    """
    from tabletop_envs.agents import make_agent

    return make_agent(agent_spec(spec), env_name, seed)


def env_factory(config: TrainConfig, rank: int) -> Callable[[], SingleAgentEnv]:
    """Return a builder of training env ``rank``: its opponent seeded ``seed * 1000 + rank``."""

    def build() -> SingleAgentEnv:
        opponent = make_opponent(config.opponent, config.env, config.seed * 1000 + rank)
        return SingleAgentEnv(
            config.env,
            opponent=opponent,
            learner_seat=config.learner_seat,
            reward=config.reward,
            reward_scale=config.reward_scale,
            env_kwargs=config.env_kwargs,
        )

    return build
