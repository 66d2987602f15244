"""UCT Monte Carlo tree search on the core contract, with determinization for hidden information.

Every iteration draws a *determinization* ``game.resample_hidden(seat, rng)``: a copy of the
position whose hidden part (others' hands, stack orders, unrevealed choices) is redrawn
consistently with what the searching seat knows, the same function the hidden-information tests
use. Its chance stream is reseeded from the search's own stream too, so the search never reads
the true state's hidden tiles or its future draws. The tree is shared across determinizations
and keyed by action ids (single-observer information-set MCTS): a node's children are the
actions seen legal in some determinization, and UCB counts a child's *availability* (how often
it was legal when its parent was visited) instead of the parent's visits. A move whose mover
has not seen the last steps (simultaneous choices made in turn) is chosen on a node shared by
all of them (:func:`~tabletop_envs.search.node.infoset_node`). For
perfect-information games ``resample_hidden`` is a plain clone and this is ordinary UCT.

Values are the game's ``returns()`` per seat; each node keeps the sum of the returns of the seat
that chose the action leading to it (max^n), so 3-4 player games work unchanged.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import numpy as np

from tabletop_envs.core.game import GameState
from tabletop_envs.core.rng import make_rng
from tabletop_envs.search.node import Node, backup, infoset_node
from tabletop_envs.search.playouts import Mover, play_out, random_mover

#: ``determinize(game, seat, rng) -> state``: the position one iteration searches.
Determinizer = Callable[[GameState, int, np.random.Generator], GameState]


def resample(game: GameState, seat: int, rng: np.random.Generator) -> GameState:
    """The default determinizer: ``game.resample_hidden(seat, rng)``."""
    return game.resample_hidden(seat, rng)


def uct_search(
    game: GameState,
    seat: int,
    iterations: int,
    seed: int,
    *,
    exploration: float = 1.4,
    determinize: Determinizer = resample,
    playout_move: Mover | None = None,
) -> Node:
    """Run ``iterations`` UCT iterations from ``game`` (``seat`` to move); return the root.

    ``seed`` seeds the search's streams: the determinizations' (``make_rng(seed)``) and one
    ``random.Random(seed)`` for the choice among untried actions, the determinizations' chance
    streams and the random playouts. ``exploration`` is the UCB constant for returns in
    [-1, 1], scaled by the game's declared reward range. ``playout_move`` plays the playouts
    (a :mod:`~tabletop_envs.search.playouts` mover); None plays uniformly random moves. The
    root's children carry the statistics: ``n`` visits, ``w`` the sum of the returns of the
    root's seat, ``avail``.
    """
    det_rng = make_rng(seed)
    rnd = random.Random(seed)
    low, high = game.spec.reward_range
    c = exploration * max(high - low, 1e-9) / 2.0
    root = Node(-1)
    move = random_mover(rnd) if playout_move is None else playout_move
    for _ in range(iterations):
        state = determinize(game, seat, det_rng)
        state.reseed(rnd.getrandbits(63))  # no peeking at the true chance stream
        path = _select_and_expand(root, state, c, rnd)
        backup(path, play_out(state, move))
    return root


def _select_and_expand(root: Node, state: GameState, c: float, rnd: random.Random) -> list[Node]:
    """Walk ``state`` (changed) down the tree by UCB, adding one node; return the path.

    At a node with untried legal actions one of them is drawn and added (the walk stops there);
    otherwise the child maximizing ``w / n + c * sqrt(log(avail) / n)`` is taken (the first
    legal one on ties). Every legal child's availability counts this visit. A move whose mover
    has not seen the last steps (:meth:`~tabletop_envs.core.game.GameState.secret_steps`) is
    chosen among the children of their information-set node (:func:`~.node.infoset_node`),
    which the path goes through too, while the walk follows the true actions.
    """
    node = root
    path = [root]
    steps: list[Node] = []  # the node each step of this walk was taken from
    while not state.is_terminal:
        mover = state.current_player
        actions = state.legal_actions()
        hidden = state.secret_steps() if steps else 0  # the root is its own information set
        decide = infoset_node(root, steps, hidden, (mover, hidden)) if hidden else node
        children = decide.children
        untried = [a for a in actions if a not in children]
        if untried:
            best_action = untried[rnd.randrange(len(untried))]
            for a in actions:
                if a in children:
                    children[a].avail += 1
            best_child = children[best_action] = Node(mover)
        else:
            best_value = -math.inf
            best_action = -1
            for a in actions:
                ch = children[a]
                value = ch.w / ch.n + c * math.sqrt(math.log(ch.avail) / ch.n)
                ch.avail += 1
                if value > best_value:
                    best_value, best_child, best_action = value, ch, a
        steps.append(node)
        state.apply(best_action)
        if decide is not node:  # the information set's statistics; the walk goes on below node
            path.append(best_child)
            best_child = node.child(best_action, mover)
        node = best_child
        path.append(node)
        if untried:
            break
    return path
