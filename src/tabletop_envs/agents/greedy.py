"""The greedy baseline: a documented one-ply heuristic per game, looked up by game name.

A heuristic scores every legal action of the seat to move from what that seat may know; the
agent plays a highest-scoring action, breaking ties uniformly with its own seeded Generator.
Each game declares its heuristics in its own folder (``heuristics`` of its
:class:`~tabletop_envs.core.registration.EnvSpec`, e.g. :mod:`tabletop_envs.games.iris.heuristics`,
described in ``docs/agents.md``); :func:`register_heuristic` adds or overrides one.

Heuristics come in kinds: ``greedy`` (every game) and ``planner`` (Irk: greedy's margin counting
the hand tiles that will become bets), played by :class:`GreedyAgent` and :class:`PlannerAgent`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tabletop_envs.agents.base import Agent
from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import (
    get_heuristic,
    heuristic_games,
    register_heuristic,
)

if TYPE_CHECKING:
    from tabletop_envs.envs.registry import Heuristic

__all__ = [
    "GreedyAgent",
    "PlannerAgent",
    "get_heuristic",
    "heuristic_games",
    "register_heuristic",
    "top_actions",
]


class GreedyAgent(Agent):
    """Plays the legal action its game's one-ply heuristic scores highest (seeded tie-break)."""

    name = "greedy"
    #: which heuristic table the agent plays (see :func:`get_heuristic`)
    kind = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self._cache: dict[str, Heuristic] = {}

    def reset(self, seed: int | None = None) -> None:
        """Reseed when a seed is given; otherwise continue the stream."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, game: GameState, seat: int) -> int:
        """Return a best-scoring legal action of ``seat`` under the game's heuristic."""
        top, forced = self._top(game, seat)
        if forced:
            return top[0]
        return int(top[int(self.rng.integers(len(top)))])

    def best_actions(self, game: GameState, seat: int) -> list[int]:
        """Return every legal action of ``seat`` that the heuristic scores highest."""
        return self._top(game, seat)[0]

    def action_scores(self, game: GameState, seat: int) -> tuple[list[int], list[float]]:
        """Return the legal actions of ``seat`` and their heuristic scores (0.0 if forced)."""
        actions, scores = self._scores(game, seat)
        return actions, [0.0] if scores is None else scores

    def _top(self, game: GameState, seat: int) -> tuple[list[int], bool]:
        """Return the best-scoring actions, and whether the move was forced (one legal)."""
        actions, scores = self._scores(game, seat)
        if scores is None:
            return actions, True
        return top_actions(actions, scores), False

    def _scores(self, game: GameState, seat: int) -> tuple[list[int], list[float] | None]:
        """Return the legal actions and their scores (None, unscored, when only one is legal)."""
        actions = np.flatnonzero(game.legal_mask()).tolist()
        if not actions:
            raise ValueError(f"seat {seat} has no legal action (is the game over?)")
        if len(actions) == 1:
            return actions, None
        name = game.game_name
        heuristic = self._cache.get(name)
        if heuristic is None:
            heuristic = self._cache[name] = get_heuristic(name, self.kind)
        return actions, heuristic(game, seat, actions, self.rng)


class PlannerAgent(GreedyAgent):
    """Plays the legal action its game's planner heuristic scores highest (Irk only so far)."""

    name = "planner"
    kind = "planner"


def top_actions(actions: list[int], scores: list[float]) -> list[int]:
    """Return the actions whose score ties the highest (within 1e-9)."""
    best = max(scores)
    return [a for a, s in zip(actions, scores, strict=True) if s >= best - 1e-9]
