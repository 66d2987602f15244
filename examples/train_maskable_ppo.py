"""Train MaskablePPO on any registered env against a fixed opponent; plot its win rate.

    python examples/train_maskable_ppo.py --env iris_v0 --timesteps 200000 --opponent random
    python examples/train_maskable_ppo.py --env irk_v0 --env-arg num_players=2 --opponent greedy

Writes ``model.zip``, ``results.json`` (config, periodic and final evaluations) and
``winrate.png`` into ``--out`` (default ``runs/latest``), with a progress bar while training,
and prints the final win rate (seats alternated, 95% Wilson interval). ``--help`` lists the
hyper-parameters. Needs the ``train`` extra: ``pip install torch==2.13.0`` then
``pip install -e ".[train]"``.

What it runs, spelled out (see ``tabletop_envs.training.train.train``)::

    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv
    from tabletop_envs.agents import make_agent
    from tabletop_envs.training import SingleAgentEnv
    from tabletop_envs.training.train import sb3_logger

    vec = DummyVecEnv([lambda: SingleAgentEnv("iris_v0", opponent=make_agent("random"))] * 4)
    model = MaskablePPO("MlpPolicy", vec, gamma=1.0, ent_coef=0.01)
    model.set_logger(sb3_logger())  # no empty /tmp/SB3-<time> folder
    model.learn(200_000, progress_bar=True)
"""

from __future__ import annotations

import sys

from tabletop_envs.training.train import run_command

if __name__ == "__main__":
    sys.exit(run_command(sys.argv[1:], prog="train_maskable_ppo.py"))
