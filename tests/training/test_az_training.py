"""AlphaZero-style training: the torch twin equals the numpy network, runs, resumes, ships a file.

CI-sized runs (a tiny network, a few games and simulations) on every env; the real runs and
their figures are in docs/training.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

if os.environ.get("CI") == "true":  # CI installs the train extra: missing, it must fail
    import torch
    import tqdm  # noqa: F401
else:
    torch = pytest.importorskip("torch")
    pytest.importorskip("tqdm")

from tabletop_envs.agents.az import AZAgent, PolicyValueNet, encode
from tabletop_envs.agents.base import Agent
from tabletop_envs.agents.registry import make_agent
from tabletop_envs.cli import main as cli_main
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.envs.registry import env_spec
from tabletop_envs.evaluation import play_game, run_arena
from tabletop_envs.training import az
from tabletop_envs.training.az import evaluation as az_evaluation
from tabletop_envs.training.az.model import build_optimizer
from tests.training.helpers import probe_masks, tiny_az_config

ROOT = Path(__file__).resolve().parents[2]


def _game(env: str, **kwargs):
    return env_spec(env).load_game().new(seed=0, **kwargs)


def _quiet(text: str) -> None:
    pass


# ---- the torch twin and the file ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("env", "kwargs", "hidden"),
    [
        ("iris_v0", {}, (64, 32)),
        ("isis_osiris_v0", {"num_players": 3}, (48,)),
        ("irk_v0", {}, (32, 32)),
        ("iris_v0", {"board_size": 3}, ()),  # heads straight on the input
    ],
)
def test_numpy_forward_equals_torch(env: str, kwargs: dict, hidden: tuple[int, ...]) -> None:
    game = _game(env, **kwargs)
    d, a = int(np.prod(game.spec.observation_shape)), game.spec.num_actions
    net = az.build_torch_net(d, a, hidden, seed=3)
    with torch.no_grad():  # sharper logits than the initial ones: priors far from uniform
        net["policy"].weight.mul_(4.0)
    numpy_net = az.to_numpy_net(net, game)
    rng = np.random.default_rng(0)
    obs = rng.integers(-2, 3, size=(17, d)).astype(np.float32)
    obs[0] = encode(game, 0)
    mask = probe_masks(game, 17, rng)
    priors, values = numpy_net(obs, mask)
    logits, torch_values = az.torch_forward(net, torch.from_numpy(obs))
    torch_priors = az.masked_priors(logits, torch.from_numpy(mask)).detach().numpy()
    np.testing.assert_allclose(priors, torch_priors, atol=1e-5, rtol=0)
    np.testing.assert_allclose(values, torch_values.detach().numpy(), atol=1e-5, rtol=0)
    assert np.all(priors[~mask] == 0) and np.all(torch_priors[~mask] == 0)
    np.testing.assert_allclose(priors.sum(axis=1), 1.0, atol=1e-5)
    assert priors[1, a - 1] == pytest.approx(1.0)
    assert values.std() > 0.01  # neither output is degenerate
    assert priors[2].max() > 2 * priors[2].min() > 0


def test_torch_evaluator_is_the_numpy_net_for_run_puct() -> None:
    game = _game("iris_v0")
    net = az.build_torch_net(810, 82, (32,), seed=1)
    evaluate = az.torch_evaluator(net)
    obs = np.stack([encode(game, 0)] * 3)
    mask = np.stack([game.legal_mask().astype(bool)] * 3)
    priors, values = evaluate(obs, mask)
    expected = az.to_numpy_net(net, game)(obs, mask)
    assert priors.dtype == np.float32 and values.shape == (3,)
    np.testing.assert_allclose(priors, expected[0], atol=1e-5)
    np.testing.assert_allclose(values, expected[1], atol=1e-5)


def _irk_rows(rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of positions along a seeded random Irk game (sparse inputs, a
    few legal actions per row), plus a row with every action legal."""
    game = _game("irk_v0")
    rng = np.random.default_rng(5)
    obs, masks = [], []
    while len(obs) < rows - 1 and not game.is_terminal:
        obs.append(encode(game, game.current_player))
        masks.append(game.legal_mask().astype(bool))
        legal = game.legal_actions()
        game.apply(legal[int(rng.integers(len(legal)))])
    obs.append(obs[-1])
    masks.append(np.ones_like(masks[-1]))
    return np.stack(obs), np.stack(masks)


def test_torch_evaluator_reads_only_nonzero_inputs_and_legal_actions_exactly() -> None:
    """Irk's evaluator multiplies only the inputs nonzero and the actions legal in the batch
    (issue 22): the same priors and values as the dense forward pass, and it follows the
    weights when a training step changes them (its transposed first layer is cached)."""
    obs, mask = _irk_rows(12)
    assert 3 * np.count_nonzero(obs.any(axis=0)) < obs.shape[1]  # the sparse paths are taken
    assert 3 * np.count_nonzero(mask[:-1].any(axis=0)) < mask.shape[1]
    net = az.build_torch_net(obs.shape[1], mask.shape[1], (32, 16), seed=4)
    evaluate = az.torch_evaluator(net)

    def dense() -> tuple[np.ndarray, np.ndarray]:
        with torch.no_grad():
            logits, values = az.torch_forward(net, torch.from_numpy(obs))
            return az.masked_priors(logits, torch.from_numpy(mask)).numpy(), values.numpy()

    for rows in (slice(None), slice(0, -1)):  # with and without the all-legal row
        priors, values = evaluate(obs[rows], mask[rows])
        expected = dense()
        np.testing.assert_allclose(priors, expected[0][rows], atol=1e-6, rtol=0)
        np.testing.assert_allclose(values, expected[1][rows], atol=1e-6, rtol=0)
    optimizer = build_optimizer(net, 0.05, 0.0)
    logits, values = az.torch_forward(net, torch.from_numpy(obs))
    (logits.square().mean() + values.square().mean()).backward()
    optimizer.step()
    priors, values = evaluate(obs, mask)
    moved = dense()
    assert np.abs(moved[1] - expected[1]).max() > 1e-3  # the step changed the outputs
    np.testing.assert_allclose(priors, moved[0], atol=1e-6, rtol=0)
    np.testing.assert_allclose(values, moved[1], atol=1e-6, rtol=0)


def test_export_and_load_round_trip(tmp_path: Path) -> None:
    game = _game("isis_osiris_v0", num_players=3, memory=True)
    net = az.build_torch_net(int(np.prod(game.spec.observation_shape)), 73, (24, 12), seed=2)
    path = tmp_path / "net.npz"
    written = az.export_npz(net, path, game, env="isis_osiris_v0", trained={"iteration": 7})
    loaded = PolicyValueNet.load(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["net.npz"]  # no partial file left
    assert loaded.hidden == [24, 12] and loaded.num_actions == 73
    assert loaded.meta["game"] == "isis_osiris" and loaded.meta["env"] == "isis_osiris_v0"
    assert loaded.meta["params"]["num_players"] == 3 and loaded.meta["trained"]["iteration"] == 7
    for key, value in written.arrays.items():
        np.testing.assert_array_equal(loaded.arrays[key], value)
    np.testing.assert_array_equal(
        loaded.arrays["trunk_0_w"], net["trunk"][0].weight.detach().numpy().T
    )
    assert loaded.check_game(game) == {}
    # memory changes only the observation: a perfect-recall game is read as the net learnt
    assert loaded.check_game(_game("isis_osiris_v0", num_players=3)) == {"memory": True}
    with pytest.raises(ValueError, match="other parameters"):
        loaded.check_game(_game("isis_osiris_v0", num_players=2, memory=True))


# ---- pieces -------------------------------------------------------------------------------------
def _finished(env: str, seed: int = 0, **kwargs):
    game = env_spec(env).load_game().new(seed=seed, **kwargs)
    rng = np.random.default_rng(seed)
    while not game.is_terminal:
        legal = np.flatnonzero(game.legal_mask())
        game.apply(int(legal[rng.integers(len(legal))]))
    return game


def test_result_targets_follow_the_arena_rule() -> None:
    for seed in range(6):
        game = _finished("isis_osiris_v0", seed, num_players=3)
        z = az.value_targets(game)
        scores = game.result_info()["scores"]
        top = max(scores)
        winners = [s for s, x in enumerate(scores) if x == top]
        for seat in range(3):
            expected = (1.0 if len(winners) == 1 else 0.0) if seat in winners else -1.0
            assert z[seat] == expected
    iris = _finished("iris_v0", 1)
    np.testing.assert_array_equal(az.value_targets(iris), iris.returns())


def test_score_targets_are_the_scaled_margin() -> None:
    for env, key in (("isis_osiris_v0", "scores"), ("irk_v0", "totals")):
        game = _finished(env, 2, num_players=3)
        scores = np.array(game.result_info()[key], dtype=float)
        z = az.value_targets(game, "score", 5.0)
        for seat in range(3):
            margin = scores[seat] - np.delete(scores, seat).max()
            assert z[seat] == pytest.approx(np.tanh(margin / 5.0), abs=1e-6)
    with pytest.raises(ValueError, match="no final scores"):
        az.value_targets(_finished("iris_v0"), "score")
    with pytest.raises(ValueError, match="once the game is over"):
        az.value_targets(_game("iris_v0"))


def test_replay_buffer_keeps_the_latest_rows_and_saves_them() -> None:
    buffer = az.ReplayBuffer(5, 3, 10, np.int8)
    obs = np.arange(21, dtype=np.float32).reshape(7, 3)
    mask = np.zeros((7, 10), dtype=bool)
    mask[np.arange(7), np.arange(7)] = True
    pi = mask / mask.sum(axis=1, keepdims=True)
    buffer.add(obs[:4], mask[:4], pi[:4], np.arange(4, dtype=np.float32))
    buffer.add(obs[4:], mask[4:], pi[4:], np.arange(4, 7, dtype=np.float32))
    assert len(buffer) == 5 and buffer.added == 7
    state = buffer.state()
    np.testing.assert_array_equal(state["z"], [2, 3, 4, 5, 6])  # oldest first
    o, m, p, z = buffer.rows(np.array([0, 1]))  # rows 5 and 6 overwrote slots 0 and 1
    np.testing.assert_array_equal(z, [5, 6])
    np.testing.assert_array_equal(o, obs[5:7])
    np.testing.assert_array_equal(m, mask[5:7])
    np.testing.assert_allclose(p, pi[5:7])
    other = az.ReplayBuffer(3, 3, 10, np.int8)  # a smaller buffer keeps the newest
    other.load_state(state)
    np.testing.assert_array_equal(other.state()["z"], [4, 5, 6])
    with pytest.raises(ValueError, match="losslessly"):
        buffer.add(obs[:1] + 0.5, mask[:1], pi[:1], np.zeros(1, dtype=np.float32))
    with pytest.raises(ValueError, match="replay buffer obs"):
        az.ReplayBuffer(3, 4, 10, np.int8).load_state(state)


def test_self_play_rows_are_legal_visit_distributions() -> None:
    config = az.AZConfig(env="isis_osiris_v0", hidden=(8,), games=2, simulations=3)
    game_class = env_spec("isis_osiris_v0").load_game()
    net = az.build_torch_net(1152, 73, (8,))
    batch = az.self_play(
        az.torch_evaluator(net),
        game_class,
        game_class.params_class(),
        config,
        np.random.default_rng(0),
        0.3,
    )
    assert batch.games == 2 and batch.moves == len(batch.z) == len(batch.obs)
    assert batch.moves == pytest.approx(2 * batch.mean_length)
    np.testing.assert_allclose(batch.pi.sum(axis=1), 1.0, atol=1e-6)
    assert np.all(batch.pi[~batch.mask] == 0)
    assert set(np.unique(batch.z)) <= {-1.0, 0.0, 1.0}
    assert batch.searches > 0


def test_a_target_temperature_sharpens_the_policy_targets() -> None:
    game_class = env_spec("iris_v0").load_game()
    net = az.build_torch_net(810, 82, (8,))
    rows = {}
    for t in (1.0, 0.5):
        config = az.AZConfig(
            env="iris_v0", hidden=(8,), games=2, simulations=8, target_temperature=t
        )
        rows[t] = az.self_play(
            az.torch_evaluator(net),
            game_class,
            game_class.params_class(),
            config,
            np.random.default_rng(0),
            0.3,
        )
    plain, sharp = rows[1.0].pi, rows[0.5].pi
    assert np.array_equal(rows[1.0].obs, rows[0.5].obs)  # the same games: only targets differ
    expected = plain**2 / (plain**2).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(sharp, expected, atol=1e-3)
    assert np.all(sharp.max(axis=1) >= plain.max(axis=1) - 1e-6)


def test_expert_games_hold_the_experts_targets() -> None:
    game_class = env_spec("isis_osiris_v0").load_game()
    params = game_class.params_class()
    greedy = make_agent("greedy", "isis_osiris_v0")
    batch = az.expert_games(greedy, game_class, params, 3, np.random.default_rng(0), epsilon=0.0)
    assert batch.games == 3 and batch.moves == len(batch.z) == len(batch.obs)
    np.testing.assert_allclose(batch.pi.sum(axis=1), 1.0, atol=1e-6)
    assert np.all(batch.pi[~batch.mask] == 0)
    # replaying the games: every row's target is uniform over greedy's tied-best actions
    rng = np.random.default_rng(0)
    rng.integers(2**63)  # the expert's reseed
    row = 0
    for _ in range(3):
        game = game_class(params, int(rng.integers(2**63)))
        first, seats = row, []
        while not game.is_terminal:
            seats.append(game.current_player)
            seat = game.current_player
            np.testing.assert_array_equal(batch.obs[row], encode(game, seat))
            best = greedy.best_actions(game, seat)
            np.testing.assert_allclose(batch.pi[row][best], 1.0 / len(best), atol=1e-6)
            if batch.mask[row].sum() > 1:  # epsilon 0: greedy's move, tie broken by the stream
                game.apply(best[int(rng.integers(len(best)))])
            else:
                game.apply(best[0])
            row += 1
        np.testing.assert_array_equal(batch.z[first:row], az.value_targets(game)[seats])
    assert row == batch.moves


def test_expert_games_soft_targets_and_exploration() -> None:
    game_class = env_spec("iris_v0").load_game()
    params = game_class.params_class()
    greedy = make_agent("greedy", "iris_v0")
    soft = az.expert_games(
        greedy, game_class, params, 2, np.random.default_rng(1), epsilon=1.0, temperature=0.5
    )
    np.testing.assert_allclose(soft.pi.sum(axis=1), 1.0, atol=1e-5)
    assert np.all(soft.pi[~soft.mask] == 0)
    several = soft.mask.sum(axis=1) > 1
    # a softmax gives every legal action some weight, and not all the same
    assert np.all(soft.pi[several][soft.mask[several]] > 0)
    assert np.any(soft.pi[several].max(axis=1) > 1.5 / soft.mask[several].sum(axis=1))
    # epsilon 1.0: random moves, so the games differ from greedy's own
    plain = az.expert_games(greedy, game_class, params, 2, np.random.default_rng(1), epsilon=0.0)
    assert soft.moves != plain.moves or not np.array_equal(soft.obs, plain.obs)


def test_warm_start_fits_the_expert_before_self_play(tmp_path: Path) -> None:
    lines: list[str] = []
    config = tiny_az_config(
        tmp_path,
        "isis_osiris_v0",
        warm_start="greedy",
        warm_games=4,
        warm_epochs=30,
        warm_learning_rate=3e-3,
        iterations=1,
        eval_every=0,
        final_eval_games=0,
        buffer_size=100_000,
        hidden=(64,),
    )
    results = az.train_az(config, log=lines.append)
    warm = results["warm_start"]
    assert warm["agent"] == "greedy" and warm["games"] == 4 and warm["positions"] > 0
    assert any(line.startswith("warm start: 4 games of greedy") for line in lines)
    # self-play trains at its own rate again
    saved = az.load_checkpoint(config.out)["optimizer"]["param_groups"]
    assert [g["lr"] for g in saved] == [config.learning_rate]
    # the warm rows stay in the buffer ahead of the self-play rows
    with np.load(Path(config.out) / "buffer.npz") as data:
        assert len(data["z"]) == warm["positions"] + results["positions"]
    # 30 passes over 4 games: the policy has learned greedy's choices in those positions
    game_class = env_spec("isis_osiris_v0").load_game()
    batch = az.expert_games(
        make_agent("greedy", "isis_osiris_v0"),
        game_class,
        game_class.params_class(),
        4,
        np.random.default_rng([config.seed, 2**32 - 1]),
        epsilon=config.warm_epsilon,
    )
    assert batch.moves == warm["positions"]
    net = PolicyValueNet.load(Path(config.out) / "model.npz")
    priors, _ = net(batch.obs, batch.mask)
    agree = np.mean(batch.pi[np.arange(batch.moves), priors.argmax(axis=1)] > 0)
    assert agree > 0.6
    # resuming does not warm-start again
    lines.clear()
    again = tiny_az_config(
        tmp_path,
        "isis_osiris_v0",
        warm_start="greedy",
        iterations=2,
        eval_every=0,
        final_eval_games=0,
        hidden=(64,),
        resume=config.out,
    )
    assert az.train_az(again, log=lines.append)["warm_start"] == warm
    assert not any(line.startswith("warm start") for line in lines)


class _Spy(Agent):
    """Greedy that records which seat of which game it played."""

    name = "spy"

    def __init__(self) -> None:
        self.greedy = make_agent("greedy", "iris_v0")
        self.calls: list[tuple[int, int]] = []

    def act(self, game, seat: int) -> int:
        assert seat == game.current_player
        self.calls.append((id(game), seat))
        return self.greedy.act(game, seat)


def test_an_opponent_plays_its_seat_and_gives_no_rows() -> None:
    config = az.AZConfig(env="iris_v0", hidden=(8,), games=4, simulations=2)
    game_class = env_spec("iris_v0").load_game()
    net = az.build_torch_net(810, 82, (8,))
    spy = _Spy()
    batch = az.self_play(
        az.torch_evaluator(net),
        game_class,
        game_class.params_class(),
        config,
        np.random.default_rng(0),
        0.3,
        opponent=spy,
        opponent_games=3,
    )
    seats_by_game: dict[int, set[int]] = {}
    for game_id, seat in spy.calls:
        seats_by_game.setdefault(game_id, set()).add(seat)
    # three games hold the opponent, each in one seat, the seats rotated (0, 1, 0)
    assert len(seats_by_game) == 3
    assert sorted(len(v) for v in seats_by_game.values()) == [1, 1, 1]
    assert sorted(next(iter(v)) for v in seats_by_game.values()) == [0, 0, 1]
    # every move is either the opponent's or a row
    assert batch.moves + len(spy.calls) == round(batch.mean_length * batch.games)
    assert 0 < len(spy.calls) < batch.moves


# ---- whole runs -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("env", "kwargs", "target"),
    [
        ("iris_v0", {}, "result"),
        ("isis_osiris_v0", {"num_players": 3}, "score"),
        ("irk_v0", {}, "result"),
        ("irk_v0", {"num_players": 4}, "score"),
    ],
)
def test_ci_sized_run_writes_a_playable_model(
    tmp_path: Path, env: str, kwargs: dict, target: str
) -> None:
    config = tiny_az_config(tmp_path, env, env_kwargs=kwargs, value_target=target)
    az.train_az(config, log=_quiet)
    out = Path(config.out)
    assert {p.name for p in out.iterdir()} == {
        "model.npz",
        "checkpoint.pt",
        "buffer.npz",
        "results.json",
        "winrate.png",
    }
    saved = json.loads((out / "results.json").read_text())
    assert saved["algo"] == "az" and saved["iterations_done"] == 1
    assert saved["positions"] == saved["iterations"][0]["new_positions"] > 0
    assert saved["games"] == 2 and saved["selfplay_positions_per_s"] > 0
    assert saved["selfplay_positions_per_cpu_s"] > 0
    assert saved["config"]["value_target"] == target
    point = saved["history"][0]
    assert point["iteration"] == 1 and set(point["vs"]) == {"greedy", "random"}
    for result in [*point["vs"].values(), *saved["final"].values()]:
        assert result["wins"] + result["draws"] + result["losses"] == result["games"] == 2
    checkpoint = az.load_checkpoint(out)
    assert checkpoint["run"]["iteration"] == 1
    with np.load(out / "buffer.npz") as data:
        assert len(data["z"]) == saved["positions"]
    # the shipped file plays legal games for every seat (play_game raises on an illegal move)
    net = PolicyValueNet.load(out / "model.npz")
    assert net.meta["simulations"] == config.eval_simulations  # what the agent plays by default
    # what its value head learnt: the scale the agent's searches back finished games up on
    assert (net.meta["value_target"], net.meta["score_scale"]) == (target, config.score_scale)
    game_class = env_spec(env).load_game()
    game = game_class.new(seed=5, **kwargs)
    net.check_game(game)
    agents = [AZAgent(net, simulations=2, seed=s) for s in range(game.num_players)]
    steps = play_game(game, agents, [f"az{s}" for s in range(game.num_players)])
    assert game.is_terminal and steps > 0


def test_float16_model_is_the_float32_model_rounded(tmp_path: Path) -> None:
    full = tiny_az_config(tmp_path / "a", "irk_v0", eval_every=0, final_eval_games=0)
    half = tiny_az_config(
        tmp_path / "b", "irk_v0", eval_every=0, final_eval_games=0, model_dtype="float16"
    )
    az.train_az(full, log=_quiet)
    az.train_az(half, log=_quiet)
    with np.load(Path(half.out) / "model.npz") as data:
        assert data["trunk_0_w"].dtype == np.float16
    a = PolicyValueNet.load(Path(full.out) / "model.npz")
    b = PolicyValueNet.load(Path(half.out) / "model.npz")
    for key in a.arrays:  # the same training; only the file's rounding differs
        np.testing.assert_array_equal(a.arrays[key].astype(np.float16), b.arrays[key])


def test_keep_best_ships_the_best_evaluated_model(tmp_path: Path, monkeypatch) -> None:
    scripted = iter([0.2, 0.8, 0.5])  # the periodic scores of iterations 1, 2, 3
    played: list[tuple[str, int]] = []

    def fake_evaluate(path, config, opponent, games, seed):
        net = PolicyValueNet.load(path)
        played.append((Path(path).name, net.meta["trained"]["iteration"]))
        rate = next(scripted) if games == config.eval_games else 0.5
        wins = round(rate * games)
        return {
            "opponent": opponent,
            "games": games,
            "wins": wins,
            "draws": 0,
            "losses": games - wins,
            "win_rate": wins / games,
            "ci95": [0.0, 1.0],
        }

    monkeypatch.setattr(az_evaluation, "evaluate_file", fake_evaluate)
    lines: list[str] = []
    config = tiny_az_config(
        tmp_path,
        iterations=3,
        eval_every=1,
        eval_games=10,
        final_eval_games=4,
        eval_opponents=("greedy",),
        keep_best=True,
    )
    results = az.train_az(config, log=lines.append)
    out = Path(config.out)
    assert results["best"] == {"iteration": 2, "score": 0.8, "model": str(out / "best.npz")}
    assert PolicyValueNet.load(out / "best.npz").meta["trained"]["iteration"] == 2
    assert PolicyValueNet.load(out / "model.npz").meta["trained"]["iteration"] == 3
    # the periodic evaluations played the latest model; the final one played best.npz
    assert played == [("model.npz", 1), ("model.npz", 2), ("model.npz", 3), ("best.npz", 2)]
    assert sum("best so far" in line for line in lines) == 2
    with pytest.raises(ValueError, match="keep_best chooses by the periodic evaluations"):
        tiny_az_config(tmp_path, eval_every=0, keep_best=True, out=str(tmp_path / "other"))


def test_resume_continues_exactly_where_the_checkpoint_stopped(tmp_path: Path) -> None:
    straight = tiny_az_config(tmp_path / "a", "isis_osiris_v0", iterations=2, eval_every=0)
    az.train_az(straight, log=_quiet)
    first = tiny_az_config(tmp_path / "b", "isis_osiris_v0", iterations=1, eval_every=0)
    az.train_az(first, log=_quiet)
    lines: list[str] = []
    resumed = tiny_az_config(
        tmp_path / "b", "isis_osiris_v0", iterations=2, eval_every=0, resume=first.out
    )
    results = az.train_az(resumed, log=lines.append)
    assert any(line.startswith("resumed") and "iteration 1" in line for line in lines)
    assert results["iterations_done"] == 2 and len(results["iterations"]) == 2
    a = PolicyValueNet.load(Path(straight.out) / "model.npz")
    b = PolicyValueNet.load(Path(resumed.out) / "model.npz")
    for key in a.arrays:  # the same games, buffer, minibatches and Adam moments
        np.testing.assert_array_equal(a.arrays[key], b.arrays[key])
    assert b.meta["trained"]["iteration"] == 2


def test_resume_refuses_another_network_or_game(tmp_path: Path) -> None:
    first = tiny_az_config(tmp_path, "iris_v0", eval_every=0, final_eval_games=0)
    az.train_az(first, log=_quiet)
    for change in ({"hidden": (32,)}, {"env_kwargs": {"board_size": 4}}):
        config = tiny_az_config(tmp_path, "iris_v0", iterations=2, resume=first.out, **change)
        with pytest.raises(ValueError, match="cannot resume"):
            az.train_az(config, log=_quiet)
    with pytest.raises(ValueError, match="no checkpoint"):
        config = tiny_az_config(tmp_path, resume=str(tmp_path / "nowhere"), out=str(tmp_path / "b"))
        az.train_az(config, log=_quiet)


def test_time_budget_starts_no_iteration_past_it(tmp_path: Path) -> None:
    lines: list[str] = []
    config = tiny_az_config(tmp_path, iterations=0, time_budget=1e-6, final_eval_games=0)
    results = az.train_az(config, log=lines.append)
    assert results["iterations_done"] == 0
    assert any("time budget" in line for line in lines)
    assert PolicyValueNet.load(Path(config.out) / "model.npz").meta["trained"]["iteration"] == 0


def test_a_time_budget_alone_runs_until_it() -> None:
    assert az.AZConfig().iterations == az.DEFAULT_ITERATIONS == 10
    assert az.AZConfig(time_budget=5).iterations == 0
    assert az.AZConfig(time_budget=5, iterations=3).iterations == 3


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"env": "chess_v0"}, "unknown env 'chess_v0'"),
        ({"env_kwargs": {"board": 3}}, "has no parameter .board."),
        ({"env_kwargs": {"board_size": 99}}, "board_size"),
        ({"games": 0}, "games must be an integer >= 1"),
        ({"hidden": ()}, "hidden must be"),
        ({"value_target": "score"}, "value_target 'score' needs a game with final scores"),
        ({"value_target": "margin"}, "value_target must be one of result, score"),
        ({"iterations": 0}, "give a time_budget"),
        ({"eval_opponents": ("nobody",)}, "unknown agent 'nobody'"),
        ({"dirichlet_fraction": 1.5}, "dirichlet_fraction"),
        ({"learning_rate": 0}, "learning_rate must be a number > 0"),
        ({"weight_decay": "none"}, "weight_decay must be a number >= 0"),
        ({"time_budget": float("inf")}, "time_budget must be a number of minutes > 0"),
        ({"dirichlet_alpha": -1.0}, "dirichlet_alpha must be a number > 0"),
        ({"warm_start": "nobody"}, "unknown agent 'nobody'"),
        ({"opponent": "nobody"}, "unknown agent 'nobody'"),
        ({"opponent_share": -0.1}, "opponent_share must be in"),
        ({"rollout_weight": 1.5}, r"rollout_weight must be in \[0, 1\]"),
        ({"eval_rollout_weight": -1}, r"eval_rollout_weight must be in \[0, 1\]"),
        ({"target_temperature": 0}, "target_temperature must be a number > 0"),
        ({"model_dtype": "int8"}, "model_dtype must be float32 or float16"),
        ({"warm_games": 0}, "warm_games must be an integer >= 1"),
        ({"warm_epochs": 0}, "warm_epochs must be a number > 0"),
        ({"warm_epsilon": 2}, "warm_epsilon must be in"),
        ({"warm_temperature": -1}, "warm_temperature must be a number > 0"),
        ({"warm_learning_rate": 0}, "warm_learning_rate must be a number > 0"),
    ],
)
def test_bad_settings_are_named(tmp_path: Path, overrides: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        tiny_az_config(tmp_path, **overrides)


def test_old_setting_names_are_read_as_the_playout_settings() -> None:
    with pytest.warns(DeprecationWarning) as caught:
        config = az.AZConfig(rollout_weight=0.5, rollout_policy="greedy")
    assert [str(w.message).split(";")[0] for w in caught] == [
        "AZConfig's rollout_weight is now playout_weight",
        "AZConfig's rollout_policy is now playout",
    ]
    assert (config.playout_weight, config.playout) == (0.5, "greedy")
    # a config saved before the rename (results.json, checkpoint.pt) loads, without a warning
    saved = az.AZConfig(eval_playout_weight=0.25, eval_playout="greedy").to_dict()
    for old, new in az.OLD_NAMES.items():
        saved[old] = saved.pop(new)
    expected = az.AZConfig(eval_playout_weight=0.25, eval_playout="greedy")
    assert az.AZConfig.from_dict(saved) == expected
    with pytest.raises(InvalidParameterError, match="rollout_weight is the old name of playout_w"):
        az.AZConfig(rollout_weight=0.5, playout_weight=0.25)
    with pytest.raises(InvalidParameterError, match="unknown AZConfig field"):
        az.AZConfig.from_dict({"rollout": 0.5})


def test_resume_reads_a_checkpoint_saved_with_the_old_names(tmp_path: Path) -> None:
    first = tiny_az_config(tmp_path, final_eval_games=0, eval_opponents=("random",))
    az.train_az(first, log=_quiet)
    path = Path(first.out) / "checkpoint.pt"
    saved = torch.load(path, weights_only=True)
    for old, new in az.OLD_NAMES.items():  # as the checkpoints written before the rename
        saved["config"][old] = saved["config"].pop(new)
    result = saved["run"]["history"][0]["vs"]["random"]
    result["rollout_weight"], result["rollout_policy"] = result.pop("playout_weight"), "random"
    del result["playout"]
    torch.save(saved, path)
    resumed = tiny_az_config(
        tmp_path, iterations=2, final_eval_games=0, eval_opponents=("random",), resume=first.out
    )
    results = az.train_az(resumed, log=_quiet)
    assert results["iterations_done"] == 2
    for point in results["history"]:
        assert {"playout_weight", "playout"} <= set(point["vs"]["random"])
        assert "rollout_weight" not in point["vs"]["random"]


# ---- command line -------------------------------------------------------------------------------
def test_help_shows_every_default(capsys: pytest.CaptureFixture[str]) -> None:
    parser = az.build_parser()
    formatter = parser._get_formatter()
    options = [
        a
        for a in parser._actions
        if a.option_strings and a.nargs != 0 and a.default not in (None, argparse.SUPPRESS, [])
    ]
    assert len(options) > 20
    for action in options:
        assert "default" in formatter._expand_help(action), action.option_strings
    with_none = [a for a in parser._actions if a.option_strings and a.default is None]
    for action in with_none:  # no default value: the help says what happens without the option
        assert "default" in action.help or action.dest == "resume", action.option_strings
    with pytest.raises(SystemExit):
        cli_main(["train", "--help"])
    assert "--algo {ppo,az}" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        cli_main(["train", "--algo", "az", "--help"])
    out = capsys.readouterr().out
    assert "usage: tabletop-envs train --algo az" in out and "--simulations" in out


#: Every option of the command line before it was generated from AZConfig.
OPTIONS_BEFORE = [
    "--batch-size",
    "--buffer-size",
    "--c-puct",
    "--dirichlet-alpha",
    "--dirichlet-fraction",
    "--env",
    "--env-arg",
    "--eval-every",
    "--eval-games",
    "--eval-opponents",
    "--eval-rollout-policy",
    "--eval-rollout-weight",
    "--eval-simulations",
    "--final-eval-games",
    "--games",
    "--help",
    "--hidden",
    "--iterations",
    "--keep-best",
    "--lr",
    "--model-dtype",
    "--no-progress",
    "--no-save-buffer",
    "--opponent",
    "--opponent-share",
    "--out",
    "--param",
    "--resume",
    "--rollout-policy",
    "--rollout-weight",
    "--sample-reuse",
    "--score-scale",
    "--seed",
    "--simulations",
    "--target-temperature",
    "--temperature-moves",
    "--threads",
    "--time-budget",
    "--value-target",
    "--warm-epochs",
    "--warm-epsilon",
    "--warm-games",
    "--warm-lr",
    "--warm-start",
    "--warm-temperature",
    "--weight-decay",
    "-h",
]


def test_every_option_of_before_still_works() -> None:
    parser = az.build_parser()
    assert set(OPTIONS_BEFORE) <= set(parser._option_string_actions)
    new = ["--playout-weight", "0.5", "--playout", "greedy"]
    new += ["--eval-playout-weight", "0.25", "--eval-playout", "random"]
    old = ["--rollout-weight", "0.5", "--rollout-policy", "greedy"]
    old += ["--eval-rollout-weight", "0.25", "--eval-rollout-policy", "random"]
    config = az.config_from_args(parser.parse_args(new))
    assert config == az.config_from_args(parser.parse_args(old))
    assert (config.playout_weight, config.playout) == (0.5, "greedy")
    assert (config.eval_playout_weight, config.eval_playout) == (0.25, "random")
    flags = ["--hidden", "32,16", "--lr", "0.01", "--warm-lr", "0.02", "--param", "board_size=4"]
    flags += ["--keep-best", "--no-save-buffer", "--no-progress", "--eval-opponents", "greedy"]
    config = az.config_from_args(parser.parse_args(flags))
    assert config.hidden == (32, 16) and config.env_kwargs == {"board_size": 4}
    assert (config.learning_rate, config.warm_learning_rate) == (0.01, 0.02)
    assert config.keep_best and not config.save_buffer and not config.progress_bar
    assert az.config_from_args(parser.parse_args([])) == az.AZConfig()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--algo", "alphago"], "invalid choice: 'alphago'"),
        (["--algo", "az", "--games", "0"], "error: --games must be an integer >= 1"),
        (["--algo", "az", "--eval-opponents", "nope"], "error: --eval-opponents: unknown agent"),
        (["--algo", "az", "--keep-best", "--eval-every", "0"], "give --eval-every > 0"),
        (["--algo", "az", "--hidden", "wide"], "comma-separated layer widths"),
        (["--algo", "az", "--env", "iris_v0", "--value-target", "score"], "final scores"),
        (["--algo", "az", "--timesteps", "5"], "unrecognized arguments: --timesteps"),
    ],
)
def test_cli_argument_errors_are_clear(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli_main(["train", *argv])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_cli_trains_and_resumes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cli"
    common = ["--env", "iris_v0", "--env-arg", "board_size=3", "--hidden", "8", "--games", "2"]
    common += ["--simulations", "2", "--eval-every", "0", "--final-eval-games", "2"]
    common += ["--eval-simulations", "0", "--out", str(out)]
    assert cli_main(["train", "--algo", "az", *common, "--iterations", "1"]) == 0
    bar = capsys.readouterr().err  # the progress bar, on by default
    assert "1/1" in bar and "pos/s" in bar
    more = [*common, "--iterations", "2", "--resume", str(out), "--eval-every", "1"]
    assert cli_main(["train", "--algo", "az", *more, "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "resumed" in text and "[iteration 2] vs random" in text and "2 iterations" in text
    assert "final vs greedy" in text
    assert json.loads((out / "results.json").read_text())["iterations_done"] == 2
    # the file says how it was made and how it plays by default
    meta = PolicyValueNet.load(out / "model.npz").meta
    assert meta["trained"] == {
        "iteration": 2,
        "command": "python -m tabletop_envs.training.az " + " ".join([*more, "--no-progress"]),
    }
    assert (meta["simulations"], meta["rollout_weight"]) == (0, 0.0)
    result = run_arena(
        "iris_v0",
        [AZAgent(PolicyValueNet.load(out / "model.npz"), simulations=1), "random"],
        games=2,
        env_kwargs={"board_size": 3},
    )
    assert result.stats[0].results == 2


def test_example_script_shows_its_options() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "train_az.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": ""},
    )
    assert done.returncode == 0, done.stderr
    assert "usage: train_az.py" in done.stdout and "--time-budget MINUTES" in done.stdout


def test_a_file_that_is_no_checkpoint_is_refused_in_a_line(tmp_path: Path) -> None:
    text = tmp_path / "notes.pt"
    text.write_text("not a checkpoint")
    with pytest.raises(ValueError, match=r"is not a checkpoint.pt written by this trainer \(not a"):
        az.load_checkpoint(text)
    archive = tmp_path / "other.pt"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("data.txt", "a zip archive, but no torch file")
    with pytest.raises(ValueError, match=r"this trainer \(torch cannot read it: .{1,200}\)$"):
        az.load_checkpoint(archive)
