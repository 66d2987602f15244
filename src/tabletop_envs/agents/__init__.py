"""Baseline agents built on the core contract."""

from tabletop_envs.agents.base import Agent, RandomAgent

__all__ = ["Agent", "RandomAgent"]
