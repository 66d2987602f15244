"""A Gumbel root for PUCT: policy improvement that holds with few simulations.

With 32-64 simulations, AlphaZero's visit counts are a poor policy target: flat, shaped by the
root noise as much as by the search (issue 21, defect 4), and a move chosen by counts need not
be better than the prior's. Gumbel AlphaZero (Danihelka, Guez, Schrittwieser and Silver,
"Policy improvement by planning with Gumbel", ICLR 2022) replaces both at the root:

1. **Candidates.** Draw ``g(a) ~ Gumbel(0, 1)`` per legal action (scaled by ``gumbel_scale``;
   0 for deterministic play) and keep the ``considered`` actions of highest
   ``g(a) + logits(a)``: a sample without replacement from the prior.
2. **Sequential halving.** The simulations are shared among the candidates in
   ``ceil(log2(considered))`` phases; after each phase the better half by
   ``g(a) + logits(a) + sigma(q(a))`` goes on (:func:`halving_schedule` says which visit
   count an action must have to be chosen at each simulation). Below the root the search is
   PUCT as usual.
3. **The move** is the remaining candidate of highest ``g + logits + sigma(q)``, and **the
   policy target** is ``softmax(logits + sigma(completed q))`` over every legal action, where
   an unvisited action's ``q`` is completed by the root's mixed value (the network's value
   and the visited actions' values weighted by the prior). Both improve on the prior in
   expectation, whatever the number of simulations.

``sigma(q) = (c_visit + max visits) * c_scale * q`` with ``q`` rescaled to [0, 1] over the
root's actions (the paper's ``c_visit = 50``, ``c_scale = 0.1``). Values are the searching
seat's, on the search's scale (:class:`~tabletop_envs.search.values.ValueScale`), so 3-4
player games work unchanged.

:func:`gumbel_search` searches a batch of roots (self-play); ``AZAgent(root="gumbel")`` plays
one with ``gumbel_scale=0``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.core.game import GameState
from tabletop_envs.core.params import check_int_range
from tabletop_envs.search.evaluator import Evaluator
from tabletop_envs.search.node import Node
from tabletop_envs.search.playouts import check_playout, check_playout_weight
from tabletop_envs.search.puct import (
    SearchOptions,
    puct_select,
    search_trees,
    visit_counts,
)
from tabletop_envs.search.values import DEFAULT_SCORE_SCALE

#: Candidates of a Gumbel root unless told otherwise (the paper's choice for Go and chess).
DEFAULT_CONSIDERED = 16
#: Most candidates a Gumbel root may be asked for.
MAX_CONSIDERED = 4096
#: The paper's constants of ``sigma``: visits added to the largest count, and the value scale.
C_VISIT = 50.0
C_SCALE = 0.1
_TINY = 1e-30  # floor of a prior before its log


def halving_schedule(considered: int, simulations: int) -> list[int]:
    """Return, for each simulation, the visit count a candidate must have to be chosen.

    Sequential halving with ``considered`` candidates: ``ceil(log2(considered))`` phases, each
    giving every remaining candidate ``max(1, simulations // (phases * remaining))`` more
    visits, and the remaining halving (never below 2) after each phase. Within a phase a
    simulation goes to the best candidate whose count is the one listed, so the candidates
    are visited in turn, best first. ``considered`` 1: every simulation to the one candidate.
    """
    if considered <= 1:
        return list(range(simulations))
    phases = math.ceil(math.log2(considered))
    visits = [0] * considered
    remaining = considered
    schedule: list[int] = []
    while len(schedule) < simulations:
        extra = max(1, simulations // (phases * remaining))
        for _ in range(extra):
            schedule.extend(visits[:remaining])
            for i in range(remaining):
                visits[i] += 1
        remaining = max(2, remaining // 2)
    return schedule[:simulations]


class GumbelRoot:
    """The root rule of one search: Gumbel candidates, shared out by sequential halving.

    A :data:`~tabletop_envs.search.puct.RootSelection`: called at the root of its tree (whose
    priors and legal actions are cached) for every simulation. It reads the evaluator's value
    of the root for its mover from the root node (``node.value``). Only the candidates are ever
    visited, so a selection reads only theirs: every other action's completed value is the
    mixed value.
    """

    def __init__(
        self, simulations: int, considered: int, gumbel_scale: float, rng: np.random.Generator
    ) -> None:
        self.simulations = simulations
        self.considered = considered
        self.gumbel_scale = gumbel_scale
        self.rng = rng
        self.legal: list[int] = []
        self.logits = np.zeros(0)  # of the legal actions
        self.actions: list[int] = []  # the candidates, best first by gumbel + logits
        self.base: list[float] = []  # their gumbel + logits
        self.prior: list[float] = []  # their priors
        self.schedule: list[int] = []

    def start(self, node: Node) -> None:
        """Draw the noise and the candidates from the root's cached priors."""
        assert node.legal is not None, "the root's priors are cached before any selection"
        self.legal = list(node.legal)
        prior = np.array([node.p[a] for a in self.legal]) * node.inv
        self.logits = np.log(np.maximum(prior, _TINY))
        key = self.gumbel_scale * self.rng.gumbel(size=len(self.legal)) + self.logits
        m = min(self.considered, len(self.legal))
        best = sorted(range(len(self.legal)), key=lambda i: -key[i])[:m]  # ties: lower ids
        self.actions = [self.legal[i] for i in best]
        self.base = [float(key[i]) for i in best]
        self.prior = [float(prior[i]) for i in best]
        self.schedule = halving_schedule(m, self.simulations)

    def __call__(self, node: Node, c_puct: float) -> int:
        """Return the candidate the next simulation visits."""
        if not self.actions:
            self.start(node)
        visits = self._visits(node)
        done = sum(visits)
        if done < len(self.schedule):
            due = self.schedule[done]
        else:  # past the budget (a root re-evaluated): the last phase's two go on in turn
            due = min(sorted(visits, reverse=True)[:2])
        legal = node.legal_set
        ready = [k for k, v in enumerate(visits) if v == due and self.actions[k] in legal]
        if not ready:  # the root's legal actions changed under a determinization
            return puct_select(node, c_puct)
        if len(ready) == 1:
            return self.actions[ready[0]]
        score = self._scores(node, visits)
        return self.actions[max(ready, key=score.__getitem__)]  # ties: the earlier candidate

    def _visits(self, node: Node) -> list[int]:
        children = node.children
        return [children[a].n if a in children else 0 for a in self.actions]

    def _completed(self, node: Node, visits: list[int]) -> tuple[list[float], float]:
        """Return the candidates' completed values and the mixed value.

        A visited action's value is its mean for the root's mover; an unvisited one's is the
        mixed value: the evaluator's value of the root and the visited actions' values
        weighted by their priors, ``(v + N * sum(p q) / sum(p)) / (1 + N)``.
        """
        children = node.children
        total = sum(visits)
        q = [0.0] * len(visits)
        mixed = node.value
        if total:
            num = den = 0.0
            for k, a in enumerate(self.actions):
                if visits[k]:
                    child = children[a]
                    q[k] = child.w / child.n
                    num += self.prior[k] * q[k]
                    den += self.prior[k]
            mixed = (node.value + total * num / max(den, _TINY)) / (1.0 + total)
        return [q[k] if visits[k] else mixed for k in range(len(visits))], mixed

    def _sigma(self, values: list[float], mixed: float, visits: list[int]) -> tuple[float, float]:
        """Return ``(low, factor)``: ``sigma(q) = (q - low) * factor``.

        That is ``(C_VISIT + max visits) * C_SCALE * q`` with ``q`` rescaled to [0, 1] over
        every legal action's completed value (the candidates', and the mixed value of the rest).
        """
        low, high = min(values), max(values)
        if len(self.actions) < len(self.legal):  # the other actions hold the mixed value
            low, high = min(low, mixed), max(high, mixed)
        return low, (C_VISIT + max(visits)) * C_SCALE / max(high - low, 1e-8)

    def _scores(self, node: Node, visits: list[int]) -> list[float]:
        """Return each candidate's ``g + logits + sigma(completed q)``."""
        values, mixed = self._completed(node, visits)
        low, factor = self._sigma(values, mixed, visits)
        return [b + (q - low) * factor for b, q in zip(self.base, values, strict=True)]

    def outcome(self, node: Node) -> tuple[int, list[int], np.ndarray]:
        """Return the move, the legal actions and the improved policy over them.

        The move is the most visited candidate of highest ``g + logits + sigma(q)``; the policy
        is ``softmax(logits + sigma(completed q))``.
        """
        if not self.actions:
            self.start(node)
        visits = self._visits(node)
        values, mixed = self._completed(node, visits)
        low, factor = self._sigma(values, mixed, visits)
        top = max(visits)
        best = [k for k, v in enumerate(visits) if v == top]
        move = self.actions[max(best, key=lambda k: self.base[k] + (values[k] - low) * factor)]
        completed = dict(zip(self.actions, values, strict=True))
        q = np.array([completed.get(a, mixed) for a in self.legal])
        z = self.logits + (q - low) * factor
        z = np.exp(z - z.max())
        return move, self.legal, z / z.sum()


@dataclass
class GumbelResult:
    """What :func:`gumbel_search` returns for a batch of roots."""

    actions: list[int]  # the move chosen at each root
    policies: np.ndarray  # (len(roots), A) float64: the improved policies (zero off the legal)
    counts: np.ndarray  # (len(roots), A) int64: the root visit counts
    priors: np.ndarray  # (len(roots), A) float64: the evaluator's root priors


def gumbel_search(
    roots: Sequence[GameState],
    seats: Sequence[int],
    evaluate: Evaluator,
    simulations: int,
    rng: np.random.Generator,
    *,
    considered: int = DEFAULT_CONSIDERED,
    gumbel_scale: float = 1.0,
    c_puct: float = 1.5,
    playout_weight: float = 0.0,
    playout: str = "random",
    value_target: str | None = None,
    score_scale: float = DEFAULT_SCORE_SCALE,
) -> GumbelResult:
    """Search every root with a Gumbel root (module doc) and PUCT below it.

    Same arguments as :func:`~tabletop_envs.search.puct.puct_search` (no root noise: the
    Gumbel draws explore), plus ``considered`` (candidates at the root, >= 1) and
    ``gumbel_scale`` (>= 0; 1 samples, as self-play does, 0 plays deterministically).
    """
    considered = check_int_range("considered", considered, 1, MAX_CONSIDERED)
    if isinstance(gumbel_scale, bool) or not isinstance(gumbel_scale, (int, float)):
        raise InvalidParameterError(f"gumbel_scale must be a number >= 0, got {gumbel_scale!r}")
    if not 0 <= gumbel_scale < math.inf:
        raise InvalidParameterError(
            f"gumbel_scale must be a finite number >= 0, got {gumbel_scale}"
        )
    options = SearchOptions.of(
        c_puct,
        (None, 0.0),
        (check_playout_weight(playout_weight), "playout_weight"),
        (check_playout(playout), "playout"),
        value_target,
        score_scale,
    )
    selectors = [GumbelRoot(simulations, considered, float(gumbel_scale), rng) for _ in roots]
    trees, priors = search_trees(roots, seats, evaluate, simulations, rng, options, selectors)
    policies = np.zeros(priors.shape)
    actions = []
    for i, (tree, root) in enumerate(zip(trees, selectors, strict=True)):
        move, legal, policy = root.outcome(tree)
        policies[i, legal] = policy
        actions.append(move)
    return GumbelResult(actions, policies, visit_counts(trees, priors.shape), priors)
