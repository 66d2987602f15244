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
from tabletop_envs.training.ppo.policies import planes_section


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
    from tabletop_envs.training.ppo.evaluation import evaluate
    from tabletop_envs.training.train import main

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


def test_footprint_head_adds_each_covered_cell_dot_its_query() -> None:
    from tabletop_envs.games.irk.placement import FOOTPRINTS
    from tabletop_envs.training.cnn import CellsHead

    t, d, channels, g = 6, 3, 4, 5
    head = CellsHead(g, channels, (t, t), d + t * t * 4, footprint=FOOTPRINTS)
    torch.manual_seed(0)
    features = torch.randn(2, g + channels * t * t)
    logits = head(features).detach()
    with torch.no_grad():
        plain = features[:, g:].reshape(2, channels, t, t)
        base = head.cell(plain) + head.cell_bias(features[:, :g])[:, :, None, None]
        q = head.query(features[:, :g]).reshape(2, 4, 3, channels)
    for b in range(2):
        for r in range(t):
            for c in range(t):
                for o, cells in enumerate(FOOTPRINTS):
                    want = float(base[b, o, r, c])
                    for k, (dr, dc) in enumerate(cells):
                        rr, cc = r + dr, c + dc
                        if 0 <= rr < t and 0 <= cc < t:  # off-table cells add nothing
                            want += float(plain[b, :, rr, cc] @ q[b, o, k])
                    got = float(logits[b, d + (r * t + c) * 4 + o])
                    assert got == pytest.approx(want, abs=1e-5)


def test_footprint_head_rejects_a_footprint_that_does_not_fit() -> None:
    from tabletop_envs.training.cnn import CellsHead

    with pytest.raises(ValueError, match="footprint needs 4 entries"):
        CellsHead(2, 4, (5, 5), 3 + 25 * 4, footprint=[[(0, 0)]] * 3)
    with pytest.raises(ValueError, match="footprint needs 4 entries"):
        CellsHead(2, 4, (5, 5), 3 + 25 * 4, footprint=[[(0, 0)], [(0, 0), (1, 0)]] * 2)


def test_train_footprint_head_with_group_planes_then_reload(tmp_path: Path) -> None:
    from tabletop_envs.agents import make_agent
    from tabletop_envs.games.irk.placement import FOOTPRINTS
    from tabletop_envs.training.train import main

    out = tmp_path / "footprint"
    args = [
        "--env", "irk_v0", "--env-arg", "table_size=9", "--env-arg", "group_planes=true",
        "--policy", "cells", "--footprint-head", "--cnn-channels", "4", "--cnn-layers", "2",
        "--net-arch", "16", "--timesteps", "128", "--n-envs", "2", "--n-steps", "32",
        "--batch-size", "32", "--n-epochs", "1", "--eval-every", "0", "--final-eval-games", "2",
        "--no-progress", "--out", str(out),
    ]  # fmt: skip
    assert main(args) == 0
    assert json.loads((out / "results.json").read_text())["config"]["footprint_head"] is True
    agent = make_agent(f"sb3:{out / 'model.zip'}", "irk_v0")
    assert agent.model.policy.action_net.footprint == FOOTPRINTS  # rebuilt from the zip


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--env", "irk_v0", "--policy", "mlp"], "--footprint-head needs policy 'cells'"),
        (["--env", "iris_v0", "--policy", "cells"], "declares no cell_action_footprint"),
    ],
)
def test_footprint_head_needs_cells_and_a_game_that_declares_it(
    tmp_path: Path, extra: list[str], message: str
) -> None:
    from tabletop_envs.training.train import main

    args = [*extra, "--footprint-head", "--timesteps", "64", "--out", str(tmp_path / "x")]
    with pytest.raises(ValueError, match=message):
        main(args)


def test_values_head_adds_the_best_weighting_of_each_actions_values() -> None:
    from tabletop_envs.training.cnn import CellsHead

    t, d, channels, g, f, k = 4, 3, 2, 5, 5, 3
    n_actions = d + t * t * 4
    head = CellsHead(g, channels, (t, t), n_actions, values=f, mixtures=k)
    torch.manual_seed(1)
    features = torch.randn(2, g + channels * t * t + n_actions * f)
    logits = head(features).detach()
    with torch.no_grad():
        plain = features[:, g : g + channels * t * t].reshape(2, channels, t, t)
        base = head.cell(plain) + head.cell_bias(features[:, :g])[:, :, None, None]
        other = head.other(features[:, :g])
        cell_weights = head.weigh(features[:, :g]).reshape(2, k, f)
        other_weights = head.weigh_other(features[:, :g]).reshape(2, k, f)
    values = features[:, g + channels * t * t :].reshape(2, n_actions, f)
    for b in range(2):
        for a in range(d):  # the choose actions: their own weightings
            best = max(float(other_weights[b, m] @ values[b, a]) for m in range(k))
            assert float(logits[b, a]) == pytest.approx(float(other[b, a]) + best, abs=1e-5)
        for r in range(t):
            for c in range(t):
                for o in range(4):
                    a = d + (r * t + c) * 4 + o
                    best = max(float(cell_weights[b, m] @ values[b, a]) for m in range(k))
                    got = float(logits[b, a])
                    assert got == pytest.approx(float(base[b, o, r, c]) + best, abs=1e-5)


def test_cells_policy_reads_irk_action_values_then_reloads(tmp_path: Path) -> None:
    from tabletop_envs.agents import make_agent
    from tabletop_envs.training.ppo.policies import action_values_section
    from tabletop_envs.training.train import main

    kwargs = {"table_size": 9, "action_values": True}
    game_class = env_spec("irk_v0").load_game()
    layout = game_class(game_class.params_class(**kwargs), 0).layout
    part = layout.slice("action_values")
    assert action_values_section("irk_v0", kwargs) == (part.start, (30 + 9 * 9 * 4) * 5)
    assert action_values_section("irk_v0", {"table_size": 9}) is None
    assert action_values_section("iris_v0") is None
    out = tmp_path / "values"
    args = [
        "--env", "irk_v0", "--env-arg", "table_size=9", "--env-arg", "action_values=true",
        "--policy", "cells", "--value-mixtures", "2", "--cnn-channels", "4", "--cnn-layers", "2",
        "--net-arch", "16", "--imitate", "greedy", "--imitate-episodes", "4",
        "--imitate-epochs", "1", "--timesteps", "64", "--n-envs", "2", "--n-steps", "32",
        "--batch-size", "32", "--n-epochs", "1", "--eval-every", "0", "--final-eval-games", "2",
        "--no-progress", "--out", str(out),
    ]  # fmt: skip
    assert main(args) == 0
    assert json.loads((out / "results.json").read_text())["config"]["value_mixtures"] == 2
    agent = make_agent(f"sb3:{out / 'model.zip'}", "irk_v0")
    head = agent.model.policy.action_net
    assert (head.values, head.mixtures) == (5, 2)  # rebuilt from the zip
    extractor = agent.model.policy.features_extractor
    assert (extractor.values.start, extractor.values_length) == (part.start, (30 + 9 * 9 * 4) * 5)


def test_value_mixtures_must_be_positive(tmp_path: Path) -> None:
    from tabletop_envs.training.train import main

    args = ["--env", "irk_v0", "--policy", "cells", "--value-mixtures", "0", "--timesteps", "64"]
    with pytest.raises(ValueError, match="--value-mixtures must be at least 1, got 0"):
        main([*args, "--out", str(tmp_path / "x")])
