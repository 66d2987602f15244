"""Evaluation opponents are single agents: a training pool spec ("a+b") is refused up front."""

from __future__ import annotations

import pytest

pytest.importorskip("sb3_contrib")

from tabletop_envs.training.ppo.config import TrainConfig
from tabletop_envs.training.ppo.run import train


@pytest.mark.parametrize(
    "config",
    [
        {"eval_opponent": "random+greedy"},
        {"opponent": "random", "final_eval_opponents": ("greedy+random",)},
    ],
)
def test_a_pool_is_not_an_evaluation_opponent(config, tmp_path):
    # Before: an OpponentPool reached evaluate(), which has no reset/act for it (AttributeError
    # after the whole training run for the final opponents). Now make_agent names the bad spec.
    with pytest.raises(ValueError, match=r"unknown agent '(random\+greedy|greedy\+random)'"):
        train(
            TrainConfig(
                timesteps=64,
                n_envs=1,
                n_steps=32,
                batch_size=32,
                eval_every=0,
                final_eval_games=2,
                out=str(tmp_path),
                progress_bar=False,
                **config,
            )
        )
