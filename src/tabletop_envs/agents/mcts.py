"""UCT Monte Carlo tree search on the core contract, with determinization for hidden information.

Every iteration draws a *determinization* ``game.resample_hidden(seat, rng)``: a copy of the
position whose hidden part (others' hands, stack orders, unrevealed choices) is redrawn
consistently with what the searching seat knows, the same function the hidden-information tests
use. Its chance stream (``.rng``) is reseeded from the agent's own stream too, so the search never
reads the true state's hidden tiles or its future draws. The tree is shared across
determinizations and keyed by action ids (single-observer information-set MCTS): a node's
children are the actions seen legal in some determinization, and UCB counts a child's *availability*
(how often it was legal when its parent was visited) instead of the parent's visits. For
perfect-information games ``resample_hidden`` is a plain clone and this is ordinary UCT.

Values are the game's ``returns()`` per seat; each node keeps the sum of the returns of the seat
that chose the action leading to it (max^n), so 3-4 player games work unchanged.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import numpy as np

from tabletop_envs.agents.base import Agent
from tabletop_envs.core.game import GameState
from tabletop_envs.core.params import check_choice, check_int_range
from tabletop_envs.core.rng import make_rng

ROLLOUTS = ("random", "greedy")


class _Node:
    """A tree node: the move that led here, its mover, visit/value/availability counts."""

    __slots__ = ("avail", "children", "n", "player", "w")

    def __init__(self, player: int) -> None:
        self.player = player  # seat that chose the action leading to this node
        self.n = 0
        self.w = 0.0
        self.avail = 1
        self.children: dict[int, _Node] = {}


class MCTSAgent(Agent):
    """UCT with per-iteration determinization; ``iterations`` playouts per decision.

    ``exploration`` is the UCB constant for returns in [-1, 1] (scaled by the game's declared
    reward range otherwise). ``rollout`` is ``"random"`` (uniform legal moves, fast) or
    ``"greedy"`` (the game's one-ply heuristic at every step: stronger, much slower).
    A decision with a single legal action is returned at once, without search.
    """

    name = "mcts"

    def __init__(
        self,
        iterations: int = 200,
        exploration: float = 1.4,
        rollout: str = "random",
        seed: int | None = None,
    ) -> None:
        self.iterations = check_int_range("iterations", iterations, 1, 10**7)
        if not isinstance(exploration, (int, float)) or exploration < 0:
            raise ValueError(f"exploration must be a number >= 0, got {exploration!r}")
        self.exploration = float(exploration)
        self.rollout = check_choice("rollout", rollout, ROLLOUTS)
        self._greedy: Agent | None = None
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the agent's stream (``None``: fresh entropy on first use, else continue)."""
        if seed is not None or not hasattr(self, "rng"):
            self.rng = np.random.default_rng(seed)
        if self.rollout == "greedy":
            from tabletop_envs.agents.greedy import GreedyAgent

            self._greedy = GreedyAgent(seed=int(self.rng.integers(2**63)))

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

    def search(self, game: GameState, seat: int) -> _Node:
        """Run the iterations from ``game`` (``seat`` to move) and return the root node."""
        seed = int(self.rng.integers(2**63))
        det_rng = make_rng(seed)
        rnd = random.Random(seed)
        low, high = game.spec.reward_range
        c = self.exploration * max(high - low, 1e-9) / 2.0
        root = _Node(-1)
        rollout = self._rollout_policy(rnd)
        for _ in range(self.iterations):
            state = self.determinize(game, seat, det_rng)
            state.reseed(rnd.getrandbits(63))  # no peeking at the true chance stream
            node = root
            path = [root]
            # selection and expansion
            while not state.is_terminal:
                mover = state.current_player
                actions = state.legal_actions()
                children = node.children
                untried = [a for a in actions if a not in children]
                if untried:
                    action = untried[rnd.randrange(len(untried))]
                    for a in actions:
                        if a in children:
                            children[a].avail += 1
                    child = _Node(mover)
                    children[action] = child
                    state.apply(action)
                    path.append(child)
                    break
                best_value = -math.inf
                best_child: _Node | None = None
                best_action = -1
                for a in actions:
                    ch = children[a]
                    value = ch.w / ch.n + c * math.sqrt(math.log(ch.avail) / ch.n)
                    ch.avail += 1
                    if value > best_value:
                        best_value, best_child, best_action = value, ch, a
                assert best_child is not None
                state.apply(best_action)
                node = best_child
                path.append(node)
            # simulation
            while not state.is_terminal:
                state.apply(rollout(state))
            returns = state.returns().tolist()
            # backpropagation
            for nd in path:
                nd.n += 1
                if nd.player >= 0:
                    nd.w += returns[nd.player]
        return root

    def determinize(self, game: GameState, seat: int, rng: np.random.Generator) -> GameState:
        """Return the position one iteration searches: ``game.resample_hidden(seat, rng)``."""
        return game.resample_hidden(seat, rng)

    def _rollout_policy(self, rnd: random.Random) -> Callable[[GameState], int]:
        """Return the per-step rollout move chooser."""
        greedy = self._greedy
        if greedy is not None:
            return lambda state: greedy.act(state, state.current_player)

        random_unit = rnd.random

        def uniform(state: GameState) -> int:
            legal = state.legal_actions()
            return legal[int(random_unit() * len(legal))]

        return uniform
