"""The cases of the conformance suite and small helpers shared by its test modules.

Every registered env and every parameter set in its ``EnvSpec.test_params`` is a case; a new
game gets the whole suite by registering. Test ids read ``iris_v0`` (default parameters) or
``iris_v0[board_size=8]``. The helpers are those of :mod:`tabletop_envs.testing.play`, called
by env name and parameters.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import env_spec, registered_envs
from tabletop_envs.testing import play
from tabletop_envs.testing.play import assert_same_game_view, assert_same_obs, random_action
from tests.golden.tracing import all_cases, case_id

__all__ = [
    "CASES",
    "ENVS",
    "assert_same_game_view",
    "assert_same_obs",
    "game_class",
    "mid_game_env",
    "mid_game_states",
    "new_game",
    "play_out",
    "random_action",
    "random_actions",
    "random_trajectory",
]

#: ``pytest.param(name, params)`` for every (registered env, test parameter set).
CASES = [pytest.param(name, params, id=case_id(name, params)) for name, params in all_cases()]
#: ``pytest.param(name)`` for every registered env.
ENVS = [pytest.param(name, id=name) for name in registered_envs()]


def game_class(name: str) -> type[GameState]:
    """Return the core state class of a registered env."""
    return env_spec(name).load_game()


def new_game(name: str, params: dict[str, Any], seed: int) -> GameState:
    """Return the initial core state of a case."""
    return game_class(name).new(seed=seed, **params)


def play_out(game: GameState, rng: np.random.Generator) -> int:
    """Play ``game`` to the end with random legal actions; return the number of steps."""
    return play.play_out(game, rng)


def random_trajectory(name: str, params: dict[str, Any], seed: int) -> list[GameState]:
    """Return clones of every state of one seeded random game, initial to terminal."""
    return play.random_trajectory(play.Case.of(name, params), seed)


def random_actions(name: str, params: dict[str, Any], seed: int) -> list[int]:
    """Return the actions of the seeded random game of :func:`random_trajectory`."""
    return play.random_actions(play.Case.of(name, params), seed)


def mid_game_states(name: str, params: dict[str, Any], seed: int) -> list[GameState]:
    """Return the states at 0, 1/3, 2/3 of a seeded random game and its last non-final state."""
    return play.mid_game_states(play.Case.of(name, params), seed)


def mid_game_env(name: str, params: dict[str, Any], seed: int, steps: int, **kwargs: Any) -> Any:
    """Return an env reset with ``seed`` and played up to ``steps`` random legal steps."""
    return play.mid_game_env(play.Case.of(name, params), seed, steps, **kwargs)


# ---- JSON documents taken apart, for the fuzzing of saved states and records -----------------
def json_paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Return the path of every node under ``value`` (dict keys and list indices)."""
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out += json_paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += json_paths(item, (*prefix, i))
    return out


def json_get(value: Any, path: tuple[Any, ...]) -> Any:
    """Return the node of ``value`` at ``path``."""
    for key in path:
        value = value[key]
    return value


def json_set(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """Put ``new`` at ``path`` in ``value`` (in place); return the document (``new`` at ())."""
    if not path:
        return new
    json_get(value, path[:-1])[path[-1]] = new
    return value
