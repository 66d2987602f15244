"""Saved models as agents: deterministic by default like training's evaluations, torch pinned."""

from __future__ import annotations

import os

import numpy as np
import pytest

if os.environ.get("CI") == "true":
    import sb3_contrib  # noqa: F401  CI installs the train extra: missing, it must fail, not skip
else:
    pytest.importorskip("sb3_contrib")
import torch
from sb3_contrib import MaskablePPO

from tabletop_envs import cli
from tabletop_envs.agents.registry import make_agent
from tabletop_envs.agents.single_agent import SingleAgentEnv
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.training.ppo.config import TrainConfig
from tabletop_envs.training.sb3 import DEFAULT_THREADS, PolicyAgent
from tests.agents.helpers import advance, new_game

ENV = "iris_v0"
PARAMS = {"board_size": 3}


@pytest.fixture(scope="module")
def model_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A tiny MaskablePPO model of Iris (board side 3), saved as a zip."""
    env = SingleAgentEnv(ENV, env_kwargs=PARAMS)
    model = MaskablePPO(
        "MlpPolicy", env, seed=0, device="cpu", n_steps=64, batch_size=64, n_epochs=1,
        policy_kwargs={"net_arch": [16]},
    )  # fmt: skip
    model.learn(total_timesteps=64)
    path = tmp_path_factory.mktemp("model") / "model.zip"
    model.save(path)
    return str(path)


@pytest.fixture(autouse=True)
def restore_torch_threads():
    """Leave torch's thread count as the test found it."""
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def test_sb3_agents_play_the_most_likely_move_by_default_as_training_evaluates(model_path):
    assert TrainConfig().eval_deterministic is True
    assert make_agent(f"sb3:{model_path}", ENV).deterministic is True
    assert make_agent(f"sb3:{model_path},deterministic", ENV).deterministic is True
    assert make_agent(f"sb3:{model_path},sample", ENV).deterministic is False
    assert PolicyAgent.load(model_path).deterministic is True
    model = MaskablePPO.load(model_path, device="cpu")
    assert PolicyAgent(model).deterministic is True
    agent = make_agent(f"sb3:{model_path}", ENV)
    for steps in (0, 2, 5, 9):
        game = advance(new_game(ENV, PARAMS, seed=steps), steps, seed=steps)
        if game.is_terminal:
            continue
        seat = game.current_player
        obs = game.observation(seat).astype(np.float32).reshape(-1)
        mask = game.legal_mask().astype(bool)
        expected, _ = model.predict(obs, action_masks=mask, deterministic=True)
        assert [agent.act(game, seat) for _ in range(3)] == [int(expected)] * 3


def test_loading_pins_torch_threads(model_path):
    torch.set_num_threads(2)
    make_agent(f"sb3:{model_path}", ENV)
    assert torch.get_num_threads() == DEFAULT_THREADS == 1
    make_agent(f"sb3:{model_path},sample,threads=2", ENV)
    assert torch.get_num_threads() == 2
    PolicyAgent.load(model_path, threads=0)  # 0: torch's setting is left alone
    assert torch.get_num_threads() == 2
    PolicyAgent.load(model_path, threads=1)
    assert torch.get_num_threads() == 1
    with pytest.raises(InvalidParameterError, match="threads must be from 0"):
        PolicyAgent.load(model_path, threads=-1)


@pytest.mark.parametrize(
    "options", [",samples", ",threads=two", ",threads=1,threads=2", ",deterministic=1"]
)
def test_sb3_spec_errors_say_what_is_valid(model_path, options):
    with pytest.raises(ValueError, match=r"sample|threads"):
        make_agent(f"sb3:{model_path}{options}", ENV)


def test_evaluate_pins_threads_and_reports_the_spec_as_typed(model_path, capsys):
    torch.set_num_threads(2)
    argv = ["evaluate", "--env", ENV, "--param", "board_size=3", "--games", "2", "--quiet"]
    code = cli.main([*argv, "--agents", f"sb3:{model_path}", "random"])
    out = capsys.readouterr().out
    assert code == 0 and torch.get_num_threads() == 1
    assert f"sb3:{model_path} " in out and "threads=" not in out
    code = cli.main([*argv, "--threads", "2", "--agents", f"sb3:{model_path}", "random"])
    assert code == 0 and torch.get_num_threads() == 2
    code = cli.main([*argv, "--threads", "1", "--agents", f"sb3:{model_path},threads=2", "random"])
    assert code == 0 and torch.get_num_threads() == 2  # the spec's own setting wins
    capsys.readouterr()
    assert cli.main([*argv, "--threads", "-1", "--agents", f"sb3:{model_path}", "random"]) == 2
    assert "--threads must be 0" in capsys.readouterr().err


def test_an_irk_model_of_other_observation_parameters_takes_them_as_options(tmp_path):
    params = {"table_size": 7, "action_values": True}
    env = SingleAgentEnv("irk_v0", env_kwargs=params)
    model = MaskablePPO(
        "MlpPolicy", env, seed=0, device="cpu", n_steps=32, batch_size=32, n_epochs=1,
        policy_kwargs={"net_arch": [8]},
    )  # fmt: skip
    model.learn(total_timesteps=32)
    path = str(tmp_path / "irk.zip")
    model.save(path)
    plain = advance(new_game("irk_v0", {"table_size": 7}, seed=1), 3, seed=1)
    with pytest.raises(ValueError, match=r"reads observations of shape .*action_values"):
        make_agent(f"sb3:{path}", "irk_v0").act(plain, plain.current_player)
    agent = make_agent(f"sb3:{path},action_values=true", "irk_v0")
    assert agent.observation == {"action_values": True}
    seat = plain.current_player
    read = plain.with_observation(action_values=True)
    obs, mask = read.observation(seat).astype(np.float32), read.legal_mask()
    expected, _ = model.predict(obs, action_masks=mask, deterministic=True)
    assert agent.act(plain, seat) == int(expected)  # the position read as the model learnt it
    for bad, message in (
        ("action_values=maybe", "action_values must be True or False"),
        ("table_size=9", "NAME one of action_values, group_planes"),
    ):
        with pytest.raises(ValueError, match=message):
            make_agent(f"sb3:{path},{bad}", "irk_v0")
    with pytest.raises(ValueError, match=r"threads=N torch threads, default 1\)"):
        make_agent(f"sb3:{path},group_planes=true", "iris_v0")  # Iris has no such parameter


def test_action_scores_are_the_policys_log_probabilities_over_the_legal_actions(model_path):
    from tabletop_envs.training.az.warm_start import expert_games

    agent = make_agent(f"sb3:{model_path}", ENV)
    model = MaskablePPO.load(model_path, device="cpu")
    for steps in (0, 3, 6):
        game = advance(new_game(ENV, PARAMS, seed=steps), steps, seed=steps)
        seat = game.current_player
        actions, scores = agent.action_scores(game, seat)
        mask = game.legal_mask().astype(bool)
        assert actions == [int(a) for a in np.flatnonzero(mask)]
        obs = torch.as_tensor(game.observation(seat).astype(np.float32).reshape(1, -1))
        dist = model.policy.get_distribution(obs, action_masks=mask)
        expected = dist.distribution.probs.detach().numpy().reshape(-1)[mask]
        np.testing.assert_allclose(np.exp(scores), expected, rtol=1e-5, atol=1e-7)
        assert actions[int(np.argmax(scores))] == agent.act(game, seat)
    # a warm start at temperature 1 learns the policy's whole distribution (its first row is
    # Iris's opening position, the same whatever the deal's seed)
    batch = expert_games(agent, type(game), game.params, 1, np.random.default_rng(0), 0.0, 1.0)
    first = new_game(ENV, PARAMS, seed=0)
    probs = np.zeros(first.legal_mask().shape)
    actions, scores = agent.action_scores(first, first.current_player)
    probs[actions] = np.exp(scores)
    np.testing.assert_allclose(batch.pi[0], probs, rtol=1e-5, atol=1e-7)


def test_a_model_with_only_predict_rates_nothing():
    class PredictOnly:
        def predict(self, obs, action_masks, deterministic):
            return int(np.flatnonzero(action_masks)[0]), None

    game = new_game(ENV, PARAMS, seed=0)
    agent = PolicyAgent(PredictOnly())
    assert agent.action_scores(game, game.current_player) is None
    assert agent.act(game, game.current_player) == int(np.flatnonzero(game.legal_mask())[0])
