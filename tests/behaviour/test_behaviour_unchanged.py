"""Recompute the figures of ``baseline.json`` (commit 52f5a9c) and require them unchanged.

The figures are computed by ``figures.py`` through public entry points only (``make_agent``,
core states from the env registry, ``tabletop_envs.cli.main``). A failure means behaviour
changed; the baseline is not rewritten to make it pass (``README.md``).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.behaviour import figures

# the recorded agent specs of 52f5a9c use the former rollout= spelling on purpose: their
# DeprecationWarnings are expected
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def baseline() -> dict[str, Any]:
    """The recorded figures."""
    return figures.load_baseline()


def assert_same(new: Any, old: Any, what: str, baseline: dict[str, Any]) -> None:
    """Assert ``new`` equals ``old`` (floats within :func:`figures.compare`'s tolerance)."""
    new = figures.as_json(new)
    found = figures.compare(new, old)
    if found:
        lines = "\n  ".join(found)
        raise AssertionError(
            f"{what} differs from the baseline of commit {baseline['commit']}:\n  {lines}\n"
            f"recorded with {baseline['recorded_with']}, now {figures.versions()}"
        )


def test_baseline_covers_every_case(baseline: dict[str, Any]) -> None:
    assert baseline["commit"] == figures.BASELINE_COMMIT
    keys = [figures.case_key(env, params) for env, params in figures.ENV_CASES]
    assert list(baseline["moves"]) == keys
    for key in keys:
        assert len(baseline["moves"][key]) == len(figures.POSITION_FRACTIONS)
    assert list(baseline["arenas"]) == list(figures.ARENAS)


def test_packaged_networks_unchanged(baseline: dict[str, Any]) -> None:
    """The networks the ``expert`` and ``az:`` moves play are the recorded ones."""
    assert_same(figures.network_hashes(), baseline["networks"], "packaged networks", baseline)


@pytest.mark.parametrize("index", range(len(figures.POSITION_FRACTIONS)))
@pytest.mark.parametrize(
    ("env_name", "params"),
    figures.ENV_CASES,
    ids=[figures.case_key(env, params) for env, params in figures.ENV_CASES],
)
def test_agent_moves_unchanged(
    env_name: str, params: dict[str, Any], index: int, baseline: dict[str, Any]
) -> None:
    key = figures.case_key(env_name, params)
    new = figures.position_moves(env_name, params, index)
    assert_same(new, baseline["moves"][key][index], f"moves at {key} position {index}", baseline)


@pytest.mark.parametrize("name", list(figures.ARENAS))
def test_arena_unchanged(name: str, baseline: dict[str, Any]) -> None:
    old = baseline["arenas"][name]
    new = figures.like(figures.as_json(figures.arena(name)), old)  # as figures.comparable
    assert_same(new, old, f"arena {name}", baseline)


def test_az_training_unchanged(baseline: dict[str, Any]) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("matplotlib")  # the run draws winrate.png
    old = baseline["az_training"]
    new = figures.comparable("az_training", figures.as_json(figures.az_training()), old)
    assert_same(new, old, "the AZ training run", baseline)


def test_ppo_training_unchanged(baseline: dict[str, Any]) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    pytest.importorskip("matplotlib")  # the run draws winrate.png
    old = baseline["ppo_training"]
    new = figures.comparable("ppo_training", figures.as_json(figures.ppo_training()), old)
    assert_same(new, old, "the PPO training run", baseline)
