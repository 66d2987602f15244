"""The search tree's node, one type for PUCT (:mod:`.puct`) and UCT (:mod:`.uct`).

A node stands for the position reached by an action; it records the seat that chose that
action (``player``, -1 at the root), its visits ``n`` and the sum ``w`` of the values backed up
through it *for that seat* (max^n, so 3-4 player games work unchanged), and its children keyed
by action id. Both searches share one tree per root across determinizations (single-observer
information-set search): a node's children are the actions seen legal in some determinization.

PUCT also branches on what an action made public (a revealed tile, a chance draw:
:meth:`~tabletop_envs.core.game.GameState.public_outcome`): the child of such an action keeps
the action's statistics (what its parent selects by) and, in ``outcomes``, one node per public
outcome seen, each with its own priors and children, so positions that differ in what everybody
saw are never fused (issue 21, defect 2).

Both searches decide a move whose mover has not seen the last steps
(:meth:`~tabletop_envs.core.game.GameState.secret_steps`: simultaneous choices played one seat
after another) on an *information-set node* (:func:`infoset_node`), shared by every sequence of
those steps: it hangs, in ``infosets``, off the node where the secret steps began (the root if
they began above it). Its children carry the statistics the move is selected by, and its own
``n`` the visits of the decision; the walk itself goes on down the true sequence of actions,
so a seat that chose in secret knows its own choice later (issue 21).

Each search uses a few more slots:

- UCT counts a child's *availability* ``avail``: how often it was legal when its parent was
  visited, which UCB reads instead of the parent's visits;
- PUCT keeps, at a root, the evaluator's ``value`` for the seat to move (what a Gumbel root
  mixes in, :mod:`.gumbel`), and at every node the evaluator's priors ``prior`` (action ->
  prior, once evaluated) and caches, for the legal actions seen last (:meth:`Node.use_legal`):
  ``legal``, ``legal_set``, the priors ``p`` with ``inv`` (1 / their sum over ``legal``),
  ``order`` (``legal`` by decreasing prior, then increasing id) and ``first`` (``order[first:]``
  starts with the unvisited action of highest prior).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence, Set

_NO_ACTIONS: frozenset[int] = frozenset()
_NO_PRIORS: Mapping[int, float] = {}  # shared and never written: a fresh node's ``p``


class Node:
    """A search node: the seat whose action led here, visits, value sum and children."""

    __slots__ = (
        "avail",
        "children",
        "first",
        "infosets",
        "inv",
        "legal",
        "legal_set",
        "n",
        "order",
        "outcomes",
        "p",
        "player",
        "prior",
        "value",
        "w",
    )

    def __init__(self, player: int) -> None:
        self.player = player  # seat whose action led here (-1: the root, an information set)
        self.n = 0
        self.w = 0.0
        self.children: dict[int, Node] = {}
        self.outcomes: dict[Hashable, Node] | None = None  # PUCT: by public outcome, if any
        self.infosets: dict[Hashable, Node] | None = None  # decisions of secret steps from here
        self.avail = 1  # UCT: visits of the parent where this child was legal
        self.prior: dict[int, float] | None = None  # PUCT: action -> prior, once evaluated
        self.value = 0.0  # PUCT, at a root: the evaluator's value for the seat to move
        self.legal: list[int] | None = None
        self.legal_set: Set[int] = _NO_ACTIONS
        self.p: Mapping[int, float] = _NO_PRIORS  # unnormalized over the cached legal actions
        self.inv = 1.0  # 1 / the sum of p over the cached legal actions
        self.order: Sequence[int] = ()
        self.first = 0

    def child(self, action: int, player: int) -> Node:
        """Return the child under ``action``, made (chosen by seat ``player``) on first use."""
        child = self.children.get(action)
        if child is None:
            child = self.children[action] = Node(player)
        return child

    def use_legal(self, actions: list[int]) -> bool:
        """Cache the priors of ``actions``; False if one of them has none (evaluate again)."""
        prior = self.prior
        if prior is None:  # never evaluated
            return False
        legal_set = set(actions)
        if not legal_set <= prior.keys():
            return False
        total = sum(map(prior.__getitem__, actions))
        if total > 0.0:
            self.p = prior
            self.inv = 1.0 / total
        else:  # every legal prior underflowed to 0: uniform
            self.p = dict.fromkeys(actions, 1.0)
            self.inv = 1.0 / len(actions)
        self.legal = actions
        self.legal_set = legal_set
        # by decreasing prior; a stable sort keeps ascending ids on ties, reverse=True too
        self.order = sorted(actions, key=self.p.__getitem__, reverse=True)
        self.first = 0
        return True


def infoset_node(root: Node, steps: Sequence[Node], hidden: int, key: Hashable) -> Node:
    """Return the node deciding a move whose mover has not seen the last ``hidden`` steps.

    ``steps`` are the nodes the walk took its steps from, the root first; the node hangs off
    the one the secret steps began from (the root if they began above it), under ``key``,
    which must tell apart what the mover does see (its seat, ``hidden``, public outcomes).
    """
    anchor = steps[-hidden] if hidden <= len(steps) else root
    shared = anchor.infosets
    if shared is None:
        shared = anchor.infosets = {}
    node = shared.get(key)
    if node is None:
        node = shared[key] = Node(-1)
    return node


def backup(path: Sequence[Node], values: Sequence[float]) -> None:
    """Count a visit to each node of ``path``; add to it the value of the seat that chose it."""
    for node in path:
        node.n += 1
        if node.player >= 0:
            node.w += values[node.player]
