"""PUCT: the AlphaZero tree search, guided by an evaluator, batched over roots.

:func:`puct_search` searches several root positions at once (the unfinished games of a
self-play batch, or one position for an agent) and returns, for each root, the visit counts of
its actions and its priors. Each simulation round descends one path in every root's tree and
evaluates all the new leaves together in one call of the evaluator
(:class:`~tabletop_envs.search.evaluator.Evaluator`).

A simulation is three steps, each a function below: *selection* (:func:`puct_select` at every
node, or the root's own rule, see :data:`RootSelection`), *expansion and evaluation* of the leaf
(:func:`_expand_leaves`: the evaluator's priors and value, mixed with a playout's result when a
playout weight is set) and *backup* (:func:`tabletop_envs.search.node.backup`).

Hidden information and chance: each simulation of root ``i`` walks a fresh determinization
``roots[i].resample_hidden(seats[i], rng)`` whose chance events come from a stream seeded from
``rng`` (not the root's own), so the search never reads what the seat cannot know. One tree per
root is shared by all its determinizations and keyed by action ids: a node's children are the
actions seen legal in some determinization, and a node is evaluated again when a
determinization makes legal an action it has no prior for (that simulation ends there). Priors
are renormalized over the actions legal in the current determinization.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from tabletop_envs.core.config import quote
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.core.game import GameState
from tabletop_envs.core.rng import make_rng
from tabletop_envs.search.evaluator import Evaluator, encode_batch, evaluate_checked
from tabletop_envs.search.node import Node, backup, infoset_node
from tabletop_envs.search.playouts import (
    check_playout,
    check_playout_weight,
    renamed,
    seeded_playout,
)
from tabletop_envs.search.values import (
    DEFAULT_SCORE_SCALE,
    ValueScale,
    check_score_scale,
    check_value_target,
    value_vector,
)

#: ``select(node, c_puct) -> action``: the child a simulation descends into from ``node``, whose
#: legal actions are cached (:meth:`Node.use_legal`) for the current determinization.
#:
#: The hook for another root rule: :func:`puct_search` calls its ``root_selection`` at the root
#: and :func:`puct_select` below it (:func:`search_trees` takes one per root). The Gumbel root
#: (:class:`~tabletop_envs.search.gumbel.GumbelRoot`) is one, keeping its candidates and budget
#: in the object, reading the root's priors (``node.p``, ``node.inv``) and its children's visits.
RootSelection = Callable[[Node, float], int]

#: ``(prior, weight)``: a prior over the action space and its share of one root's priors
#: (:func:`search_trees`; :mod:`tabletop_envs.search.guide` makes one from a heuristic).
Guide = tuple[np.ndarray, float]


def puct_select(node: Node, c_puct: float) -> int:
    """Return the action maximizing ``Q + c_puct * P * sqrt(N) / (1 + N_child)`` at ``node``.

    ``Q`` is the child's mean value for the seat that chooses it (0 unvisited), ``P`` the prior
    renormalized over the cached legal actions; ties go to the lowest action id. The visited
    children are compared with the unvisited action of highest prior (``node.order[first]``).
    """
    scale = c_puct * math.sqrt(node.n) * node.inv
    p = node.p
    legal_set = node.legal_set
    children = node.children
    best = -math.inf
    best_action = -1
    for a, child in children.items():
        if a in legal_set:
            score = child.w / child.n + p[a] * scale / (1 + child.n)
            if score > best or (score == best and a < best_action):
                best = score
                best_action = a
    order = node.order
    first = node.first
    while first < len(order) and order[first] in children:
        first += 1  # children are never removed: skip the visited once and for all
    node.first = first
    if first < len(order):
        a = order[first]
        score = p[a] * scale  # an unvisited action's value counts as 0
        if score > best or (score == best and a < best_action):
            best_action = a
    return best_action


@dataclass
class _Leaf:
    """A simulation that stopped at a node to evaluate: its root, state, legal actions, path."""

    root: int
    state: GameState
    mask: np.ndarray
    actions: list[int]
    path: list[Node]


def puct_search(
    roots: Sequence[GameState],
    seats: Sequence[int],
    evaluate: Evaluator,
    simulations: int,
    rng: np.random.Generator,
    *,
    c_puct: float = 1.5,
    dirichlet_alpha: float | None = None,
    dirichlet_fraction: float = 0.25,
    playout_weight: float = 0.0,
    playout: str = "random",
    root_selection: RootSelection = puct_select,
    value_target: str | None = None,
    score_scale: float = DEFAULT_SCORE_SCALE,
    rollout_weight: float | None = None,
    rollout_policy: str | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Search every root with PUCT; return ``(visit counts int64, root priors)``, (len(roots), A).

    ``seats[i]`` is the seat to move in ``roots[i]`` (the searching seat); the roots are not
    changed. ``evaluate`` is an :class:`~tabletop_envs.search.evaluator.Evaluator` (a
    :class:`~tabletop_envs.search.network.PolicyValueNet` or any callable alike). It is called
    once to expand the roots, then once per simulation round for all the new leaves of every
    tree together: a round descends one path in each root's tree. Each root gets
    ``simulations`` visits, shared by its children. The root priors are the evaluator's (with
    the Dirichlet noise mixed in when it is asked for), zero on illegal actions.

    Hidden information and chance are searched as the module says (determinizations); an
    action that makes something public (:meth:`GameState.public_outcome`) branches on it. A
    position below the root with a single legal action is stepped through without an
    evaluation (the walk goes on to the next choice).

    Selection is :func:`puct_select` (``Q + c_puct * P * sqrt(N_node) / (1 + N_child)``, the
    lowest action id on ties), at the root ``root_selection`` (the same by default; the seam for
    a Gumbel root, see :mod:`~tabletop_envs.search.gumbel`). Values are per seat (max^n, for 2-4
    players), on one scale (:class:`~tabletop_envs.search.values.ValueScale`): a finished
    game's :func:`~tabletop_envs.search.values.value_targets` of ``value_target`` (``"result"``
    or ``"score"`` with ``score_scale``: what the network learnt), or with ``value_target``
    None its ``returns()`` scaled from the reward range to [-1, 1]; a network value ``v`` for
    the leaf's mover is spread by :func:`~tabletop_envs.search.values.value_vector`. With
    ``dirichlet_alpha`` set (self-play), each root's priors are mixed with Dirichlet noise:
    ``(1 - dirichlet_fraction) * P + dirichlet_fraction * Dir(alpha)``.

    ``playout_weight`` ``w`` > 0 (AlphaGo's mixing) plays a playout from each new leaf (its
    determinization, the search's chance stream) to the end and backs up ``(1 - w) * network
    value + w * the playout's final values``, per seat. ``playout`` chooses the playout's
    moves (:mod:`~tabletop_envs.search.playouts`): ``"random"`` (uniform, cheap), ``"greedy"``
    or ``"planner"`` (the game's heuristic for every seat, reading each seat's view of the
    determinization: costlier, far better where random play says little). ``rollout_weight``
    and ``rollout_policy`` are the former names of ``playout_weight`` and ``playout``
    (deprecated).
    """
    options = SearchOptions.of(
        c_puct,
        (dirichlet_alpha, dirichlet_fraction),
        renamed(
            "puct_search",
            "playout_weight",
            playout_weight,
            0.0,
            "rollout_weight",
            rollout_weight,
        ),
        renamed("puct_search", "playout", playout, "random", "rollout_policy", rollout_policy),
        value_target,
        score_scale,
    )
    trees, priors = search_trees(
        roots, seats, evaluate, simulations, rng, options, [root_selection] * len(roots)
    )
    return visit_counts(trees, priors.shape), priors


def run_puct(
    roots: Sequence[GameState],
    seats: Sequence[int],
    evaluate: Evaluator,
    simulations: int,
    rng: np.random.Generator,
    *,
    c_puct: float = 1.5,
    dirichlet_alpha: float | None = None,
    dirichlet_fraction: float = 0.25,
    playout_weight: float = 0.0,
    playout: str = "random",
    value_target: str | None = None,
    score_scale: float = DEFAULT_SCORE_SCALE,
    rollout_weight: float | None = None,
    rollout_policy: str | None = None,
) -> np.ndarray:
    """Return the root visit counts of :func:`puct_search` (same arguments), (len(roots), A)."""
    options = SearchOptions.of(
        c_puct,
        (dirichlet_alpha, dirichlet_fraction),
        renamed(
            "run_puct", "playout_weight", playout_weight, 0.0, "rollout_weight", rollout_weight
        ),
        renamed("run_puct", "playout", playout, "random", "rollout_policy", rollout_policy),
        value_target,
        score_scale,
    )
    trees, priors = search_trees(
        roots, seats, evaluate, simulations, rng, options, [puct_select] * len(roots)
    )
    return visit_counts(trees, priors.shape)


@dataclass(frozen=True)
class SearchOptions:
    """A search's settings; the playouts' weight and policy with the name the caller gave."""

    c_puct: float
    noise: tuple[float | None, float]  # Dirichlet (alpha, fraction)
    weight: tuple[float, str]
    policy: tuple[str, str]
    values: tuple[str | None, float]  # value target, score scale

    @classmethod
    def of(
        cls,
        c_puct: float,
        noise: tuple[float | None, float],
        weight: tuple[float, str],
        policy: tuple[str, str],
        value_target: str | None,
        score_scale: float,
    ) -> SearchOptions:
        """Return the options with ``c_puct``, ``value_target`` and ``score_scale`` checked
        (InvalidParameterError); :func:`search_trees` checks the noise and the playouts."""
        values = (check_value_target(value_target), check_score_scale(score_scale))
        return cls(check_c_puct(c_puct), noise, weight, policy, values)


def visit_counts(trees: Sequence[Node], shape: tuple[int, ...]) -> np.ndarray:
    """Return the visits of each root's actions, ``shape`` (len(trees), A) int64."""
    counts = np.zeros(shape, dtype=np.int64)
    for i, tree in enumerate(trees):
        for a, child in tree.children.items():
            counts[i, a] = child.n
    return counts


def search_trees(
    roots: Sequence[GameState],
    seats: Sequence[int],
    evaluate: Evaluator,
    simulations: int,
    rng: np.random.Generator,
    options: SearchOptions,
    selectors: Sequence[RootSelection],
    kept: Sequence[Node | None] | None = None,
    guides: Sequence[Guide | None] | None = None,
) -> tuple[list[Node], np.ndarray]:
    """Search every root, ``selectors[i]`` choosing at root ``i``; return the trees and priors.

    What :func:`puct_search` does (the settings checked and gathered in ``options``), with a
    root rule per root (a Gumbel root keeps each root's candidates).

    ``kept[i]``, when given and not None, is the node of an earlier search that stands for
    ``roots[i]`` (:class:`~tabletop_envs.search.reuse.KeptTree` finds it): the search goes on
    in that subtree, its visits and priors kept, instead of a new tree, unless its priors miss
    an action legal at the root (then the root is expanded anew).

    ``guides[i]``, when given and not None, is ``(prior, weight)``: a prior over the action space
    (:func:`~tabletop_envs.search.guide.guide_prior`) mixed into root ``i``'s priors as
    ``(1 - weight) * priors + weight * prior``, before the root noise.

    Returns ``(trees, root priors (len(roots), A) float64)``; each new root node keeps the
    evaluator's value for its mover (``tree.value``, what a Gumbel root mixes in).
    """
    c_puct = options.c_puct
    _check_search_args(roots, seats, simulations, c_puct, *options.noise)
    mix = check_playout_weight(*options.weight)
    playout = check_playout(*options.policy)
    play = seeded_playout(playout, rng) if mix > 0 else None
    # the determinizations' chance stream: one for the whole search (a state draws only while
    # it is walked, and the walks are sequential), seeded from rng, never the true one
    chance = make_rng(int(rng.integers(2**63)))
    scales = [ValueScale.of(g, *options.values) for g in roots]
    trees, root_priors = _expand_roots(roots, seats, evaluate, rng, options.noise, kept, guides)
    for _ in range(simulations):
        leaves = []
        for i, tree in enumerate(trees):
            state = roots[i].resample_hidden(seats[i], rng)
            state.rng = chance  # no peeking at the true chance stream
            leaf = _descend(i, tree, state, c_puct, selectors[i], scales[i])
            if leaf is not None:
                leaves.append(leaf)
        if leaves:
            _expand_leaves(leaves, evaluate, scales, mix, play)
    return trees, root_priors


def _expand_roots(
    roots: Sequence[GameState],
    seats: Sequence[int],
    evaluate: Evaluator,
    rng: np.random.Generator,
    noise: tuple[float | None, float],
    kept: Sequence[Node | None] | None,
    guides: Sequence[Guide | None] | None = None,
) -> tuple[list[Node], np.ndarray]:
    """Expand every root once, from what its seat sees (this costs no simulation).

    A root with a usable kept node (:func:`search_trees`) takes it and its priors; the others
    are evaluated together. A root's guide (:func:`search_trees`) is mixed into its priors,
    then ``noise``, the Dirichlet ``(alpha, fraction)``, into every root's priors when alpha is
    set. Returns the trees (a new root's ``value``: the
    evaluator's, for its mover) and the root priors (noise mixed in), (len(roots), A) float64.
    """
    num_actions = roots[0].spec.num_actions
    if any(g.spec.num_actions != num_actions for g in roots):
        raise ValueError("run_puct's roots must share one action space (one game and parameters)")
    for name, given in (("kept nodes", kept), ("guides", guides)):
        if given is not None and len(given) != len(roots):
            raise ValueError(f"search_trees got {len(given)} {name} for {len(roots)} roots")
    masks = np.stack([g.legal_mask() for g in roots]).astype(bool)
    legals = [np.flatnonzero(m) for m in masks]
    ids = [legal.tolist() for legal in legals]  # the same ids as lists (read, never changed)
    usable = [
        node if node is not None and node.use_legal(actions) else None
        for node, actions in zip(kept or [None] * len(roots), ids, strict=True)
    ]
    new = {i: k for k, i in enumerate(i for i, node in enumerate(usable) if node is None)}
    if new:
        obs = encode_batch([roots[i] for i in new], [seats[i] for i in new])
        priors, values = evaluate_checked(evaluate, obs, masks[list(new)])
    trees = []
    root_priors = np.zeros((len(roots), num_actions))
    alpha, fraction = noise
    guided = guides or [None] * len(roots)
    for i, (tree, legal, actions) in enumerate(zip(usable, legals, ids, strict=True)):
        if tree is None:
            k = new[i]
            root_p = priors[k, legal]
            tree = Node(-1)
            tree.n = 1
            tree.value = values[k]
        else:  # a kept node: its priors (renormalized over the legal actions) and visits
            root_p = np.array([tree.p[a] for a in actions]) * tree.inv
            tree.player = -1
        guide = guided[i]
        if guide is not None:
            prior, weight = guide
            root_p = (1.0 - weight) * root_p + weight * prior[legal]
        if alpha is not None and fraction > 0:
            mixed = rng.dirichlet(np.full(len(legal), float(alpha)))
            root_p = (1.0 - fraction) * root_p + fraction * mixed
        root_priors[i, legal] = root_p
        tree.prior = dict(zip(actions, root_p.tolist(), strict=True))
        tree.use_legal(actions)  # again for a kept node: its priors were just replaced
        trees.append(tree)
    return trees, root_priors


def _descend(
    root: int,
    tree: Node,
    state: GameState,
    c_puct: float,
    root_selection: RootSelection,
    scale: ValueScale,
) -> _Leaf | None:
    """Select down ``tree`` on ``state`` (changed): the leaf to evaluate, or None.

    A walk ends at a finished game (its values are backed up at once: None) or at a node whose
    priors do not cover the legal actions of this determinization (the leaf). Below the root,
    a single legal action is taken without priors; a move whose mover has not seen the last
    steps is selected on their information-set node (:func:`~.node.infoset_node`), whose
    statistics are backed up too, while the walk goes on down the true actions; an action that
    made something public goes on in the node of that outcome.
    """
    node = tree
    path = [node]
    steps: list[Node] = []  # the node each step of this walk was taken from
    seen: list[Hashable] = []  # what each step made public
    select = root_selection
    while True:
        if state.is_terminal:
            backup(path, scale.final(state))
            return None
        actions = state.legal_actions()  # ascending ids; the mask only for a leaf (Irk: 3,874)
        mover = state.current_player
        decide = node
        if len(actions) == 1 and node is not tree:
            best_action = actions[0]  # forced: no evaluation, no selection
        else:
            hidden = state.secret_steps() if steps else 0  # the root is its own information set
            if hidden:
                key = (mover, hidden, *seen[-hidden:])
                decide = infoset_node(tree, steps, hidden, key)
                path.append(decide)
            if actions != decide.legal and not decide.use_legal(actions):
                return _Leaf(root, state, state.legal_mask(), actions, path)
            best_action = select(decide, c_puct)
        select = puct_select
        steps.append(node)
        state.apply(best_action)
        if decide is not node:  # the information set's statistics
            path.append(decide.child(best_action, mover))
        nxt = node.child(best_action, mover)
        outcome = state.public_outcome()
        seen.append(outcome)
        if outcome is not None:  # the action's node counts; its outcome's node goes on
            path.append(nxt)
            branches = nxt.outcomes
            if branches is None:
                branches = nxt.outcomes = {}
            sub = branches.get(outcome)
            if sub is None:
                sub = branches[outcome] = Node(mover)
            nxt = sub
        node = nxt
        path.append(node)


def _expand_leaves(
    leaves: list[_Leaf],
    evaluate: Evaluator,
    scales: list[ValueScale],
    mix: float,
    play: Callable[[GameState], list[float]] | None,
) -> None:
    """Evaluate every leaf in one call, store its priors, back up its value (playout mixed in)."""
    states = [leaf.state for leaf in leaves]
    movers = [s.current_player for s in states]
    leaf_masks = np.stack([leaf.mask for leaf in leaves]).astype(bool)
    priors, values = evaluate_checked(evaluate, encode_batch(states, movers), leaf_masks)
    # every leaf's legal priors in one gather: the mask's nonzeros, row by row, are each
    # leaf's actions in ascending order (what legal_actions() lists)
    legal_p = priors.ravel()[np.flatnonzero(leaf_masks)].tolist()
    ends = np.cumsum(leaf_masks.sum(axis=1)).tolist()
    start = 0
    for leaf, end, v, mover in zip(leaves, ends, values, movers, strict=True):
        node = leaf.path[-1]
        new = dict(zip(leaf.actions, legal_p[start:end], strict=True))
        start = end
        if node.prior is None:
            node.prior = new
        else:
            for a, prior in new.items():
                node.prior.setdefault(a, prior)
        node.legal = None  # renormalize on the next visit
        scale = scales[leaf.root]
        vec = value_vector(v, mover, scale.players)
        if play is not None:  # mix in a playout's result
            play(leaf.state)
            played = scale.final(leaf.state)
            vec = [(1.0 - mix) * x + mix * r for x, r in zip(vec, played, strict=True)]
        backup(leaf.path, vec)


def _check_search_args(
    roots: Sequence[GameState],
    seats: Sequence[int],
    simulations: int,
    c_puct: float,
    dirichlet_alpha: float | None,
    dirichlet_fraction: float,
) -> None:
    """Raise InvalidParameterError (a ValueError) on a bad argument of :func:`puct_search`."""
    if not roots or len(roots) != len(seats):
        raise InvalidParameterError(
            f"run_puct needs one seat per root and at least one root, got {len(roots)} roots "
            f"and {len(seats)} seats"
        )
    for i, (game, seat) in enumerate(zip(roots, seats, strict=True)):
        if game.is_terminal:
            raise InvalidParameterError(f"root {i} is a finished game: there is nothing to search")
        if seat != game.current_player:
            raise InvalidParameterError(
                f"root {i}: seat {quote(seat)} is not the seat to move ({game.current_player})"
            )
    if type(simulations) is not int or simulations < 0:
        raise InvalidParameterError(f"simulations must be an int >= 0, got {quote(simulations)}")
    check_c_puct(c_puct)
    if dirichlet_alpha is not None and (
        not isinstance(dirichlet_alpha, (int, float)) or not 0 < dirichlet_alpha < math.inf
    ):
        raise InvalidParameterError(
            f"dirichlet_alpha must be None or a number > 0, got {quote(dirichlet_alpha)}"
        )
    if not isinstance(dirichlet_fraction, (int, float)) or not 0 <= dirichlet_fraction <= 1:
        raise InvalidParameterError(
            f"dirichlet_fraction must be in [0, 1], got {quote(dirichlet_fraction)}"
        )


def check_c_puct(c_puct: object, name: str = "c_puct") -> float:
    """Return ``c_puct`` as a float if it is a finite number >= 0, else InvalidParameterError."""
    if not isinstance(c_puct, (int, float)) or not 0 <= c_puct < math.inf:
        raise InvalidParameterError(f"{name} must be a finite number >= 0, got {quote(c_puct)}")
    return float(c_puct)
