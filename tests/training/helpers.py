"""Shared helpers of the training tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tabletop_envs.core.game import GameState
from tabletop_envs.training import az


def tiny_az_config(tmp_path: Path, env: str = "iris_v0", **overrides: Any) -> az.AZConfig:
    """An AZ run of seconds: one hidden layer of 16, 2 games of 2 simulations a move."""
    settings: dict[str, Any] = {
        "env": env,
        "hidden": (16,),
        "games": 2,
        "simulations": 2,
        "iterations": 1,
        "eval_every": 1,
        "eval_games": 2,
        "eval_simulations": 1,
        "final_eval_games": 2,
        "buffer_size": 1000,
        "batch_size": 32,
        "out": str(tmp_path / "run"),
        "progress_bar": False,
    }
    settings.update(overrides)
    return az.AZConfig(**settings)


def probe_masks(game: GameState, rows: int, rng: np.random.Generator) -> np.ndarray:
    """Masks to compare two forward passes on: ``game``'s own legal actions (row 0), a single
    legal action (row 1), every action legal (row 2), random ones after."""
    actions = game.spec.num_actions
    mask = rng.random((rows, actions)) < 0.3
    mask[1] = False
    mask[1, actions - 1] = True
    mask[2] = True
    mask[0] = game.legal_mask().astype(bool)
    return mask
