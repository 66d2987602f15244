"""The UCT player: :func:`tabletop_envs.search.uct.uct_search` with a seeded stream per agent.

The search (determinization for hidden information, availability counts, max^n values) is
described in :mod:`tabletop_envs.search.uct`; the playouts in
:mod:`tabletop_envs.search.playouts`.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from tabletop_envs.agents.base import Agent
from tabletop_envs.core.config import quote
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.core.game import GameState
from tabletop_envs.core.params import check_int_range
from tabletop_envs.search.node import Node
from tabletop_envs.search.playouts import (
    PLAYOUTS,
    Mover,
    check_playout,
    heuristic_mover,
    renamed,
)
from tabletop_envs.search.uct import uct_search

#: The playouts an :class:`MCTSAgent` plays (its former name; see :data:`PLAYOUTS`).
ROLLOUTS = PLAYOUTS


class MCTSAgent(Agent):
    """UCT with per-iteration determinization; ``iterations`` playouts per decision.

    ``exploration`` is the UCB constant for returns in [-1, 1] (scaled by the game's declared
    reward range otherwise). ``playout`` is ``"random"`` (uniform legal moves, fast),
    ``"greedy"`` (the game's one-ply heuristic at every step: stronger, much slower) or
    ``"planner"`` (the planner heuristic, Irk only); ``rollout`` is its former name
    (deprecated). A decision with a single legal action is returned at once, without search.
    """

    name = "mcts"

    def __init__(
        self,
        iterations: int = 200,
        exploration: float = 1.4,
        playout: str = "random",
        seed: int | None = None,
        *,
        rollout: str | None = None,
    ) -> None:
        self.iterations = check_int_range("iterations", iterations, 1, 10**7)
        if not isinstance(exploration, (int, float)) or not 0 <= exploration < math.inf:
            raise InvalidParameterError(
                f"exploration must be a finite number >= 0, got {quote(exploration)}"
            )
        self.exploration = float(exploration)
        playout, name = renamed("MCTSAgent", "playout", playout, "random", "rollout", rollout)
        self.playout = check_playout(playout, name)
        self._mover: Mover | None = None
        self.reset(seed)

    @property
    def rollout(self) -> str:
        """The former name of :attr:`playout` (deprecated)."""
        warnings.warn(
            "MCTSAgent.rollout is deprecated, use MCTSAgent.playout (removed in 0.3)",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.playout

    def reset(self, seed: int | None = None) -> None:
        """Reseed the agent's stream (``None``: fresh entropy on first use, else continue).

        A heuristic playout (``greedy``, ``planner``) gets a new stream drawn from the agent's.
        """
        if seed is not None or not hasattr(self, "rng"):
            self.rng = np.random.default_rng(seed)
        if self.playout != "random":
            mover_rng = np.random.default_rng(int(self.rng.integers(2**63)))
            self._mover = heuristic_mover(self.playout, mover_rng)

    def act(self, game: GameState, seat: int) -> int:
        """Return the most visited root action after ``iterations`` determinized playouts."""
        legal = np.flatnonzero(game.legal_mask()).tolist()
        if not legal:
            raise ValueError(f"seat {seat} has no legal action (is the game over?)")
        if len(legal) == 1:
            return legal[0]
        root = self.search(game, seat)
        best = max(
            (a for a in legal if a in root.children),
            key=lambda a: (root.children[a].n, root.children[a].w, -a),
        )
        return int(best)

    def search(self, game: GameState, seat: int) -> Node:
        """Run the iterations from ``game`` (``seat`` to move) and return the root node."""
        return uct_search(
            game,
            seat,
            self.iterations,
            int(self.rng.integers(2**63)),
            exploration=self.exploration,
            determinize=self.determinize,
            playout_move=self._mover,
        )

    def determinize(self, game: GameState, seat: int, rng: np.random.Generator) -> GameState:
        """Return the position one iteration searches: ``game.resample_hidden(seat, rng)``."""
        return game.resample_hidden(seat, rng)
