"""Tree reuse: a player's next search goes on in the subtree its last search grew.

After a search picks a move, the subtree below that move already holds visits and priors for
what follows. :class:`KeptTree` keeps the searched position and its tree; when the same seat
is to decide again right after its own moves (Iris's second stone, the placement after a reveal
in Isis & Osiris), it follows those moves down the tree and hands back the node of the new
position, which :func:`~tabletop_envs.search.puct.search_trees` searches on instead of a new
tree: the decision starts with the visits the last search gave it.

The walk is exact or it gives nothing: the new position must come from the same deal (seed and
parameters) by the kept actions and then one or more actions of the searching seat, each a
child in the tree (under the public outcome it showed, as the search branches:
:mod:`~tabletop_envs.search.node`). Otherwise the search starts afresh, as it does after
another seat's move: a walk through other seats' moves would read their actions off the game's
log, secret choices included. The kept position is the true one the seat was given; the walk
reads from it only the seat's own actions and what every seat saw (their public outcomes).
"""

from __future__ import annotations

from tabletop_envs.core.game import GameState
from tabletop_envs.search.node import Node


class KeptTree:
    """The last searched position and its tree, to find the node of a later position."""

    def __init__(self) -> None:
        self._position: GameState | None = None
        self._tree: Node | None = None

    def clear(self) -> None:
        """Forget the kept tree (a new game)."""
        self._position = None
        self._tree = None

    def keep(self, position: GameState, tree: Node) -> None:
        """Keep ``tree``, the search tree of ``position`` (copied: the caller's may move on)."""
        if position.seed is None:  # a laid-out position: no log to follow from it
            self.clear()
            return
        self._position = position.clone()
        self._tree = tree

    def take(self, game: GameState) -> Node | None:
        """Return the kept tree's node for ``game`` (and forget the tree), or None.

        None unless ``game`` follows from the kept position (same parameters and seed) by one
        or more moves of the seat that searched it, along children of the tree, and that seat
        is to move again: the subtree was grown from that seat's view (its own hidden
        information as it is), so it is never handed to another seat, not even to an agent
        that plays both.
        """
        position, node = self._position, self._tree
        self.clear()
        if position is None or node is None:
            return None
        done = position.actions
        log = game.actions
        if (
            type(game) is not type(position)
            or game.seed != position.seed
            or game.params != position.params
            or len(log) <= len(done)
            or log[: len(done)] != done
            or game.current_player != position.current_player
            or game.secret_steps()
        ):
            return None
        state = position
        seat = position.current_player
        for action in log[len(done) :]:
            if state.current_player != seat:  # another seat's move: its choice is not ours to read
                return None
            try:
                state.apply(action)
            except ValueError:  # a log that does not replay: not the game that was searched
                return None
            child = node.children.get(action)
            if child is None:
                return None
            outcome = state.public_outcome()
            if outcome is not None:
                child = (child.outcomes or {}).get(outcome)
                if child is None:
                    return None
            node = child
        return node if node.prior is not None else None
