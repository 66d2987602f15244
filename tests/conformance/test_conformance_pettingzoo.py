"""PettingZoo's own conformance tests on every case.

Which of ``pettingzoo.test`` apply:

* ``api_test`` on ``env()`` (illegal actions penalized) and on ``raw_env()`` (they raise),
  ``seed_test`` and ``render_test`` (ansi, rgb_array and svg): run here.
* ``max_cycles_test``: no — the envs have no ``max_cycles`` (games end by their rules, within
  ``spec.max_game_length``, checked in the playout tests).
* ``parallel_api_test`` / ``parallel_seed_test``: on the Parallel views, in
  ``test_conformance_parallel`` (the AEC envs are not parallel in disguise:
  ``is_parallelizable`` is False).
* ``state_test``: no — ``state()`` is deliberately not offered (hidden information, egocentric
  views); ``test_conformance_env`` checks that it says so.
* ``bombardment_test``: no — it repeats ``api_test``'s observation checks over many resets; the
  seeded random playouts of ``test_conformance_playouts`` check more, every agent every step.
* ``manual_control_test``: no — needs a human render mode and keyboard control.
* ``performance_benchmark``: not a test (prints speed); speed lives in benchmarks.
* ``test_save_obs``: no — saves image observations to disk; ours are feature planes.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from tabletop_envs.envs.registry import make
from tests.conformance.cases import CASES

#: Warnings ``api_test`` gives for any env with Dict observations (the PettingZoo classic
#: layout ``{"observation", "action_mask"}``) and for the all-zeros mask at the end of a game.
EXPECTED_API_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box",
    "Action mask numpy array is all zeros",
)


def _run_api_test(env: Any, num_cycles: int) -> None:
    """Run ``api_test``; expected Dict-observation warnings pass, any other warning fails."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env, num_cycles=num_cycles)
    unexpected = [
        str(w.message)
        for w in caught
        if not any(str(w.message).startswith(msg) for msg in EXPECTED_API_WARNINGS)
    ]
    assert not unexpected, f"api_test warned: {sorted(set(unexpected))}"


@pytest.mark.parametrize(("name", "params"), CASES)
def test_api_test_env(name: str, params: dict[str, Any]) -> None:
    """``api_test`` passes on ``env()`` (illegal actions penalized)."""
    _run_api_test(make(name, **params), num_cycles=1000)


@pytest.mark.parametrize(("name", "params"), CASES)
def test_api_test_raw_env(name: str, params: dict[str, Any]) -> None:
    """``api_test`` passes on ``raw_env()`` (illegal actions raise)."""
    _run_api_test(make(name, illegal_action="raise", **params), num_cycles=1000)


@pytest.mark.parametrize(("name", "params"), CASES)
def test_seed_test(name: str, params: dict[str, Any]) -> None:
    """``seed_test``: two envs reset with the same seed play identically."""
    seed_test(lambda: make(name, **params), num_cycles=1000)


def _render_env_fn(name: str, params: dict[str, Any]) -> Callable[..., Any]:
    # render_test first builds the env with render_mode="human" only to read
    # metadata["render_modes"]; the library has no human mode, so that probe gets None.
    def env_fn(render_mode: str | None = None) -> Any:
        return make(name, render_mode=None if render_mode == "human" else render_mode, **params)

    return env_fn


def _nonempty_image(image: np.ndarray) -> bool:
    return image.shape[0] > 1 and image.shape[1] > 1 and int(image.max()) > int(image.min())


@pytest.mark.parametrize(("name", "params"), CASES)
def test_render_test(name: str, params: dict[str, Any]) -> None:
    """``render_test`` over every declared render mode (ansi text, rgb_array image, svg)."""
    env_fn = _render_env_fn(name, params)
    assert set(env_fn().metadata["render_modes"]) == {"ansi", "rgb_array", "svg"}
    render_test(
        env_fn,
        custom_tests={
            "ansi": lambda text: isinstance(text, str) and text.strip() != "",
            "rgb_array": _nonempty_image,
            "svg": lambda text: isinstance(text, str) and text.startswith("<svg "),
        },
    )
