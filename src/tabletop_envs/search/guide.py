"""A heuristic as a guide at the root: its scores, made a prior, mixed into the root's priors.

A *guide* is one of the game's heuristics (``greedy`` or ``planner``, the heuristic kinds a
playout may play: :data:`~tabletop_envs.search.network_file.GUIDES`). At the root of a search
its scores of the legal actions become a softmax prior at a *temperature* (in the heuristic's
own score units: Irk's points, Isis & Osiris's score), and the root's priors become ``(1 - w) *
network prior + w * guide prior`` for a *guide weight* ``w`` in [0, 1], before any root noise.
Only the root is guided (one heuristic call per move); the tree below it keeps the network's
priors. The guide reads what the heuristic reads, the seat's own view, never the hidden state.
"""

from __future__ import annotations

import numpy as np

from tabletop_envs.core.config import quote
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.core.game import GameState
from tabletop_envs.search.network_file import GUIDES
from tabletop_envs.search.playouts import HeuristicChoice, check_playout_weight
from tabletop_envs.search.values import check_positive

#: A guide's temperature unless told otherwise (one unit of the heuristic's score).
DEFAULT_GUIDE_TEMPERATURE = 1.0


def guide_prior(
    choice: HeuristicChoice,
    game: GameState,
    seat: int,
    temperature: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """Return the softmax of ``choice``'s scores of ``seat``'s legal actions at ``temperature``,
    over the game's whole action space (zero where illegal; float64, sums to 1).

    The heuristic may draw from ``rng`` (Irk samples placements); a forced move draws nothing.
    """
    actions, scores = choice.scores(game, seat, rng)
    prior = np.zeros(game.spec.num_actions)
    if scores is None:  # one legal action
        prior[actions[0]] = 1.0
        return prior
    logits = np.asarray(scores, dtype=np.float64) / temperature
    weights = np.exp(logits - logits.max())
    prior[actions] = weights / weights.sum()
    return prior


def check_guide(value: object, name: str = "guide") -> str | None:
    """Return ``value`` if it is None or a guide (``GUIDES``), else InvalidParameterError."""
    if value is None or (isinstance(value, str) and value in GUIDES):
        return value
    raise InvalidParameterError(f"{name} must be one of {', '.join(GUIDES)}, got {quote(value)}")


def guide_settings(
    meta: dict[str, object],
    guide: str | None,
    weight: float | None,
    temperature: float | None,
) -> tuple[str | None, float, float]:
    """Return a search's ``(guide, weight, temperature)``: each argument given, else the network
    file's ``"guide"``, ``"guide_weight"`` and ``"guide_temperature"``, else no guide, weight 1
    (a guide given is used fully) and :data:`DEFAULT_GUIDE_TEMPERATURE`.

    InvalidParameterError names a bad value; a weight of 0 switches a file's guide off.
    """
    guide = check_guide(meta.get("guide") if guide is None else guide)
    if weight is None:
        weight = meta.get("guide_weight", 1.0)  # type: ignore[assignment]
    if temperature is None:
        temperature = meta.get("guide_temperature", DEFAULT_GUIDE_TEMPERATURE)  # type: ignore[assignment]
    return (
        guide,
        check_playout_weight(weight, "guide_weight"),
        check_positive(temperature, "guide_temperature"),
    )
