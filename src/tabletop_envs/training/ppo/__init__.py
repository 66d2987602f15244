"""MaskablePPO training, in small rooms: one concern per module.

- :mod:`~tabletop_envs.training.ppo.config`: :class:`TrainConfig`, every setting declared once;
- :mod:`~tabletop_envs.training.ppo.cli`: the command line generated from it;
- :mod:`~tabletop_envs.training.ppo.run`: :func:`train`, one run step by step;
- :mod:`~tabletop_envs.training.ppo.policies`: the policy network (mlp, cnn, cells);
- :mod:`~tabletop_envs.training.ppo.opponents`: opponents and the training envs;
- :mod:`~tabletop_envs.training.ppo.pretrain`: imitation before PPO (rounds, DAgger);
- :mod:`~tabletop_envs.training.ppo.evaluation`: seat-alternated evaluation and its report.

Importing this package imports neither torch nor stable-baselines3.
"""

from tabletop_envs.training.ppo.config import TrainConfig

__all__ = ["TrainConfig"]
