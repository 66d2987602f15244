"""The conv network (``arch "conv"``): its numpy forward pass, its file and the file's checks.

The forward pass is compared with a float64 reference written from the definition in
``search/network_layout.py`` (zero padding by ``np.pad``, one slice per kernel tap), independent
of the gather table the fast code uses; the torch twin is compared in
``tests/training/test_az_conv.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tabletop_envs.agents import make_agent
from tabletop_envs.search.conv import neighbour_table
from tabletop_envs.search.evaluator import encode
from tabletop_envs.search.network import PolicyValueNet, conv_meta
from tests.agents.helpers import case_id, env_cases, new_game, play_checked

#: Every registered env and parameter set whose game declares board planes (all of them today).
BOARD_CASES = [case for case in env_cases() if new_game(*case, 0).board_planes() is not None]


def _conv_net(
    env_name: str,
    params: dict[str, Any] | None = None,
    blocks: int = 1,
    hidden: tuple[int, ...] = (16,),
    seed: int = 0,
    **extra_meta: Any,
) -> PolicyValueNet:
    """Return a random conv network for ``env_name``: 6 channels, ``blocks``, 3 head channels."""
    game = new_game(env_name, params or {}, 0)
    conv = conv_meta(game, channels=6, blocks=blocks, head_channels=3)
    return PolicyValueNet.initial(game, hidden, seed, arch="conv", conv=conv, **extra_meta)


def _conv3x3_reference(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A 3x3 convolution of ``x`` (B, H, W, C) by its definition: zero padding, nine taps."""
    _, h, wd, _ = x.shape
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    out = np.zeros((*x.shape[:3], w.shape[-1]))
    for dy in range(3):
        for dx in range(3):
            out += padded[:, dy : dy + h, dx : dx + wd, :] @ w[dy, dx]
    return out + b


def _reference(net: PolicyValueNet, obs: np.ndarray, mask: np.ndarray) -> tuple:
    """The conv network by its definition, in float64 (the reference)."""
    a = {k: v.astype(np.float64) for k, v in net.arrays.items()}
    start, h, w, c = net.meta["conv"]["board"]
    end = start + h * w * c
    x = obs.astype(np.float64)[:, start:end].reshape(-1, h, w, c)
    x = np.maximum(_conv3x3_reference(x, a["conv_0_w"], a["conv_0_b"]), 0)
    for block in range(net.meta["conv"]["blocks"]):
        j = 1 + 2 * block
        y = np.maximum(_conv3x3_reference(x, a[f"conv_{j}_w"], a[f"conv_{j}_b"]), 0)
        x = np.maximum(x + _conv3x3_reference(y, a[f"conv_{j + 1}_w"], a[f"conv_{j + 1}_b"]), 0)
    x = np.maximum(x @ a["reduce_w"] + a["reduce_b"], 0).reshape(len(obs), -1)
    x = np.concatenate([x, obs[:, :start], obs[:, end:]], axis=1)
    for i in range(len(net.hidden)):
        x = np.maximum(x @ a[f"trunk_{i}_w"] + a[f"trunk_{i}_b"], 0)
    logits = np.where(mask, x @ a["policy_w"] + a["policy_b"], -np.inf)
    exp = np.exp(logits - logits.max(axis=1, keepdims=True))
    values = np.tanh(x @ a["value_w"] + a["value_b"])[:, 0]
    return exp / exp.sum(axis=1, keepdims=True), values


@pytest.mark.parametrize("case", BOARD_CASES, ids=[case_id(c) for c in BOARD_CASES])
def test_conv_forward_is_the_definition(case: tuple[str, dict[str, Any]]) -> None:
    env, params = case
    game = new_game(env, params, 4)
    net = _conv_net(env, params, blocks=2, seed=1)
    rng = np.random.default_rng(0)
    d, a = net.obs_dim, net.num_actions
    obs = rng.integers(0, 2, size=(5, d)).astype(np.float32)
    obs[0] = encode(game, game.current_player)
    mask = rng.random((5, a)) < 0.5
    mask[:, 0] = True
    mask[0] = game.legal_mask().astype(bool)
    priors, values = net(obs, mask)
    want_priors, want_values = _reference(net, obs, mask)
    np.testing.assert_allclose(priors, want_priors, atol=1e-5, rtol=0)
    np.testing.assert_allclose(values, want_values, atol=1e-5, rtol=0)
    assert values.std() > 1e-3  # the rows differ: the trunk reads the board
    one, value = net.evaluate_game(game, game.current_player)  # a batch of one is the same
    np.testing.assert_allclose(one, priors[0], atol=1e-6)
    assert value == pytest.approx(float(values[0]), abs=1e-6)


def test_the_neighbour_table_pads_with_the_extra_cell() -> None:
    table = neighbour_table(3, 4)
    assert table.shape == (12, 9) and not table.flags.writeable
    assert table[0].tolist() == [12, 12, 12, 12, 0, 1, 12, 4, 5]  # the top-left corner
    assert table[5].tolist() == [0, 1, 2, 4, 5, 6, 8, 9, 10]  # row 1, column 1: all inside
    assert table[11].tolist() == [6, 7, 12, 10, 11, 12, 12, 12, 12]  # the bottom-right corner


def test_a_residual_block_adds_its_input() -> None:
    """Zero second convolutions make each block the identity: the trunk is its first layer."""
    net = _conv_net("iris_v0", {"board_size": 3}, blocks=2, seed=2)
    zeroed = dict(net.arrays)
    for j in (2, 4):
        zeroed[f"conv_{j}_w"] = np.zeros_like(net.arrays[f"conv_{j}_w"])
        zeroed[f"conv_{j}_b"] = np.zeros_like(net.arrays[f"conv_{j}_b"])
    blockless_meta = json.loads(json.dumps(net.meta))
    blockless_meta["conv"]["blocks"] = 0
    keep = {k: v for k, v in zeroed.items() if not k.startswith(("conv_1", "conv_2", "conv_3"))}
    keep = {k: v for k, v in keep.items() if not k.startswith("conv_4")}
    blockless = PolicyValueNet(blockless_meta, keep)
    game = new_game("iris_v0", {"board_size": 3}, 0)
    obs = encode(game, 0)[None]
    mask = game.legal_mask().astype(bool)[None]
    full = PolicyValueNet(net.meta, zeroed)
    np.testing.assert_allclose(full(obs, mask)[1], blockless(obs, mask)[1], atol=1e-6)


# ---- the file -----------------------------------------------------------------------------------
def test_conv_file_round_trip_and_versions(tmp_path: Path) -> None:
    net = _conv_net("isis_osiris_v0", {"num_players": 3}, blocks=1, env="isis_osiris_v0")
    assert net.arch == "conv" and net.meta["version"] == 2
    assert net.conv == {"board": [0, 6, 6, 35], "channels": 6, "blocks": 1, "head_channels": 3}
    net.save(tmp_path / "conv.npz")
    loaded = PolicyValueNet.load(tmp_path / "conv.npz")
    assert loaded.meta == net.meta and sorted(loaded.arrays) == sorted(net.arrays)
    for key, value in net.arrays.items():
        np.testing.assert_array_equal(loaded.arrays[key], value)
    assert loaded.arrays["conv_0_w"].shape == (3, 3, 35, 6)
    net.save(tmp_path / "half.npz", dtype="float16")
    half = PolicyValueNet.load(tmp_path / "half.npz")
    game = new_game("isis_osiris_v0", {"num_players": 3}, 2)
    np.testing.assert_allclose(
        half.evaluate_game(game, 0)[0], net.evaluate_game(game, 0)[0], atol=2e-3
    )
    # an MLP is written as before: version 1, no arch key
    mlp = PolicyValueNet.initial(game, hidden=(8,), seed=0)
    assert mlp.arch == "mlp" and mlp.meta["version"] == 1 and "arch" not in mlp.meta
    assert mlp.conv is None


def test_a_conv_network_checks_the_games_board() -> None:
    game = new_game("irk_v0", {}, 0)
    net = _conv_net("irk_v0", hidden=(8,))
    net.check_game(game)
    meta = json.loads(json.dumps(net.meta))
    meta["conv"]["board"] = [0, 1, 1, 11]  # a valid network reading another section
    arrays = {k: v for k, v in net.arrays.items() if k not in ("trunk_0_w",)}
    shapes = PolicyValueNet.initial(game, hidden=(8,), arch="conv", conv=meta["conv"]).arrays
    other = PolicyValueNet(meta, {**arrays, "trunk_0_w": shapes["trunk_0_w"]})
    with pytest.raises(ValueError, match=r"reads the board planes \[0, 1, 1, 11\].*\[0, 31, 31"):
        other.check_game(game)


def test_conv_meta_needs_board_planes(monkeypatch: pytest.MonkeyPatch) -> None:
    game = new_game("iris_v0", {}, 0)
    monkeypatch.setattr(type(game), "board_planes", lambda self: None)
    with pytest.raises(ValueError, match=r"declares no board planes.*use arch 'mlp'"):
        conv_meta(game)
    with pytest.raises(ValueError, match="arch must be one of mlp, conv, got 'cnn'"):
        PolicyValueNet.initial(new_game("iris_v0", {}, 0), arch="cnn")


def _parts() -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    net = _conv_net("iris_v0", {"board_size": 3}, blocks=1, hidden=(8,))
    return json.loads(json.dumps(net.meta)), {k: v.copy() for k, v in net.arrays.items()}


def _with_conv(meta: dict, **changes: Any) -> dict:
    return {**meta, "conv": {**meta["conv"], **changes}}


def _without(d: dict, key: str) -> dict:
    return {k: v for k, v in d.items() if k != key}


#: each case: (how a conv file is spoiled, the message expected)
BAD_CONV_FILES = {
    "arch unknown": (
        lambda m, a: ({**m, "arch": "resnet"}, a),
        "arch must be one of mlp, conv, got 'resnet'",
    ),
    "conv as version 1": (
        lambda m, a: ({**m, "version": 1}, a),
        "arch 'conv' is written as version 2, got version 1",
    ),
    "version 2 without arch": (
        lambda m, a: (_without(m, "arch"), a),
        r"version 2 needs an arch \(mlp, conv\)",
    ),
    "conv missing": (
        lambda m, a: (_without(m, "conv"), a),
        "conv must be a JSON object with exactly the keys board, channels, blocks, "
        "head_channels, got None",
    ),
    "conv extra key": (
        lambda m, a: (_with_conv(m, stride=2), a),
        "conv must be a JSON object with exactly the keys",
    ),
    "conv board short": (
        lambda m, a: (_with_conv(m, board=[0, 5, 5]), a),
        r"board must be \[start, H, W, C\].*got \[0, 5, 5\]",
    ),
    "conv board float": (
        lambda m, a: (_with_conv(m, board=[0, 5.0, 5, 10]), a),
        r"board must be \[start, H, W, C\]",
    ),
    "conv board outside": (
        lambda m, a: (_with_conv(m, board=[1, 5, 5, 10]), a),
        r"board \[1, 5, 5, 10\] does not fit.*within obs_dim 250",
    ),
    "conv channels 0": (
        lambda m, a: (_with_conv(m, channels=0), a),
        r"conv channels must be an int in 1\.\.1024, got 0",
    ),
    "conv blocks bool": (
        lambda m, a: (_with_conv(m, blocks=True), a),
        r"conv blocks must be an int in 0\.\.64, got True",
    ),
    "conv head too wide": (
        lambda m, a: (_with_conv(m, head_channels=5000), a),
        r"head_channels must be an int in 1\.\.1024, got 5000",
    ),
    "conv on an mlp": (
        lambda m, a: ({**_without(m, "arch"), "version": 1}, a),
        "conv is only for arch 'conv'",
    ),
    "conv array missing": (
        lambda m, a: (m, _without(a, "conv_2_w")),
        "misses arrays conv_2_w",
    ),
    "conv array transposed": (
        lambda m, a: (m, {**a, "conv_0_w": np.ascontiguousarray(a["conv_0_w"].T)}),
        r"conv_0_w must have shape \(3, 3, 10, 6\), got \(6, 10, 3, 3\)",
    ),
    "reduce wrong shape": (
        lambda m, a: (m, {**a, "reduce_w": np.zeros((6, 4), np.float32)}),
        r"reduce_w must have shape \(6, 3\)",
    ),
    "deeper than declared": (
        lambda m, a: (_with_conv(m, blocks=2), a),
        "misses arrays conv_3_w, conv_3_b, conv_4_w, conv_4_b",
    ),
    "an extra block": (
        lambda m, a: (m, {**a, "conv_3_w": a["conv_1_w"], "conv_3_b": a["conv_1_b"]}),
        "unexpected arrays conv_3_b",
    ),
    "nan in a kernel": (
        lambda m, a: (m, {**a, "conv_1_b": np.full(6, np.nan, np.float32)}),
        "conv_1_b holds non-finite values",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_CONV_FILES))
def test_malformed_conv_files_are_refused_with_the_reason(tmp_path: Path, case: str) -> None:
    spoil, match = BAD_CONV_FILES[case]
    meta, arrays = spoil(*_parts())
    np.savez(tmp_path / "bad.npz", meta=np.array(json.dumps(meta)), **arrays)
    with pytest.raises(ValueError, match=match):
        PolicyValueNet.load(tmp_path / "bad.npz")
    with pytest.raises(ValueError, match=match):  # the same checks for arrays given directly
        PolicyValueNet(meta, arrays)


def test_mlp_arrays_in_a_conv_file_name_the_conv_layout(tmp_path: Path) -> None:
    meta, arrays = _parts()
    mlp_only = {k: v for k, v in arrays.items() if k.startswith(("trunk", "policy", "value"))}
    np.savez(tmp_path / "bad.npz", meta=np.array(json.dumps(meta)), **mlp_only)
    with pytest.raises(ValueError, match=r"misses arrays conv_0_w.*holds meta\.npy, conv_0_w"):
        PolicyValueNet.load(tmp_path / "bad.npz")


# ---- the agent ----------------------------------------------------------------------------------
def test_the_agent_plays_a_conv_file(tmp_path: Path) -> None:
    net = _conv_net("iris_v0", blocks=1, hidden=(8,))
    net.save(tmp_path / "conv.npz")
    spec = f"az:{tmp_path / 'conv.npz'},simulations=4"
    agents = [make_agent(spec, "iris_v0", seed=s) for s in range(2)]
    game = play_checked(new_game("iris_v0", {}, 1), agents)
    assert game.is_terminal
