"""Self-play with a Gumbel root (``AZConfig.root = "gumbel"``): its rows and a CI-sized run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("tqdm")

from tabletop_envs.agents.az import AZAgent, PolicyValueNet
from tabletop_envs.envs.registry import env_spec
from tabletop_envs.evaluation import play_game
from tabletop_envs.training import az


@pytest.mark.parametrize(
    ("env", "kwargs"),
    [("iris_v0", {"board_size": 3}), ("isis_osiris_v0", {"num_players": 3}), ("irk_v0", {})],
)
def test_gumbel_rows_are_improved_policies_over_the_legal_actions(env, kwargs) -> None:
    game_class = env_spec(env).load_game()
    params = game_class.params_class(**kwargs)
    game = game_class(params, 0)
    obs_dim = int(np.asarray(game.observation(0)).size)
    net = az.build_torch_net(obs_dim, game.spec.num_actions, (8,))
    config = az.AZConfig(
        env=env, env_kwargs=kwargs, hidden=(8,), games=2, simulations=6, root="gumbel",
        considered=4,
    )  # fmt: skip
    batch = az.self_play(
        az.torch_evaluator(net), game_class, params, config, np.random.default_rng(0), 0.3
    )
    np.testing.assert_allclose(batch.pi.sum(axis=1), 1.0, atol=1e-5)
    assert np.all(batch.pi[~batch.mask] == 0)
    searched = batch.mask.sum(axis=1) > 1
    # a softmax over every legal action: no legal action gets a zero target, unlike counts
    assert np.all(batch.pi[batch.mask & searched[:, None]] > 0)
    assert batch.searches == int(searched.sum()) > 0


def test_a_ci_sized_gumbel_run_writes_a_playable_model(tmp_path: Path) -> None:
    config = az.AZConfig(
        env="iris_v0", hidden=(16,), games=2, simulations=4, iterations=1, eval_every=1,
        eval_games=2, eval_simulations=2, final_eval_games=0, buffer_size=1000, batch_size=32,
        root="gumbel", considered=4, out=str(tmp_path / "run"), progress_bar=False,
    )  # fmt: skip
    az.train_az(config, log=lambda text: None)
    net = PolicyValueNet.load(Path(config.out) / "model.npz")
    game = env_spec("iris_v0").load_game().new(seed=1)
    agents = [AZAgent(net, simulations=4, root="gumbel", seed=s) for s in range(2)]
    assert play_game(game, agents, ["a", "b"]) > 0 and game.is_terminal
