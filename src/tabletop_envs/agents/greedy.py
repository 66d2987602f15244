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

import numpy as np

from tabletop_envs.agents.base import Agent
from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import (
    get_heuristic,
    heuristic_games,
    register_heuristic,
)
from tabletop_envs.search.playouts import HeuristicChoice, top_actions

__all__ = [
    "GreedyAgent",
    "PlannerAgent",
    "get_heuristic",
    "heuristic_games",
    "register_heuristic",
    "top_actions",
]


class GreedyAgent(Agent):
    """Plays the legal action its game's one-ply heuristic scores highest (seeded tie-break).

    The move choice is :class:`~tabletop_envs.search.playouts.HeuristicChoice`, the one the
    searches' ``greedy`` and ``planner`` playouts play.
    """

    name = "greedy"
    #: which heuristic table the agent plays (see :func:`get_heuristic`)
    kind = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self._choice = HeuristicChoice(self.kind)

    def reset(self, seed: int | None = None) -> None:
        """Reseed when a seed is given; otherwise continue the stream."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, game: GameState, seat: int) -> int:
        """Return a best-scoring legal action of ``seat`` under the game's heuristic."""
        return self._choice.choose(game, seat, self.rng)

    def best_actions(self, game: GameState, seat: int) -> list[int]:
        """Return every legal action of ``seat`` that the heuristic scores highest."""
        return self._choice.top(game, seat, self.rng)[0]

    def action_scores(self, game: GameState, seat: int) -> tuple[list[int], list[float]]:
        """Return the legal actions of ``seat`` and their heuristic scores (0.0 if forced)."""
        actions, scores = self._choice.scores(game, seat, self.rng)
        return actions, [0.0] if scores is None else scores


class PlannerAgent(GreedyAgent):
    """Plays the legal action its game's planner heuristic scores highest (Irk only so far)."""

    name = "planner"
    kind = "planner"
