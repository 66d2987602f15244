"""The agent interface: an agent picks a legal action for the seat to move in a core state.

Agents that act on what a seat may know read ``game.observation(seat)`` and
``game.legal_mask()``; search agents must not read hidden information and work on
``game.resample_hidden(seat, rng)`` draws instead.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from tabletop_envs.core.game import GameState


class Agent(ABC):
    """Chooses actions for whichever seat is to move."""

    name: str = "agent"

    def reset(self, seed: int | None = None) -> None:  # noqa: B027 - optional hook
        """Start a new game; ``seed`` makes the agent's own randomness reproducible."""

    def check_game(self, game: GameState) -> None:  # noqa: B027 - optional hook
        """Raise ValueError, saying why, if this agent cannot play ``game`` (a model or network
        made for other game parameters). Called before a game starts (the arena, training's
        checks), so a mismatch is refused up front, not at the first move. Default: any game."""

    @abstractmethod
    def act(self, game: GameState, seat: int) -> int:
        """Return a legal action id for ``seat``, which is ``game.current_player``."""

    def best_actions(self, game: GameState, seat: int) -> list[int]:
        """Return the actions this agent rates equally best (``act`` plays one of them).

        For imitation learning: a heuristic agent breaking ties at random returns every tied
        action, so a learner imitating it is not taught the tie-breaks as if they mattered.
        The default is the one action ``act`` returns.
        """
        return [self.act(game, seat)]

    def action_scores(self, game: GameState, seat: int) -> tuple[list[int], list[float]] | None:
        """Return the legal actions of ``seat`` and this agent's score of each, or None.

        For imitation with soft targets: an agent that rates every legal action (a heuristic)
        returns ``(actions, scores)``, higher is better, and ``best_actions`` are those tied at
        the top. The default is None: the agent rates nothing but its own choice.
        """
        return None


class RandomAgent(Agent):
    """Uniform over the legal actions, from its own seeded Generator."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed when a seed is given; otherwise continue the stream."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, game: GameState, seat: int) -> int:
        """Return a uniformly drawn legal action."""
        legal = np.flatnonzero(game.legal_mask())
        return int(legal[self.rng.integers(len(legal))])
