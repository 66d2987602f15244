"""Training glue: the SB3 single-agent adapter, evaluation arena and training entry point.

Importing this package imports neither torch nor stable-baselines3 (only the ``train`` extra's
entry points such as :mod:`tabletop_envs.training.train` do, when they run).
"""

from tabletop_envs.training.sb3 import OpponentPool, PolicyAgent, SingleAgentEnv

__all__ = ["OpponentPool", "PolicyAgent", "SingleAgentEnv"]
