"""Agents from installed packages (entry points) and the checks of agent spec options."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest

from tabletop_envs.agents import RandomAgent, agent_names, make_agent, register_agent
from tabletop_envs.agents import registry as registry_module
from tabletop_envs.agents.registry import ENTRY_POINT_GROUP, parse_kwargs
from tabletop_envs.core.errors import InvalidParameterError

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
MADE: list[tuple[str, str, int | None]] = []
#: What pyproject.toml declares in the group (checked below): the lead's install provides them.
DECLARED = {
    "sb3": "tabletop_envs.training.sb3:make_sb3_agent",
    "rllib": "tabletop_envs.training.rllib:make_rllib_agent",
}


def fake_factory(args: str, env_name: str, seed: int | None) -> RandomAgent:
    """An agent factory a plugin package would declare."""
    MADE.append((args, env_name, seed))
    return RandomAgent(seed)


def _entry(name: str, value: str) -> importlib.metadata.EntryPoint:
    return importlib.metadata.EntryPoint(name=name, value=value, group=ENTRY_POINT_GROUP)


@pytest.fixture
def plugins(monkeypatch):
    """Installed entry points of the group: this package's (from pyproject.toml) and a user's."""
    entries = [_entry(name, value) for name, value in DECLARED.items()]
    entries += [
        _entry("mine", f"{__name__}:fake_factory"),
        _entry("broken", "tabletop_envs_no_such_module:factory"),
    ]
    asked = []

    def entry_points(**selection):
        asked.append(selection)
        return importlib.metadata.EntryPoints(
            e for e in entries if e.group == selection.get("group")
        )

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    monkeypatch.setattr(registry_module, "_FACTORIES", dict(registry_module._FACTORIES))
    MADE.clear()
    return asked


def test_the_package_declares_its_torch_agents_as_entry_points():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    assert project["entry-points"][ENTRY_POINT_GROUP] == DECLARED


def test_entry_points_are_listed_and_made_lazily(plugins):
    names = agent_names()
    assert {"sb3", "rllib", "mine", "broken", "random", "mcts", "az"} <= set(names)
    assert plugins == [{"group": ENTRY_POINT_GROUP}]
    assert not MADE  # listing imports nothing
    agent = make_agent("mine:opts", "iris_v0", seed=4)
    assert isinstance(agent, RandomAgent) and agent.spec == "mine:opts"
    assert MADE == [("opts", "iris_v0", 4)]


def test_a_registered_name_wins_over_an_entry_point(plugins):
    register_agent("mine", lambda args, env, seed: RandomAgent(99))
    make_agent("mine", "iris_v0")
    assert not MADE
    plugins.clear()
    make_agent("random", "iris_v0")
    assert plugins == []  # a registered name is found without reading the entry points


def test_an_entry_point_that_fails_to_import_is_named(plugins):
    with pytest.raises(ValueError, match="'broken' is made by tabletop_envs_no_such_module:fa"):
        make_agent("broken", "iris_v0")


def test_torch_agents_come_through_their_entry_points(plugins):
    with pytest.raises(ValueError, match="use sb3:PATH"):
        make_agent("sb3:model.zip,fast", "iris_v0")
    with pytest.raises(ValueError, match="use rllib:CHECKPOINT"):
        make_agent("rllib", "iris_v0")


def test_unknown_names_list_the_entry_points_too(plugins):
    with pytest.raises(ValueError, match=r"unknown agent 'alphazero'.*mcts, mine, planner"):
        make_agent("alphazero", "iris_v0")


# ---- options ----------------------------------------------------------------------------------
def test_options_are_read_as_key_value_assignments():
    types = {"n": int, "x": float, "s": str}
    parsed = parse_kwargs(" n = 3 , x=1e-3,s=greedy,", types, "t")
    assert parsed == {"n": 3, "x": 0.001, "s": "greedy"}
    assert parse_kwargs("x=2", types, "t") == {"x": 2.0}
    for bad, match in [
        ("n=2.5", r"n must be an integer, got 2.5 \(agent spec 't'\)"),
        ("n=true", "n must be an integer, got True"),
        ("x=fast", "x must be a number, got 'fast'"),
        ("s=1", "s must be a string, got 1"),
        ("n", "bad option 'n' in agent spec 't'; options are n=<int>, x=<float>, s=<str>"),
        ("=3", "bad option '=3'"),
    ]:
        with pytest.raises(InvalidParameterError, match=match):
            parse_kwargs(bad, types, "t")


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "Infinity", "-1"])
def test_a_non_finite_or_negative_constant_is_refused_at_once(value, tmp_path):
    with pytest.raises(ValueError, match="exploration must be a finite number >= 0"):
        make_agent(f"mcts:c={value}", "iris_v0")
    with pytest.raises(ValueError, match="exploration must be a finite number >= 0"):
        make_agent(f"mcts:exploration={value}", "iris_v0")
    with pytest.raises(ValueError, match=r"c_puct must be a finite number >= 0.*\(agent spec"):
        make_agent(f"expert:c={value}", "iris_v0")


def test_an_env_name_must_be_registered():
    with pytest.raises(ValueError, match="unknown env 'nope'; registered envs: iris_v0"):
        make_agent("random", "nope")
    assert isinstance(make_agent("random"), RandomAgent)  # no env: nothing to check


def test_messages_never_echo_megabytes():
    spec = "mcts:" + "x" * 1_000_000
    with pytest.raises(ValueError) as info:
        make_agent(spec, "iris_v0")
    assert len(str(info.value)) < 1000
    with pytest.raises(ValueError) as info:
        make_agent("y" * 1_000_000, "iris_v0")
    assert len(str(info.value)) < 1000
