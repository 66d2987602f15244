"""``tabletop_envs.testing`` as a user meets it: its arguments, its errors, a game of one's own,
and no test dependency (the suite runs on every registered case in ``tests/conformance``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.envs import registry
from tabletop_envs.envs.registry import EnvSpec
from tabletop_envs.games.iris.rules import IrisState
from tabletop_envs.testing import CHECKS, ConformanceError, check_env, check_game
from tests.conformance import toy_game

ROOT = Path(__file__).resolve().parents[1]
ALL = [check.name for check in CHECKS]
CORE = [check.name for check in CHECKS if not check.needs_env]


@pytest.fixture
def own_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let a test register envs of its own: the registry is restored afterwards."""
    monkeypatch.setattr(registry, "_SPECS", dict(registry._SPECS))
    monkeypatch.setattr(registry, "_BY_GAME", {})


def test_a_game_of_your_own_registered_with_envspec(own_registry: None) -> None:
    """``register(EnvSpec(...))`` and ``check_env`` on it: every check runs, in order."""
    registry.register(
        EnvSpec(
            name="my_nim_v0",
            game="tests.conformance.toy_game:ToyState",
            image="tests.conformance.toy_game:drawing",
            test_params=({}, {"pile": 4}),
        )
    )
    assert check_env("my_nim_v0", pile=4) == ALL
    assert check_env("my_nim_v0", games=1, seed=9, checks=["json", "playouts"]) == [
        "playouts",
        "json",
    ]


def test_an_env_without_a_picture_is_checked_in_ansi(own_registry: None) -> None:
    registry.register(EnvSpec(name="plain_nim_v0", game="tests.conformance.toy_game:ToyState"))
    assert check_env("plain_nim_v0", checks=["render"]) == ["render"]


def test_check_game_runs_the_cores_checks_without_an_env() -> None:
    assert check_game(toy_game.ToyState, {"pile": 6}) == CORE
    assert check_game(toy_game.ToyState, checks="clone") == ["clone"]


def test_a_failure_names_the_env_the_parameters_and_the_check(own_registry: None) -> None:
    registry.register(EnvSpec(name="leaky_v0", game="tests.conformance.toy_game:ResampleLeaks"))
    with pytest.raises(ConformanceError) as info:
        check_env("leaky_v0", pile=7)
    err = info.value
    assert isinstance(err, AssertionError)
    assert (err.label, err.check) == ("leaky_v0(pile=7)", "hidden")
    first, second = str(err).splitlines()
    assert re.fullmatch(
        r"leaky_v0\(pile=7\) fails the 'hidden' check: seed 0 step 0 seat \d: resampling "
        r"changed the seat's own observation",
        first,
    ), first
    assert second.startswith("(the 'hidden' check: resample_hidden(seat) keeps the seat's ")


class Crashes(toy_game.ToyState):
    """A game whose ``legal_mask`` breaks once few stones are left."""

    def legal_mask(self) -> np.ndarray:
        if 0 < self.left < 3:
            raise KeyError("left")
        return super().legal_mask()


def test_a_crash_inside_the_game_fails_the_check_running_it() -> None:
    with pytest.raises(ConformanceError, match=r"'playouts' check: raised KeyError") as info:
        check_game(Crashes)
    assert isinstance(info.value.__cause__, KeyError)


class ClaimsARule(IrisState):
    """Declares ``auto_forced`` (which plays forced moves itself) as if it changed no rule."""

    observation_params = frozenset({"auto_forced"})


class ClaimsNothing(IrisState):
    observation_params = frozenset({"colour_blind"})


def test_an_observation_parameter_that_changes_a_rule_is_caught() -> None:
    with pytest.raises(ConformanceError, match=r"'observation_params' check: seed \d+ state \d+ "):
        check_game(ClaimsARule, {"board_size": 3}, checks="observation_params")
    with pytest.raises(ConformanceError, match=r"'observation_params' check: .*colour_blind"):
        check_game(ClaimsNothing, {"board_size": 3}, checks="observation_params")
    assert check_game(IrisState, {"board_size": 3}, checks="observation_params") == [
        "observation_params"
    ]


def test_mistakes_in_the_arguments_are_the_callers() -> None:
    """Unknown envs, checks and parameters, bad depths: errors naming what is valid."""
    with pytest.raises(ValueError, match=r"registered envs: .*iris_v0"):
        check_env("no_such_env_v0")
    with pytest.raises(InvalidParameterError, match="unknown check 'nope'; checks: spec, "):
        check_env("iris_v0", checks=["nope"])
    with pytest.raises(InvalidParameterError, match="unknown check 'parallel'"):
        check_game(toy_game.ToyState, checks=["parallel"])  # an env check: no env here
    with pytest.raises(InvalidParameterError, match="board_size"):
        check_env("iris_v0", board_size=99)
    for bad in ({"games": 0}, {"games": 1.5}, {"seed": -1}):
        with pytest.raises(InvalidParameterError, match=next(iter(bad))):
            check_env("iris_v0", **bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="GameState subclass"):
        check_game(object)  # type: ignore[arg-type]


def test_every_check_is_described_in_the_docs() -> None:
    """docs/testing.md has a row per check, in run order, and each check a description."""
    rows = re.findall(r"^\| `(\w+)` \|", (ROOT / "docs" / "testing.md").read_text(), re.M)
    assert rows == ALL
    assert all(check.description for check in CHECKS)


def test_the_suite_needs_no_test_dependency_and_no_upper_layer() -> None:
    """In a fresh interpreter without pytest or hypothesis, check_env runs every check, and
    importing it loads nothing of the agents, search, evaluation, training or command line."""
    code = (
        "import sys\n"
        "sys.modules.update(pytest=None, hypothesis=None, _pytest=None)\n"
        "import tabletop_envs.testing as t\n"
        "names = t.check_env('iris_v0', board_size=3, auto_forced=True, games=1)\n"
        "assert names == [c.name for c in t.CHECKS], names\n"
        "layers = ('agents', 'search', 'evaluation', 'training', 'cli', 'watch')\n"
        "loaded = [m for m in sys.modules if m.split('.')[:2][-1] in layers\n"
        "          and m.startswith('tabletop_envs.')]\n"
        "assert not loaded, loaded\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_unregister_gives_the_registry_back() -> None:
    from dataclasses import replace

    import gymnasium

    from tabletop_envs.envs import registry

    spec = replace(
        registry.env_spec("iris_v0"), name="iris_copy_v0", gym_id="tabletop_envs/IrisCopy-v0"
    )
    before = registry.registered_envs()
    registry.register(spec)
    assert "iris_copy_v0" in registry.registered_envs()
    assert gymnasium.spec("tabletop_envs/IrisCopy-v0").kwargs["env_name"] == "iris_copy_v0"
    assert registry.unregister("iris_copy_v0") is spec
    assert registry.registered_envs() == before
    assert "tabletop_envs/IrisCopy-v0" not in gymnasium.registry
    with pytest.raises(ValueError, match="unknown env"):
        registry.unregister("iris_copy_v0")
