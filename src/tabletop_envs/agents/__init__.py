"""Baseline agents built on the core contract: random, greedy (one-ply heuristic), planner (Irk)
and MCTS.

Build one by name with :func:`make_agent` (``"random"``, ``"greedy"``, ``"planner"``,
``"mcts:iterations=400"``, ``"sb3:model.zip"``); see ``docs/agents.md``.
"""

from tabletop_envs.agents.base import Agent, RandomAgent
from tabletop_envs.agents.greedy import GreedyAgent, PlannerAgent, register_heuristic
from tabletop_envs.agents.mcts import MCTSAgent
from tabletop_envs.agents.registry import agent_names, make_agent, register_agent

__all__ = [
    "Agent",
    "GreedyAgent",
    "MCTSAgent",
    "PlannerAgent",
    "RandomAgent",
    "agent_names",
    "make_agent",
    "register_agent",
    "register_heuristic",
]
