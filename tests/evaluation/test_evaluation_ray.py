"""The arena on Ray: the same results as locally, through run_arena and through a config."""

from __future__ import annotations

import pytest

from tabletop_envs.evaluation.arena import ArenaConfig, evaluate, run_arena
from tabletop_envs.evaluation.ray import init_ray

ray = pytest.importorskip("ray")

AGENTS = ["random", "greedy", "mcts:iterations=8"]


@pytest.fixture(scope="module")
def local_ray():
    """One local Ray instance (2 CPUs, no dashboard)."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_an_agents_error_on_ray_is_the_error_the_local_arena_raises(local_ray) -> None:
    # the expert has no network for side 3: a clear ValueError, not Ray's task traceback
    args = ("iris_v0", ["random", "expert"], 2)
    with pytest.raises(ValueError) as local:
        run_arena(*args, seed=5, env_kwargs={"board_size": 3})
    with pytest.raises(ValueError) as spread:
        run_arena(*args, seed=5, env_kwargs={"board_size": 3}, ray_workers=2)
    assert type(spread.value) is type(local.value) and str(spread.value) == str(local.value)
    assert str(local.value).startswith(
        "agent 'expert' cannot play this game: no packaged iris_v0 expert plays this game"
    )


def test_the_distributed_arena_equals_the_local_one(local_ray) -> None:
    before = ray.get_runtime_context().get_node_id()
    init_ray("ray://nowhere:1")  # already initialized: the address is not even looked at
    assert ray.get_runtime_context().get_node_id() == before

    local = run_arena("iris_v0", AGENTS, 7, seed=5, env_kwargs={"board_size": 3})
    spread = run_arena("iris_v0", AGENTS, 7, seed=5, env_kwargs={"board_size": 3}, ray_workers=2)
    assert spread.to_dict(timing=False) == local.to_dict(timing=False)

    config = ArenaConfig(agents=tuple(AGENTS), games=7, seed=5, params={"board_size": 3}, ray=3)
    seen = []
    result = evaluate(config, progress=lambda done, total: seen.append((done, total)))
    assert result.to_dict(timing=False) == local.to_dict(timing=False)
    assert seen[-1] == (7, 7)
    assert not ray.is_initialized()  # a run that asked for Ray stops it when done
