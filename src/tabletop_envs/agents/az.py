"""The AlphaZero-style player: a PUCT search guided by a policy-value network, numpy only.

The network (file format and forward pass) is :mod:`tabletop_envs.search.network`, the search
:mod:`tabletop_envs.search.puct`, the input encoding and the evaluator interface
:mod:`tabletop_envs.search.evaluator`. This module keeps :class:`AZAgent` and, for the code
that imported them from here, the names that lived here before the search got its own package
(plain re-exports: ``from tabletop_envs.agents.az import PolicyValueNet, run_puct`` works), and
:class:`~tabletop_envs.search.network_file.NetworkFileError`, what a bad network file raises.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from tabletop_envs.agents.base import Agent
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.core.game import GameState
from tabletop_envs.core.params import check_int_range
from tabletop_envs.search.evaluator import Evaluator, encode, encode_batch, uniform_evaluator
from tabletop_envs.search.guide import guide_prior, guide_settings
from tabletop_envs.search.gumbel import DEFAULT_CONSIDERED, MAX_CONSIDERED, gumbel_search
from tabletop_envs.search.network import (
    FORMAT,
    MAX_SIMULATIONS,
    MAX_SIZE,
    META_KEYS,
    ROLLOUT_POLICIES,
    VERSION,
    NetworkFileError,
    PolicyValueNet,
    array_shapes,
    check_meta,
    game_meta,
    params_json,
)
from tabletop_envs.search.network_file import ROOTS
from tabletop_envs.search.playouts import (
    PLAYOUTS,
    HeuristicChoice,
    check_playout,
    check_playout_weight,
    renamed,
)
from tabletop_envs.search.puct import (
    Guide,
    SearchOptions,
    check_c_puct,
    puct_search,
    puct_select,
    run_puct,
    search_trees,
    visit_counts,
)
from tabletop_envs.search.reuse import KeptTree
from tabletop_envs.search.values import (
    DEFAULT_SCORE_SCALE,
)

__all__ = [
    "DEFAULT_SIMULATIONS",
    "FORMAT",
    "MAX_SIMULATIONS",
    "MAX_SIZE",
    "META_KEYS",
    "PLAYOUTS",
    "ROLLOUT_POLICIES",
    "VERSION",
    "AZAgent",
    "Evaluator",
    "NetworkFileError",
    "PolicyValueNet",
    "array_shapes",
    "check_meta",
    "encode",
    "encode_batch",
    "game_meta",
    "params_json",
    "puct_search",
    "run_puct",
]

#: Simulations per move of :class:`AZAgent` unless told otherwise.
DEFAULT_SIMULATIONS = 64


class AZAgent(Agent):
    """Plays the action a PUCT search guided by a :class:`PolicyValueNet` ends on.

    ``simulations=None`` takes the network file's ``"simulations"`` (the number its maker
    measured it with), else :data:`DEFAULT_SIMULATIONS`; ``playout_weight=None`` the file's
    ``"rollout_weight"``, else 0 (no playouts; see
    :func:`~tabletop_envs.search.puct.puct_search`), and ``playout=None`` the file's
    ``"rollout_policy"``, else ``"random"``. ``rollout_weight`` and ``rollout_policy`` are the
    former names of ``playout_weight`` and ``playout`` (deprecated).
    ``root=None`` takes the file's ``"root"``, else ``"puct"``: the most visited action; ties
    go to the higher prior, then the lower action id. ``"gumbel"`` searches with a Gumbel root
    without noise (:mod:`~tabletop_envs.search.gumbel`: the ``considered`` actions of highest
    prior share the simulations by sequential halving) and plays the one it ends on.
    ``simulations=0`` plays the network's most likely legal action without search. A decision
    with a single legal action is returned at once. The search reads only what the seat may know.

    ``guide`` (``"greedy"`` or ``"planner"``; PUCT root only) mixes that heuristic's scores of
    the legal actions, a softmax at ``guide_temperature``, into the root's priors with weight
    ``guide_weight`` (:mod:`~tabletop_envs.search.guide`; ``network=False`` keeps the guide).
    ``None`` takes the file's ``"guide"``, ``"guide_weight"`` and ``"guide_temperature"``, else
    no guide, weight 1 and temperature 1; ``guide_weight=0`` switches a file's guide off.

    ``reuse=True`` (PUCT root only): when the seat decides again right after its own move
    (Iris's second stone, a placement after a reveal), the search goes on in the subtree the
    last search grew below that move (:mod:`~tabletop_envs.search.reuse`), its visits counted.
    ``reuse=None`` takes the file's ``"reuse"``, else False. :meth:`reset` forgets the tree.

    Finished games and playouts are valued on the scale the network learnt: the file's
    ``"value_target"`` and ``"score_scale"`` (a file without them: the game's returns scaled to
    [-1, 1], as before files recorded them; see :class:`~tabletop_envs.search.values.ValueScale`).
    ``network=False`` plays the same search (simulations, playouts, value scale) with a uniform
    prior and value 0 in place of the network
    (:func:`~tabletop_envs.search.evaluator.uniform_evaluator`): what the network adds.
    """

    name = "az"

    def __init__(
        self,
        net: PolicyValueNet,
        simulations: int | None = None,
        c_puct: float = 1.5,
        seed: int | None = None,
        playout_weight: float | None = None,
        playout: str | None = None,
        *,
        network: bool = True,
        root: str | None = None,
        considered: int = DEFAULT_CONSIDERED,
        reuse: bool | None = None,
        guide: str | None = None,
        guide_weight: float | None = None,
        guide_temperature: float | None = None,
        rollout_weight: float | None = None,
        rollout_policy: str | None = None,
    ) -> None:
        if not isinstance(net, PolicyValueNet):
            raise ValueError(
                f"AZAgent needs a PolicyValueNet (PolicyValueNet.load(path)), got "
                f"{type(net).__name__}"
            )
        self.net = net
        if simulations is None:
            simulations = int(net.meta.get("simulations", DEFAULT_SIMULATIONS))
        self.simulations = check_int_range("simulations", simulations, 0, MAX_SIMULATIONS)
        weight, weight_name = renamed(
            "AZAgent", "playout_weight", playout_weight, None, "rollout_weight", rollout_weight
        )
        policy, policy_name = renamed(
            "AZAgent", "playout", playout, None, "rollout_policy", rollout_policy
        )
        if weight is None:
            weight = float(net.meta.get("rollout_weight", 0.0))
        if policy is None:
            policy = str(net.meta.get("rollout_policy", "random"))
        self.playout_weight = check_playout_weight(weight, weight_name)
        self.playout = check_playout(policy, policy_name)
        self.c_puct = check_c_puct(c_puct)
        if not isinstance(network, bool):
            raise InvalidParameterError(f"network must be True or False, got {network!r}")
        self.network = network
        if root is None:
            root = str(net.meta.get("root", "puct"))
        if root not in ROOTS:
            raise InvalidParameterError(f"root must be one of {', '.join(ROOTS)}, got {root!r}")
        self.root = root
        self.considered = check_int_range("considered", considered, 1, MAX_CONSIDERED)
        if reuse is not None and not isinstance(reuse, bool):
            raise InvalidParameterError(f"reuse must be True or False, got {reuse!r}")
        if reuse and root == "gumbel":
            raise InvalidParameterError("reuse=True needs root=puct (a Gumbel root starts afresh)")
        if reuse is None:
            reuse = root == "puct" and bool(net.meta.get("reuse", False))
        self.reuse = reuse
        self.guide, self.guide_weight, self.guide_temperature = guide_settings(
            net.meta, guide, guide_weight, guide_temperature
        )
        kind = self.guide if self.guide_weight > 0 else None  # a weight of 0: no guide
        if kind is not None and root == "gumbel":
            raise InvalidParameterError("a guide needs root=puct (a Gumbel root is not guided)")
        self._guide_choice = HeuristicChoice(kind) if kind is not None else None
        self._kept = KeptTree()
        self.evaluate: Evaluator = net if network else uniform_evaluator
        self.value_target: str | None = net.meta.get("value_target")
        self.score_scale = float(net.meta.get("score_scale", DEFAULT_SCORE_SCALE))
        self._checked: tuple[type, object] | None = None
        self._reading: dict[str, Any] = {}  # observation parameters the network reads otherwise
        self.reset(seed)

    @property
    def guided(self) -> bool:
        """Whether a heuristic guides the root (a guide with a weight above 0)."""
        return self._guide_choice is not None

    @property
    def rollout_weight(self) -> float:
        """The former name of :attr:`playout_weight` (deprecated)."""
        _renamed_attribute("rollout_weight", "playout_weight")
        return self.playout_weight

    @property
    def rollout_policy(self) -> str:
        """The former name of :attr:`playout` (deprecated)."""
        _renamed_attribute("rollout_policy", "playout")
        return self.playout

    def reset(self, seed: int | None = None) -> None:
        """Forget the kept tree; reseed the stream (``None``: fresh entropy on first use)."""
        self._kept.clear()
        if seed is not None or not hasattr(self, "rng"):
            self.rng = np.random.default_rng(seed)

    def act(self, game: GameState, seat: int) -> int:
        """Return the action of a search of ``simulations`` simulations (the class says which)."""
        mask = game.legal_mask()
        legal = mask.nonzero()[0].tolist()
        if not legal:
            raise ValueError(f"seat {seat} has no legal action (is the game over?)")
        if len(legal) == 1:
            return int(legal[0])
        key = (type(game), game.params)
        if self._checked != key:
            self._reading = self.net.check_game(game)
            self._checked = key
        if self._reading and self.network:  # read the position as the network learnt to
            game = game.with_observation(**self._reading)
        if self.simulations == 0:
            return self._prior_action(game, seat, mask, legal)
        if self.root == "gumbel":
            return self._gumbel_action(game, seat)
        return self._puct_action(game, seat, legal)

    def _prior_action(self, game: GameState, seat: int, mask: np.ndarray, legal: list[int]) -> int:
        """Return the legal action of highest prior, no search (``simulations=0``)."""
        if self.network:
            priors, _ = self.net.evaluate_game(game, seat)
        else:  # a uniform prior: the lowest legal id, unless a guide says otherwise
            priors = mask / len(legal)
        guide = self._root_guide(game, seat)
        if guide is not None:
            priors = (1.0 - guide[1]) * priors + guide[1] * guide[0]
        return int(max(legal, key=lambda a: (priors[a], -a)))

    def _gumbel_action(self, game: GameState, seat: int) -> int:
        """Return the action a Gumbel-root search without noise ends on."""
        result = gumbel_search(
            [game],
            [seat],
            self.evaluate,
            self.simulations,
            self.rng,
            considered=self.considered,
            gumbel_scale=0.0,
            c_puct=self.c_puct,
            playout_weight=self.playout_weight,
            playout=self.playout,
            value_target=self.value_target,
            score_scale=self.score_scale,
        )
        return result.actions[0]

    def _puct_action(self, game: GameState, seat: int, legal: list[int]) -> int:
        """Return the most visited action of a PUCT search (ties: higher prior, lower id),
        going on in the kept tree with ``reuse``."""
        options = SearchOptions.of(
            self.c_puct,
            (None, 0.0),  # no root noise
            (self.playout_weight, "playout_weight"),
            (self.playout, "playout"),
            self.value_target,
            self.score_scale,
        )
        kept = [self._kept.take(game)] if self.reuse else None
        guides = [self._root_guide(game, seat)]
        trees, root_priors = search_trees(
            [game],
            [seat],
            self.evaluate,
            self.simulations,
            self.rng,
            options,
            [puct_select],
            kept,
            guides,
        )
        visits, prior = visit_counts(trees, root_priors.shape)[0].tolist(), root_priors[0].tolist()
        action = int(max(legal, key=lambda a: (visits[a], prior[a], -a)))
        if self.reuse:
            self._kept.keep(game, trees[0])
        return action

    def _root_guide(self, game: GameState, seat: int) -> Guide | None:
        """Return the guide's prior and weight for this decision (None without a guide)."""
        if self._guide_choice is None:
            return None
        prior = guide_prior(self._guide_choice, game, seat, self.guide_temperature, self.rng)
        return prior, self.guide_weight


def _renamed_attribute(old: str, new: str) -> None:
    warnings.warn(
        f"AZAgent.{old} is deprecated, use AZAgent.{new} (removed in 0.3)",
        DeprecationWarning,
        stacklevel=3,
    )
