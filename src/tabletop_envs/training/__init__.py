"""Training (the top layer): MaskablePPO (:mod:`~tabletop_envs.training.ppo`, entry point
:mod:`~tabletop_envs.training.train`), imitation, the SB3 and RLlib glue, AlphaZero (``az``).

Importing this package imports neither torch nor stable-baselines3 (only the ``train`` extra's
entry points such as :mod:`tabletop_envs.training.train` do, when they run). The single-agent
view learners train on lives in :mod:`tabletop_envs.agents.single_agent`; its names stay
importable from here.
"""

from tabletop_envs.agents.single_agent import OpponentPool, SingleAgentEnv
from tabletop_envs.training.sb3 import PolicyAgent

__all__ = ["OpponentPool", "PolicyAgent", "SingleAgentEnv"]
