"""Agents built on the core contract: random, greedy (one-ply heuristic), planner (Irk), MCTS,
and AZ (PUCT guided by a policy-value network, numpy only).

Build one by name with :func:`make_agent` (``"random"``, ``"greedy"``, ``"planner"``,
``"mcts:iterations=400"``, ``"az:net.npz"``, ``"expert"``, ``"sb3:model.zip"``); see
``docs/agents.md``.
"""

from tabletop_envs.agents.az import AZAgent, PolicyValueNet
from tabletop_envs.agents.base import Agent, RandomAgent
from tabletop_envs.agents.greedy import GreedyAgent, PlannerAgent, register_heuristic
from tabletop_envs.agents.mcts import MCTSAgent
from tabletop_envs.agents.registry import agent_names, make_agent, register_agent

__all__ = [
    "AZAgent",
    "Agent",
    "GreedyAgent",
    "MCTSAgent",
    "PlannerAgent",
    "PolicyValueNet",
    "RandomAgent",
    "agent_names",
    "make_agent",
    "register_agent",
    "register_heuristic",
]
