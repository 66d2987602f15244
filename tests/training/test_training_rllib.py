"""RLlib self-play: the MultiAgentEnv, masked modules, CI-sized training, checkpoints, the arena."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import tabletop_envs

if os.environ.get("CI") == "true":
    import ray  # CI installs the rllib extra: missing, it must fail, not skip
else:
    pytest.importorskip("ray.rllib")
    pytest.importorskip("torch")
import ray
import torch
from ray.rllib.core.columns import Columns

from tabletop_envs.agents.registry import make_agent
from tabletop_envs.evaluation import run_arena
from tabletop_envs.games.irk.rules import IrkState
from tabletop_envs.training.rllib import (
    RLlibAgent,
    SelfPlayMapping,
    arena_yardstick,
    make_multi_agent_env,
    masked_module_spec,
    masked_observation,
    register_rllib_env,
    self_play_config,
    snapshot_id,
    train_iterations,
)

ENVS = tabletop_envs.registered_envs()
#: (env, kwargs): 2, 3 and 4 players among the games
PLAYER_COUNTS = [
    ("iris_v0", {"board_size": 3}),
    ("isis_osiris_v0", {"num_players": 3}),
    ("irk_v0", {"num_players": 4}),
]
TINY = {
    "train_batch_size": 128,
    "minibatch_size": 64,
    "num_epochs": 1,
    "hidden": (16,),
    "num_env_runners": 2,
}


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray instance (2 CPUs, no dashboard) for this module's trainings."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


# ---- the env --------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "kwargs"), PLAYER_COUNTS)
def test_turn_based_episode(name: str, kwargs: dict) -> None:
    env = make_multi_agent_env(name, **kwargs)
    n = len(env.possible_agents)
    space = env.observation_spaces["player_0"]
    assert set(space.spaces) == {"observations", "action_mask"}
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    steps = 0
    while True:
        (agent,) = obs  # only the agent to move gets an observation
        seat = int(agent.rpartition("_")[2])
        expected = masked_observation(env.env.unwrapped.game, seat)
        for key in ("observations", "action_mask"):
            np.testing.assert_array_equal(obs[agent][key], expected[key])
        assert space.contains(obs[agent])
        mask = obs[agent]["action_mask"]
        assert mask.dtype == np.float32 and set(np.unique(mask)) <= {0.0, 1.0} and mask.any()
        obs, rewards, terminateds, truncateds, _ = env.step(
            {agent: int(rng.choice(np.flatnonzero(mask)))}
        )
        steps += 1
        if terminateds["__all__"]:
            break
        assert set(rewards.values()) == {0}
    # every agent gets its final observation and its return at the end
    game = env.env.unwrapped.game
    assert game.is_terminal and steps <= game.spec.max_game_length
    assert set(obs) == set(rewards) == {f"player_{s}" for s in range(n)}
    assert [rewards[f"player_{s}"] for s in range(n)] == pytest.approx(list(game.returns()))
    assert all(terminateds.values()) and not any(truncateds.values())
    assert not any(o["action_mask"].any() for o in obs.values())


def test_register_rllib_env_rejects_unknown_names() -> None:
    with pytest.raises(ValueError, match=r"registered envs: .*iris_v0"):
        register_rllib_env("chess_v0")


def test_config_validates_its_arguments() -> None:
    with pytest.raises(ValueError, match="policies"):
        self_play_config("iris_v0", policies="everyone")
    with pytest.raises(ValueError, match="league_size must be an integer >= 0"):
        self_play_config("iris_v0", league_size=-1)
    with pytest.raises(ValueError, match="board_size"):
        self_play_config("iris_v0", {"board_size": 1})


def test_self_play_mapping() -> None:
    shared = SelfPlayMapping(3)
    assert {shared(f"player_{s}", "ep") for s in range(3)} == {"main"}
    per_seat = SelfPlayMapping(3, "per_seat")
    assert [per_seat(f"player_{s}", "ep") for s in range(3)] == ["seat_0", "seat_1", "seat_2"]
    league = SelfPlayMapping(2, "shared", league_size=3, self_play_prob=0.0)
    seen = set()
    for episode in range(200):
        modules = [league(f"player_{s}", str(episode)) for s in range(2)]
        assert modules == [league(f"player_{s}", str(episode)) for s in range(2)]  # stable
        assert modules.count("main") == 1  # one learning seat, the other a snapshot
        seen.update(modules)
    assert seen == {"main", *(snapshot_id("main", k) for k in range(3))}


@pytest.mark.parametrize(("name", "kwargs"), PLAYER_COUNTS)
def test_masked_logits_never_sample_illegal_actions(name: str, kwargs: dict) -> None:
    module = masked_module_spec(name, kwargs, hidden=(16,)).build()
    env = make_multi_agent_env(name, **kwargs)
    rng = np.random.default_rng(1)
    obs, _ = env.reset(seed=1)
    while True:
        (agent,) = obs
        batch = {Columns.OBS: {k: torch.from_numpy(v)[None] for k, v in obs[agent].items()}}
        with torch.no_grad():
            logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS][0]
        probs = torch.softmax(logits.double(), -1).numpy()
        mask = obs[agent]["action_mask"].astype(bool)
        assert probs[~mask].sum() == 0.0 and probs[mask].sum() == pytest.approx(1.0)
        obs, _, terminateds, _, _ = env.step({agent: int(rng.choice(np.flatnonzero(mask)))})
        if terminateds["__all__"]:
            break


# ---- CI-sized training, checkpoints, the arena ----------------------------------------------
@pytest.mark.parametrize("name", ENVS)
def test_self_play_training_round_trip(
    name: str, local_ray, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the checkpoint by a relative path, saved and loaded
    algo = self_play_config(name, seed=0, **TINY).build_algo()
    try:
        records = train_iterations(algo, 2, checkpoint_dir="ck")
        assert [r["iteration"] for r in records] == [1, 2]
        assert records[-1]["env_steps"] >= 2 * TINY["train_batch_size"]
        weights = algo.learner_group.get_weights(["main"])["main"]  # what was saved
    finally:
        algo.stop()
    # the checkpoint as an agent: the same module weights, legal moves in the arena
    agent = make_agent("rllib:ck", name, seed=0)
    assert isinstance(agent, RLlibAgent)
    assert agent.deterministic  # the most likely action, as the sb3 agent plays by default
    sampling = make_agent("rllib:ck,sample", name, seed=0)
    assert isinstance(sampling, RLlibAgent) and not sampling.deterministic
    loaded = agent.modules["main"].get_state()
    for key, value in weights.items():
        np.testing.assert_array_equal(np.asarray(loaded[key]), np.asarray(value))
    result = run_arena(name, ["rllib:ck", "random"], 4, seed=0)
    assert result.stats[0].results == 4 and result.stats[0].moves > 0


def test_resume_continues_the_iterations(local_ray, tmp_path: Path) -> None:
    config = self_play_config("iris_v0", {"board_size": 3}, seed=0, **TINY)
    algo = config.build_algo()
    try:
        train_iterations(algo, 1, checkpoint_dir=tmp_path / "ck")
        saved = algo.learner_group.get_weights(["main"])["main"]
    finally:
        algo.stop()
    algo = config.build_algo()
    try:
        algo.restore_from_path(str(tmp_path / "ck"))
        assert algo.iteration == 1
        restored = algo.learner_group.get_weights(["main"])["main"]
        for key, value in saved.items():
            np.testing.assert_array_equal(np.asarray(restored[key]), np.asarray(value))
        records = train_iterations(algo, 2)
        assert [r["iteration"] for r in records] == [2]
    finally:
        algo.stop()


def test_per_seat_policies_with_a_league(local_ray, tmp_path: Path) -> None:
    config = self_play_config(
        "isis_osiris_v0",
        {"num_players": 3},
        policies="per_seat",
        league_size=2,
        snapshot_every=1,
        seed=0,
        # every seat's module needs a whole minibatch of its own samples to be updated
        **{**TINY, "train_batch_size": 384, "minibatch_size": 32},
    )
    algo = config.build_algo()
    try:
        group = algo.learner_group
        learners = [f"seat_{s}" for s in range(3)]
        before = _copy(group.get_weights())  # the arrays may share the live parameters' memory
        for m in learners:  # every slot starts as a copy of its learner
            for k in range(2):
                _assert_same(before[m], before[snapshot_id(m, k)])
        train_iterations(algo, 1, checkpoint_dir=tmp_path / "ck")
        after = _copy(group.get_weights())
        for m in learners:
            # iteration 1 refreshed slot 0 with the trained weights; slot 1 is still the start
            _assert_same(after[m], after[snapshot_id(m, 0)])
            _assert_same(before[m], after[snapshot_id(m, 1)])
            assert not _same(before[m], after[m])
        # the env runners got the new snapshot's policy weights too (their modules are
        # inference-only: the value function's weights are not sent to them)
        runner_weights = algo.env_runner_group.foreach_env_runner(
            lambda r: r.module[snapshot_id("seat_0", 0)].get_state(), local_env_runner=False
        )
        assert len(runner_weights) == 2
        for w in runner_weights:
            policy_keys = [k for k in w if "critic" not in k and not k.startswith("vf")]
            assert policy_keys
            for key in policy_keys:
                np.testing.assert_array_equal(
                    np.asarray(w[key]), after[snapshot_id("seat_0", 0)][key]
                )
    finally:
        algo.stop()
    agent = RLlibAgent.load(tmp_path / "ck", seed=0)
    assert sorted(agent.modules) == ["seat_0", "seat_1", "seat_2"]  # snapshots stay out
    result = run_arena("isis_osiris_v0", [agent, "random"], 3, env_kwargs={"num_players": 3})
    assert sum(s.results for s in result.stats) == 9


def _copy(weights: dict) -> dict:
    return {m: {k: np.array(v, copy=True) for k, v in w.items()} for m, w in weights.items()}


def _same(a: dict, b: dict) -> bool:
    return all(np.array_equal(np.asarray(a[k]), np.asarray(b[k])) for k in a)


def _assert_same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys() and _same(a, b)


def test_rllib_agent_spec_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="rllib:CHECKPOINT"):
        make_agent("rllib:", "iris_v0")
    with pytest.raises(ValueError, match="rllib:CHECKPOINT"):
        make_agent(f"rllib:{tmp_path},greedy", "iris_v0")
    with pytest.raises(ValueError, match="rllib:CHECKPOINT,sample"):
        make_agent(f"rllib:{tmp_path},sample,sample", "iris_v0")
    with pytest.raises(ValueError, match="not an RLlib algorithm checkpoint"):
        make_agent(f"rllib:{tmp_path}", "iris_v0")


def test_rllib_modules_of_other_observation_parameters_take_them_as_options(tmp_path) -> None:
    game = IrkState.new(seed=1, table_size=7)
    game.apply(game.legal_actions()[0])
    seat = game.current_player
    wide = masked_observation(game.with_observation(action_values=True), seat)["observations"]
    module = masked_module_spec("irk_v0", {"table_size": 7, "action_values": True}, (8,)).build()
    seen = []
    forward = module.forward_inference

    def recording(batch: dict) -> dict:
        seen.append(batch[Columns.OBS]["observations"][0].numpy())
        return forward(batch)

    module.forward_inference = recording
    agent = RLlibAgent({"main": module}, observation={"action_values": True})
    assert game.legal_mask()[agent.act(game, seat)]
    assert np.array_equal(seen[-1], wide)  # the position read as the module learnt it
    mismatch = r"\(1824,\); this irk game gives \(694,\) .*rllib:PATH,NAME=VALUE"
    with pytest.raises(ValueError, match=mismatch):
        RLlibAgent({"main": module}).act(game, seat)  # says so, and names the options
    assert len(seen) == 1  # refused before the module ran
    with pytest.raises(ValueError, match="action_values must be True or False"):
        make_agent(f"rllib:{tmp_path},action_values=maybe", "irk_v0")
    with pytest.raises(ValueError, match="NAME one of action_values, group_planes"):
        make_agent(f"rllib:{tmp_path},table_size=9", "irk_v0")
    with pytest.raises(ValueError, match="not an RLlib algorithm checkpoint"):
        make_agent(f"rllib:{tmp_path},group_planes=true", "irk_v0")  # the option is read
    with pytest.raises(ValueError, match=r"most likely one\), got"):
        make_agent(f"rllib:{tmp_path},group_planes=true", "iris_v0")  # Iris has none


def test_checkpoint_selection_keeps_the_best_scored(local_ray, tmp_path: Path) -> None:
    config = self_play_config("iris_v0", {"board_size": 3}, seed=0, **TINY)
    algo = config.build_algo()
    scores = iter([0.5, 0.9, 0.7])  # a scorer whose best is the second of three
    try:
        with pytest.raises(ValueError, match="best_dir"):
            train_iterations(algo, 1, select=lambda a: 0.0)
        records = train_iterations(
            algo,
            3,
            select=lambda algo: next(scores),
            select_every=1,
            best_dir=tmp_path / "best",
        )
        assert [r["score"] for r in records] == [0.5, 0.9, 0.7]
        final = algo.learner_group.get_weights(["main"])["main"]
    finally:
        algo.stop()
    best = RLlibAgent.load(tmp_path / "best").modules["main"].get_state()
    assert not _same({k: best[k] for k in final}, final)  # iteration 2's weights, not the last
    # the arena yardstick scores what rllib:PATH plays, on fixed deals
    algo = config.build_algo()
    try:
        yardstick = arena_yardstick("iris_v0", {"board_size": 3}, "random", 4, 7, tmp_path / "c")
        first, again = yardstick(algo), yardstick(algo)
    finally:
        algo.stop()
    assert first == again and first in (0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0)
    with pytest.raises(ValueError, match="games >= 1"):
        arena_yardstick("iris_v0", None, "random", 0, 7, tmp_path / "c")


def test_init_ray_keeps_a_running_instance(local_ray) -> None:
    import ray

    from tabletop_envs.training.rllib import init_ray

    before = ray.get_runtime_context().get_node_id()
    init_ray("ray://nowhere:1")  # already initialized: the address is not even looked at
    assert ray.is_initialized() and ray.get_runtime_context().get_node_id() == before


def test_distributed_arena_equals_local(local_ray) -> None:
    agents = ["random", "greedy", "mcts:iterations=8"]
    local = run_arena("iris_v0", agents, 7, seed=5, env_kwargs={"board_size": 3})
    spread = run_arena("iris_v0", agents, 7, seed=5, env_kwargs={"board_size": 3}, ray_workers=2)
    assert spread.to_dict(timing=False) == local.to_dict(timing=False)
    assert spread.table().splitlines()[0] == local.table().splitlines()[0]
