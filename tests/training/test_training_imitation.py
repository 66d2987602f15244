"""Imitation pre-training: recorded demonstrations and a policy fitted to them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

import tabletop_envs
from tabletop_envs.agents import make_agent
from tabletop_envs.agents.base import Agent
from tabletop_envs.agents.single_agent import SingleAgentEnv
from tabletop_envs.training.imitation import collect_demonstrations

ENVS = tabletop_envs.registered_envs()


class Recorder(Agent):
    """Wraps an agent and remembers, per game, every action it was asked for."""

    name = "recorder"

    def __init__(self, inner: Agent) -> None:
        self.inner = inner
        self.asked: list[int] = []

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed)

    def act(self, game, seat: int) -> int:
        action = self.inner.act(game, seat)
        self.asked.append(action)
        return action


class Ranked(Agent):
    """A deterministic expert: the legal action first in a fixed scrambled ranking of the ids.

    Its ``action_scores`` are minus a tenth of each legal action's rank, so its best (and only
    best) action is the one ``act`` plays.
    """

    name = "ranked"

    def __init__(self, num_actions: int) -> None:
        self.rank = np.random.default_rng(5).permutation(num_actions)

    def act(self, game, seat: int) -> int:
        legal = np.flatnonzero(game.legal_mask())
        return int(legal[self.rank[legal].argmin()])

    def action_scores(self, game, seat: int) -> tuple[list[int], list[float]]:
        legal = np.flatnonzero(game.legal_mask()).tolist()
        return legal, [-float(self.rank[a]) / 10 for a in legal]


@pytest.mark.parametrize("name", ENVS)
def test_demonstrations_hold_the_experts_legal_moves_and_returns(name: str) -> None:
    env = SingleAgentEnv(name, opponent=make_agent("random", name, 3), reward="margin")
    expert = Recorder(make_agent("greedy", name, 4))
    data = collect_demonstrations(env, expert, 3, seed=1)
    assert data.episodes == 3 and len(data) == len(expert.asked) > 0
    assert data.observations.shape == (len(data), env.observation_space.shape[0])
    assert data.observations.dtype == np.int8  # every game's observation fits int8
    assert data.masks.shape == (len(data), env.action_space.n)
    assert data.actions.tolist() == expert.asked
    assert data.masks[np.arange(len(data)), data.actions].all()  # every label is legal
    # gamma 1 and a terminal-only reward: each step's return is its episode's margin, which
    # under the win/loss rewards (+1 / -1) is +2, 0 or -2
    assert set(np.unique(data.returns).tolist()) <= {-2.0, 0.0, 2.0}


def test_epsilon_plays_random_moves_but_keeps_expert_labels() -> None:
    class Fixed(Agent):
        """Always the first legal action: a random move differs from it most of the time."""

        def act(self, game, seat: int) -> int:
            return int(np.flatnonzero(game.legal_mask())[0])

    env = SingleAgentEnv("iris_v0", opponent=make_agent("random", "iris_v0", 0))
    data = collect_demonstrations(env, Fixed(), 4, epsilon=1.0, seed=2)
    first_legal = data.masks.argmax(axis=1)
    np.testing.assert_array_equal(data.actions, first_legal)  # labels: always the expert's
    # the positions differ from those of the expert's own games (random moves were played)
    own = collect_demonstrations(env, Fixed(), 4, epsilon=0.0, seed=2)
    assert data.observations.shape != own.observations.shape or not np.array_equal(
        data.observations, own.observations
    )


@pytest.mark.parametrize("bad", [{"episodes": 0}, {"episodes": 1, "epsilon": 1.5}])
def test_bad_arguments_are_named(bad: dict) -> None:
    env = SingleAgentEnv("iris_v0")
    episodes = bad.pop("episodes")
    with pytest.raises(ValueError, match=r"episodes|epsilon"):
        collect_demonstrations(env, make_agent("random", "iris_v0"), episodes, **bad)


def _need_sb3() -> None:
    if os.environ.get("CI") == "true":
        import sb3_contrib  # noqa: F401  CI installs the train extra: it must fail, not skip
    else:
        pytest.importorskip("sb3_contrib")


def test_pretraining_makes_the_policy_agree_with_the_expert() -> None:
    _need_sb3()
    from sb3_contrib import MaskablePPO

    from tabletop_envs.training.imitation import pretrain_policy

    env = SingleAgentEnv("iris_v0")

    data = collect_demonstrations(env, Ranked(env.action_space.n), 20, seed=0)
    model = MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [32]}, seed=0)
    before = pretrain_policy(model.policy, data, epochs=0)
    after = pretrain_policy(model.policy, data, epochs=30, learning_rate=3e-3, batch_size=64)
    assert before["train_agreement"] < 0.5  # forced moves (one legal action) agree anyway
    assert after["train_agreement"] > 0.95 and after["validation_agreement"] > 0.9
    assert after["epochs"][-1]["policy_loss"] < after["epochs"][0]["policy_loss"]


def test_train_with_imitation_records_its_stats(tmp_path: Path) -> None:
    _need_sb3()
    from tabletop_envs.training.train import main

    out = tmp_path / "bc"
    args = [
        "--env", "isis_osiris_v0", "--imitate", "greedy", "--imitate-episodes", "6",
        "--imitate-epochs", "2", "--imitate-rounds", "2", "--timesteps", "128", "--n-envs", "2",
        "--n-steps", "32", "--batch-size", "32", "--n-epochs", "1", "--net-arch", "16",
        "--eval-every", "64", "--eval-games", "2", "--final-eval-games", "2", "--no-progress",
        "--out", str(out),
    ]  # fmt: skip
    assert main(args) == 0
    results = json.loads((out / "results.json").read_text())
    imitation = results["imitation"]
    assert imitation["expert"] == "greedy" and imitation["episodes"] == 12  # 2 rounds of 6
    assert len(imitation["rounds"]) == 2
    assert imitation["steps"] > 6 and len(imitation["epochs"]) == 2
    assert results["history"][0]["timesteps"] == 0  # evaluated right after imitation


def test_zero_timesteps_means_imitation_only(tmp_path: Path) -> None:
    _need_sb3()
    from tabletop_envs.training.ppo.config import TrainConfig
    from tabletop_envs.training.ppo.run import train
    from tabletop_envs.training.train import main

    out = tmp_path / "bc_only"
    args = [
        "--env", "iris_v0", "--env-arg", "board_size=3", "--imitate", "greedy",
        "--imitate-episodes", "4", "--imitate-epochs", "1", "--timesteps", "0",
        "--net-arch", "16", "--eval-every", "0", "--final-eval-games", "2", "--no-progress",
        "--out", str(out),
    ]  # fmt: skip
    assert main(args) == 0
    results = json.loads((out / "results.json").read_text())
    assert results["timesteps"] == 0 and results["imitation"]["episodes"] == 4
    assert results["final"]["games"] == 2
    with pytest.raises(ValueError, match="timesteps must be positive"):
        train(TrainConfig(env="iris_v0", timesteps=0, out=str(tmp_path / "none")))
    with pytest.raises(ValueError, match="at least 1 round"):
        train(TrainConfig(imitate="greedy", imitate_rounds=0, out=str(tmp_path / "none")))


def test_recording_workers_split_the_episodes_and_keep_the_single_process_seeds(
    tmp_path: Path,
) -> None:
    _need_sb3()
    from tabletop_envs.training.ppo.config import TrainConfig
    from tabletop_envs.training.ppo.opponents import env_factory
    from tabletop_envs.training.ppo.pretrain import record_expert
    from tabletop_envs.training.ppo.run import train
    from tabletop_envs.training.train import main

    config = TrainConfig(env="iris_v0", env_kwargs={"board_size": 3}, imitate="greedy", n_envs=2)
    # worker 0 records exactly what one process always recorded
    alone = record_expert(config, 0, 3, False)
    expert = make_agent("greedy", "iris_v0", config.seed + 55)
    direct = collect_demonstrations(
        env_factory(config, rank=config.n_envs)(), expert, 3, epsilon=0.1, seed=config.seed + 7
    )
    assert np.array_equal(alone.observations, direct.observations)
    assert np.array_equal(alone.actions, direct.actions)
    # worker 1 plays other deals
    other = record_expert(config, 1, 3, False)
    assert not np.array_equal(other.actions[:4], alone.actions[:4])
    out = tmp_path / "workers"
    args = [
        "--env", "iris_v0", "--env-arg", "board_size=3", "--imitate", "greedy",
        "--imitate-episodes", "5", "--imitate-workers", "2", "--imitate-epochs", "1",
        "--timesteps", "0", "--net-arch", "16", "--eval-every", "0", "--final-eval-games", "2",
        "--no-progress", "--out", str(out),
    ]  # fmt: skip
    assert main(args) == 0
    imitation = json.loads((out / "results.json").read_text())["imitation"]
    assert imitation["episodes"] == 5 and imitation["collect_workers"] == 2
    with pytest.raises(ValueError, match="imitate_workers must be at least 1, got 0"):
        train(TrainConfig(imitate="greedy", imitate_workers=0, out=str(tmp_path / "none")))


def test_dagger_behaviour_plays_while_the_expert_labels() -> None:
    env = SingleAgentEnv("iris_v0", opponent=make_agent("random", "iris_v0", 0))
    player = Recorder(make_agent("random", "iris_v0", 5))
    expert = Recorder(make_agent("greedy", "iris_v0", 6))
    data = collect_demonstrations(env, expert, 3, behaviour=player, seed=4)
    assert data.actions.tolist() == expert.asked  # labels: the expert's choices …
    assert len(player.asked) == len(data)  # … on the positions the behaviour agent reached
    assert player.asked != expert.asked
    both = data + collect_demonstrations(env, expert, 2, seed=5)
    assert both.episodes == 5 and len(both) > len(data)
    np.testing.assert_array_equal(both.targets[: len(data)], data.targets)


def test_scores_record_every_legal_action_and_give_soft_targets() -> None:
    env = SingleAgentEnv(
        "irk_v0", opponent=make_agent("random", "irk_v0", 0), env_kwargs={"table_size": 9}
    )
    expert = make_agent("greedy", "irk_v0", 1)
    data = collect_demonstrations(env, expert, 2, scores=True, seed=3)
    assert data.has_scores and data.score_rows[-1] == len(data.score_actions)
    for row in range(len(data)):
        part = slice(data.score_rows[row], data.score_rows[row + 1])
        rated = data.score_actions[part]
        assert rated.tolist() == np.flatnonzero(data.masks[row]).tolist()  # every legal one
        values = data.score_values[part]
        best = rated[values >= values.max() - 1e-6]
        assert best.tolist() == np.flatnonzero(data.targets[row]).tolist()  # targets: the top
    rows = np.arange(len(data))
    cold = data.soft_targets(rows, env.action_space.n, temperature=1e-3)
    np.testing.assert_allclose(cold.sum(axis=1), 1.0, rtol=1e-5)
    assert (cold[~data.masks] == 0).all()
    # a cold softmax puts its mass evenly on the tied best actions
    ties = data.targets.sum(axis=1)
    np.testing.assert_allclose(cold[data.targets], np.repeat(1 / ties, ties), rtol=1e-4)
    hot = data.soft_targets(rows, env.action_space.n, temperature=1e6)
    legal = data.masks.sum(axis=1)
    np.testing.assert_allclose(hot[data.masks], np.repeat(1 / legal, legal), rtol=1e-4)
    both = data + collect_demonstrations(env, expert, 1, scores=True, seed=4)
    assert len(both.score_rows) == len(both) + 1 and both.score_rows[-1] == len(both.score_actions)
    np.testing.assert_array_equal(
        both.soft_targets(rows, env.action_space.n, 1.0),
        data.soft_targets(rows, env.action_space.n, 1.0),
    )
    with pytest.raises(ValueError, match="with and without"):
        data + collect_demonstrations(env, expert, 1, seed=4)


def test_scores_need_an_expert_that_rates_actions_and_a_temperature_needs_scores() -> None:
    env = SingleAgentEnv("iris_v0", env_kwargs={"board_size": 3})
    with pytest.raises(ValueError, match="rates no actions"):
        collect_demonstrations(env, make_agent("random", "iris_v0"), 1, scores=True)
    _need_sb3()
    from sb3_contrib import MaskablePPO

    from tabletop_envs.training.imitation import pretrain_policy

    data = collect_demonstrations(env, make_agent("greedy", "iris_v0", 0), 2)
    model = MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [8]}, seed=0)
    with pytest.raises(ValueError, match="scores=True"):
        pretrain_policy(model.policy, data, epochs=1, temperature=1.0)
    scored = collect_demonstrations(env, make_agent("greedy", "iris_v0", 0), 2, scores=True)
    with pytest.raises(ValueError, match="temperature must be positive"):
        pretrain_policy(model.policy, scored, epochs=1, temperature=0.0)


def test_soft_targets_teach_the_experts_ranking() -> None:
    _need_sb3()
    from sb3_contrib import MaskablePPO

    from tabletop_envs.training.imitation import pretrain_policy

    env = SingleAgentEnv("iris_v0")

    data = collect_demonstrations(env, Ranked(env.action_space.n), 20, scores=True, seed=0)
    model = MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [32]}, seed=0)
    stats = pretrain_policy(
        model.policy, data, epochs=30, learning_rate=3e-3, batch_size=64, temperature=0.5
    )
    assert stats["temperature"] == 0.5
    assert stats["train_agreement"] > 0.9 and stats["validation_agreement"] > 0.85
