"""The cases of the conformance suite and small helpers shared by its test modules.

Every registered env and every parameter set in its ``EnvSpec.test_params`` is a case; a new
game gets the whole suite by registering. Test ids read ``iris_v0`` (default parameters) or
``iris_v0[board_size=8]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import env_spec, make, registered_envs
from tests.golden.tracing import all_cases, case_id

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


def random_action(game: GameState, rng: np.random.Generator) -> int:
    """Return a uniformly drawn legal action of ``game``."""
    legal = np.flatnonzero(game.legal_mask())
    assert len(legal), f"no legal action in a non-terminal state:\n{game.render_text()}"
    return int(legal[rng.integers(len(legal))])


def play_out(game: GameState, rng: np.random.Generator) -> int:
    """Play ``game`` to the end with random legal actions; return the number of steps."""
    limit = game.spec.max_game_length
    steps = 0
    while not game.is_terminal:
        game.apply(random_action(game, rng))
        steps += 1
        assert steps <= limit, f"game longer than max_game_length={limit}"
    return steps


def random_trajectory(name: str, params: dict[str, Any], seed: int) -> list[GameState]:
    """Return clones of every state of one seeded random game, initial to terminal."""
    game = new_game(name, params, seed)
    rng = np.random.default_rng(seed + 1000)
    states = [game.clone()]
    while not game.is_terminal:
        game.apply(random_action(game, rng))
        states.append(game.clone())
    return states


def random_actions(name: str, params: dict[str, Any], seed: int) -> list[int]:
    """Return the actions of the seeded random game of :func:`random_trajectory`."""
    game = new_game(name, params, seed)
    rng = np.random.default_rng(seed + 1000)
    actions = []
    while not game.is_terminal:
        actions.append(random_action(game, rng))
        game.apply(actions[-1])
    return actions


def mid_game_states(name: str, params: dict[str, Any], seed: int) -> list[GameState]:
    """Return the states at 0, 1/3, 2/3 of a seeded random game and its last non-final state.

    Each is reached by replaying the actions on a new game, never by copying one, so it is a
    reference for the clone and JSON checks (a default ``clone`` goes through the state dict).
    """
    actions = random_actions(name, params, seed)
    n = len(actions)  # non-final states
    states = []
    for k in sorted({0, n // 3, (2 * n) // 3, max(n - 1, 0)}):
        game = new_game(name, params, seed)
        for action in actions[:k]:
            game.apply(action)
        states.append(game)
    return states


def mid_game_env(name: str, params: dict[str, Any], seed: int, steps: int, **kwargs: Any) -> Any:
    """Return an env reset with ``seed`` and played up to ``steps`` random legal steps.

    It stops early rather than play the step that would end the game: the game is never over.
    """
    env = make(name, **params, **kwargs)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        action = random_action(env.game, rng)
        probe = env.game.clone()
        probe.apply(action)
        if probe.is_terminal:
            break
        env.step(action)
    return env


def assert_same_obs(a: dict[str, np.ndarray], b: dict[str, np.ndarray], where: str) -> None:
    """Assert two env observation dicts are identical (values, shapes and dtypes)."""
    assert a.keys() == b.keys(), where
    for key in a:
        assert a[key].dtype == b[key].dtype and a[key].shape == b[key].shape, f"{where}: {key}"
        assert np.array_equal(a[key], b[key]), f"{where}: {key} differs"


def assert_same_game_view(a: GameState, b: GameState, where: str) -> None:
    """Assert two core states are equal and show every seat the same thing."""
    assert a == b, f"{where}: states differ"
    assert a.current_player == b.current_player and a.is_terminal == b.is_terminal, where
    assert np.array_equal(a.legal_mask(), b.legal_mask()), f"{where}: masks differ"
    for seat in range(a.num_players):
        assert np.array_equal(a.observation(seat), b.observation(seat)), (
            f"{where}: observation of seat {seat} differs"
        )
