"""Shared helpers of the agent tests: registered env cases and a seeded playout."""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_envs.agents.base import Agent
from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import env_spec, make, registered_envs


def env_cases() -> list[tuple[str, dict[str, Any]]]:
    """Return ``(env name, params)`` for every registered env and each of its test params."""
    return [(name, dict(p)) for name in registered_envs() for p in env_spec(name).test_params]


def case_id(case: tuple[str, dict[str, Any]]) -> str:
    """Return a readable pytest id for an env case."""
    name, params = case
    return name + "".join(f"-{k}={v}" for k, v in sorted(params.items()) if k != "deck")


def new_game(env_name: str, params: dict[str, Any], seed: int) -> GameState:
    """Return a fresh core state of ``env_name`` with ``params``."""
    env = make(env_name, **params)
    return env.game_class(env.params, seed)


def play_checked(game: GameState, agents: list[Agent]) -> GameState:
    """Play ``game`` to the end; assert each action is legal and ``act`` changes nothing."""
    steps = 0
    while not game.is_terminal:
        seat = game.current_player
        before = game.to_json()
        action = agents[seat].act(game, seat)
        assert game.to_json() == before, f"{agents[seat].name} changed the state it was given"
        assert isinstance(action, int), f"{agents[seat].name} returned {type(action).__name__}"
        mask = game.legal_mask()
        assert mask[action] == 1, f"{agents[seat].name} chose illegal action {action}"
        game.apply(action)
        steps += 1
        assert steps <= game.spec.max_game_length
    return game


def advance(game: GameState, steps: int, seed: int) -> GameState:
    """Play ``steps`` uniformly random legal moves (fewer if the game ends)."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if game.is_terminal:
            break
        game.apply(int(rng.choice(np.flatnonzero(game.legal_mask()))))
    return game


def choice_positions(name: str, params: dict[str, Any], seed: int) -> list[Any]:
    """Return positions spread over one random game (the seat to move has a real choice)."""
    out = []
    length = new_game(name, params, seed).spec.max_game_length
    for steps in (0, 3, 11, length // 4, length // 2, (3 * length) // 4):
        probe = advance(new_game(name, params, seed), steps, seed + 1)
        if not probe.is_terminal and int(probe.legal_mask().sum()) > 1:
            out.append(probe)
    assert out, f"{name} {params}: no position with a choice"
    return out
