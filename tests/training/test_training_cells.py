"""The layout-aware ``cells`` policy: SectionsCNN features and a per-cell action head."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

if os.environ.get("CI") == "true":
    import sb3_contrib  # noqa: F401  CI installs the train extra: missing, it must fail, not skip
else:
    pytest.importorskip("sb3_contrib")

import torch

from tabletop_envs.envs.registry import env_spec
from tabletop_envs.training.train import planes_section


def test_planes_section_finds_irk_table_and_iris_planes() -> None:
    game_class = env_spec("irk_v0").load_game()
    layout = game_class(game_class.params_class(table_size=7), 0).layout
    start, shape = planes_section("irk_v0", {"table_size": 7})
    assert (start, shape) == (layout.start["table"], (7, 7, 11))
    iris_class = env_spec("iris_v0").load_game()
    iris_shape = iris_class(iris_class.params_class(), 0).spec.observation_shape
    assert planes_section("iris_v0") == (0, tuple(iris_shape))


def test_cells_head_orders_logits_row_col_then_orientation() -> None:
    from tabletop_envs.training.cnn import CellsHead

    t, d, channels = 5, 3, 4
    head = CellsHead(global_dim=2, channels=channels, hw=(t, t), n_actions=d + t * t * 4)
    assert (head.n_other, head.per_cell) == (d, 4)
    with torch.no_grad():
        for p in head.parameters():
            p.zero_()
        head.cell.weight.copy_(torch.eye(4).reshape(4, 4, 1, 1))  # logit k = map channel k
    features = torch.zeros(1, 2 + channels * t * t)
    grid = features[0, 2:].view(channels, t, t)
    grid[:, 3, 1] = torch.tensor([1.0, 2.0, 3.0, 4.0])
    logits = head(features)[0].detach().numpy()
    expected = np.zeros(d + t * t * 4)
    first = d + (3 * t + 1) * 4
    expected[first : first + 4] = [1, 2, 3, 4]
    np.testing.assert_array_equal(logits, expected)


def test_train_cells_policy_on_small_irk_then_reload(tmp_path: Path) -> None:
    from tabletop_envs.agents import make_agent
    from tabletop_envs.training.train import evaluate, main

    out = tmp_path / "cells"
    args = [
        "--env", "irk_v0", "--env-arg", "table_size=9", "--policy", "cells",
        "--cnn-channels", "4", "--cnn-layers", "2", "--net-arch", "16", "--timesteps", "128",
        "--n-envs", "2", "--n-steps", "32", "--batch-size", "32", "--n-epochs", "1",
        "--eval-every", "0", "--final-eval-games", "2", "--no-progress", "--out", str(out),
    ]  # fmt: skip
    assert main(args) == 0
    results = json.loads((out / "results.json").read_text())
    assert results["config"]["policy"] == "cells" and results["final"]["games"] == 2
    agent = make_agent(f"sb3:{out / 'model.zip'}", "irk_v0")  # CellsPolicy reloads from the zip
    assert type(agent.model.policy).__name__ == "CellsPolicy"
    result = evaluate(
        agent, make_agent("random", "irk_v0", 1), "irk_v0", games=2, env_kwargs={"table_size": 9}
    )
    assert result["wins"] + result["draws"] + result["losses"] == 2
