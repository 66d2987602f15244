"""The conv network in training: the torch twin equals the numpy trunk, exports, trains, resumes.

``--arch conv`` puts a convolutional trunk over the game's board planes before the dense
layers (``search/network_layout.py``); the numpy forward pass must give what torch trains.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

if os.environ.get("CI") == "true":  # CI installs the train extra: missing, it must fail
    import torch
else:
    torch = pytest.importorskip("torch")

from tabletop_envs.agents.az import AZAgent, PolicyValueNet, encode
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.evaluation import play_game
from tabletop_envs.search.network import conv_meta
from tabletop_envs.training import az
from tabletop_envs.training.az.cli import build_parser, config_from_args
from tests.agents.helpers import case_id, env_cases, new_game
from tests.training.helpers import probe_masks, tiny_az_config

#: Every registered env and parameter set whose game declares board planes.
BOARD_CASES = [case for case in env_cases() if new_game(*case, 0).board_planes() is not None]


def _twin(game: Any, hidden: tuple[int, ...], blocks: int, seed: int = 3) -> Any:
    d, a = int(np.prod(game.spec.observation_shape)), game.spec.num_actions
    conv = conv_meta(game, channels=8, blocks=blocks, head_channels=4)
    net = az.build_torch_net(d, a, hidden, seed=seed, conv=conv)
    with torch.no_grad():  # sharper logits and values than the initial ones
        net["policy"].weight.mul_(4.0)
        net["value"].weight.mul_(4.0)
    return net


@pytest.mark.parametrize("case", BOARD_CASES, ids=[case_id(c) for c in BOARD_CASES])
def test_numpy_conv_forward_equals_torch(case: tuple[str, dict[str, Any]]) -> None:
    env, params = case
    game = new_game(env, params, 1)
    net = _twin(game, (16,), blocks=2)
    numpy_net = az.to_numpy_net(net, game)
    assert numpy_net.arch == "conv" and numpy_net.meta["version"] == 2
    rng = np.random.default_rng(0)
    d, a = numpy_net.obs_dim, numpy_net.num_actions
    obs = (rng.random((9, d)) < 0.2).astype(np.float32)  # sparse, as one-hot planes are
    obs[0] = encode(game, game.current_player)
    mask = probe_masks(game, 9, rng)
    priors, values = numpy_net(obs, mask)
    # self-play's evaluator too (Irk's 3,874 actions take its legal-actions-only head)
    evaluated = az.torch_evaluator(net)(obs, mask)
    np.testing.assert_allclose(evaluated[0], priors, atol=1e-5, rtol=0)
    np.testing.assert_allclose(evaluated[1], values, atol=1e-5, rtol=0)
    with torch.no_grad():
        features = net["conv"](torch.from_numpy(obs)).numpy()
        logits, torch_values = az.torch_forward(net, torch.from_numpy(obs))
        torch_priors = az.masked_priors(logits, torch.from_numpy(mask)).numpy()
    trunk = numpy_net._conv
    assert trunk is not None
    np.testing.assert_allclose(trunk(obs), features, atol=1e-5, rtol=0)
    np.testing.assert_allclose(priors, torch_priors, atol=1e-5, rtol=0)
    np.testing.assert_allclose(values, torch_values.numpy(), atol=1e-5, rtol=0)
    assert np.all(priors[~mask] == 0) and priors[1, a - 1] == pytest.approx(1.0)
    assert features.std(axis=0).max() > 0.01  # the trunk's output depends on the board
    assert priors[2].max() > 2 * priors[2].min() > 0


@pytest.mark.parametrize(("hidden", "blocks"), [((), 0), ((8, 8), 1)])
def test_heads_on_the_trunk_and_no_blocks(hidden: tuple[int, ...], blocks: int) -> None:
    game = new_game("iris_v0", {"board_size": 3}, 0)
    net = _twin(game, hidden, blocks)
    numpy_net = az.to_numpy_net(net, game)
    obs = np.random.default_rng(1).integers(0, 2, size=(4, numpy_net.obs_dim))
    obs = obs.astype(np.float32)
    mask = np.ones((4, numpy_net.num_actions), bool)
    with torch.no_grad():
        logits, values = az.torch_forward(net, torch.from_numpy(obs))
    priors, numpy_values = numpy_net(obs, mask)
    np.testing.assert_allclose(priors, torch.softmax(logits, -1).numpy(), atol=1e-5)
    np.testing.assert_allclose(numpy_values, values.numpy(), atol=1e-5)


def test_conv_export_and_load_round_trip(tmp_path: Path) -> None:
    game = new_game("isis_osiris_v0", {"num_players": 3}, 0)
    net = _twin(game, (12,), blocks=1)
    path = tmp_path / "net.npz"
    written = az.export_npz(net, path, game, env="isis_osiris_v0")
    loaded = PolicyValueNet.load(path)
    assert loaded.meta == written.meta and loaded.conv == written.conv
    assert loaded.conv == {"board": [0, 6, 6, 35], "channels": 8, "blocks": 1, "head_channels": 4}
    for key, value in written.arrays.items():
        np.testing.assert_array_equal(loaded.arrays[key], value)
    weight = net["conv"].convs[0].weight.detach().numpy()  # (out, in, 3, 3)
    np.testing.assert_array_equal(loaded.arrays["conv_0_w"][0, 2, 5, 7], weight[7, 5, 0, 2])
    loaded.check_game(game)
    az.export_npz(net, tmp_path / "half.npz", game, dtype="float16")
    half = PolicyValueNet.load(tmp_path / "half.npz")
    state = new_game("isis_osiris_v0", {"num_players": 3}, 4)
    np.testing.assert_allclose(
        half.evaluate_game(state, 0)[0], loaded.evaluate_game(state, 0)[0], atol=2e-3
    )


# ---- a run --------------------------------------------------------------------------------------
def _conv_config(tmp_path: Path, **overrides: Any) -> az.AZConfig:
    """A conv run of seconds on Iris side 3: 4 channels, 1 block, a hidden layer of 8."""
    settings: dict[str, Any] = {
        "env_kwargs": {"board_size": 3},
        "arch": "conv",
        "conv_channels": 4,
        "conv_blocks": 1,
        "hidden": (8,),
        "eval_opponents": ("random",),
    }
    settings.update(overrides)
    return tiny_az_config(tmp_path, **settings)


def test_a_ci_sized_conv_run_ships_a_conv_file_and_resumes(tmp_path: Path) -> None:
    config = _conv_config(tmp_path, warm_start="greedy", warm_games=4, warm_epochs=1)
    results = az.train_az(config, log=lambda text: None)
    assert results["iterations_done"] == 1 and results["final"]["random"]["games"] == 2
    out = Path(config.out)
    net = PolicyValueNet.load(out / "model.npz")
    assert net.arch == "conv" and net.conv is not None and net.conv["channels"] == 4
    assert net.arrays["conv_0_w"].shape == (3, 3, 10, 4)  # side 3: 5x5 cells, 10 planes
    game = new_game("iris_v0", {"board_size": 3}, 5)
    steps = play_game(game, [AZAgent(net, simulations=2, seed=s) for s in range(2)], ["a", "b"])
    assert game.is_terminal and steps > 0
    # resuming keeps the trunk; another trunk is refused by name
    az.train_az(_conv_config(tmp_path, iterations=2, resume=config.out), log=lambda text: None)
    resumed = PolicyValueNet.load(out / "model.npz")
    assert resumed.meta["trained"]["iteration"] == 2 and resumed.conv == net.conv
    for change in ({"conv_channels": 8}, {"arch": "mlp"}, {"conv_blocks": 2}):
        with pytest.raises(
            ValueError, match=f"cannot resume .*: this run.s {next(iter(change))} is "
        ):
            az.train_az(
                _conv_config(tmp_path, iterations=3, resume=config.out, **change),
                log=lambda text: None,
            )


def test_a_checkpoint_from_before_the_arch_settings_resumes_as_an_mlp(tmp_path: Path) -> None:
    config = _conv_config(tmp_path, arch="mlp", eval_every=0, final_eval_games=0)
    az.train_az(config, log=lambda text: None)
    path = Path(config.out) / "checkpoint.pt"
    saved = torch.load(path, weights_only=True)
    for key in ("arch", "conv_channels", "conv_blocks", "conv_head_channels"):
        del saved["config"][key]  # what a checkpoint written before them holds
    torch.save(saved, path)
    resumed = _conv_config(tmp_path, arch="mlp", iterations=2, resume=config.out, eval_every=0)
    az.train_az(resumed, log=lambda text: None)
    assert PolicyValueNet.load(Path(config.out) / "model.npz").arch == "mlp"
    with pytest.raises(ValueError, match="this run's arch is 'conv', the checkpoint's 'mlp'"):
        az.train_az(_conv_config(tmp_path, iterations=3, resume=config.out), log=lambda t: None)


def test_the_arch_settings_on_the_command_line() -> None:
    args = build_parser().parse_args(
        ["--arch", "conv", "--conv-channels", "24", "--conv-blocks", "0", "--hidden", "64"]
    )
    config = config_from_args(args)
    assert (config.arch, config.conv_channels, config.conv_blocks) == ("conv", 24, 0)
    assert config.conv_head_channels == 4 and config.hidden == (64,)
    assert config_from_args(build_parser().parse_args([])).arch == "mlp"  # nothing changes
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--arch", "resnet"])
    with pytest.raises(InvalidParameterError, match="conv_channels must be an integer from 1"):
        az.AZConfig(arch="conv", conv_channels=0)
    with pytest.raises(InvalidParameterError, match="conv_blocks must be an integer from 0"):
        az.AZConfig(arch="conv", conv_blocks=17)


def test_a_game_without_board_planes_refuses_arch_conv(monkeypatch: pytest.MonkeyPatch) -> None:
    game_class = type(new_game("iris_v0", {}, 0))
    monkeypatch.setattr(game_class, "board_planes", lambda self: None)
    with pytest.raises(InvalidParameterError, match="declares none: use arch 'mlp'"):
        az.AZConfig(arch="conv")
    assert az.AZConfig().arch == "mlp"
