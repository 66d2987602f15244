"""Agents by name: ``make_agent`` specs, options, errors, and plugging in new names."""

from __future__ import annotations

import pytest

from tabletop_envs.agents import (
    GreedyAgent,
    MCTSAgent,
    RandomAgent,
    agent_names,
    make_agent,
    register_agent,
)
from tabletop_envs.agents import registry as registry_module
from tabletop_envs.agents.human import parse_move
from tabletop_envs.games.iris.rules import IrisState


def test_builtin_names():
    assert {"random", "greedy", "planner", "mcts", "az", "expert", "sb3", "rllib"} <= set(
        agent_names()
    )


@pytest.mark.parametrize(
    ("spec", "cls"), [("random", RandomAgent), ("greedy", GreedyAgent), ("mcts", MCTSAgent)]
)
def test_make_agent_builds_each_builtin(spec, cls):
    agent = make_agent(spec, "iris_v0", seed=3)
    assert isinstance(agent, cls)
    assert agent.spec == spec


def test_make_agent_is_seeded():
    game = IrisState.new(seed=0, board_size=4)
    picks = [make_agent("random", "iris_v0", seed=5).act(game, 0) for _ in range(2)]
    assert picks[0] == picks[1]


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("", "non-empty"),
        ("alphazero", "unknown agent 'alphazero'.*registered agents: az, expert, greedy, mcts"),
        ("random:fast", "takes no options"),
        ("mcts:iterations=many", "iterations must be an integer, got 'many'"),
        ("mcts:iterations", "options are iterations=<int>"),
        ("sb3", "use sb3:PATH"),
        ("sb3:model.zip,fast", "use sb3:PATH"),
    ],
)
def test_bad_specs_are_explained(spec, match):
    with pytest.raises(ValueError, match=match):
        make_agent(spec, "iris_v0")


def test_register_agent_plugs_in_a_name(monkeypatch):
    monkeypatch.setattr(registry_module, "_FACTORIES", dict(registry_module._FACTORIES))
    register_agent("first", lambda args, env, seed: RandomAgent(seed))
    assert "first" in agent_names()
    assert isinstance(make_agent("first"), RandomAgent)
    with pytest.raises(ValueError, match="agent name"):
        register_agent("a:b", lambda args, env, seed: RandomAgent(seed))


@pytest.mark.parametrize("text", ["0 0", "0,0", "(0, 0)", " ( 0 , 0 ) ", "#12", "12"])
def test_iris_move_syntax(text):
    game = IrisState.new(board_size=3)
    assert parse_move(game, text) == game.coord_to_action(0, 0)


def test_move_names_are_accepted_too():
    game = IrisState.new(board_size=3)
    game.apply(game.coord_to_action(0, 0))
    assert parse_move(game, "PASS") == game.pass_action
    assert parse_move(game, "(1,-2)") == game.coord_to_action(1, -2)


def test_expert_envs_names_the_packaged_networks(monkeypatch, tmp_path):
    from tabletop_envs.agents.registry import expert_envs

    assert expert_envs() == ["iris_v0", "irk_v0", "isis_osiris_v0"]
    import importlib.resources

    monkeypatch.setattr(importlib.resources, "files", lambda package: tmp_path)
    assert expert_envs() == []  # no experts folder
