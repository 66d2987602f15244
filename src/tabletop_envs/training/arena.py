"""Moved to :mod:`tabletop_envs.evaluation` (evaluation sits below training).

Every name this module had stays importable from here, with a ``DeprecationWarning`` naming its
new place; this alias will be removed in version 0.3.

========================  ==================================================================
old name                  new place
========================  ==================================================================
``run_arena``             :func:`tabletop_envs.evaluation.arena.run_arena`
``ArenaResult``           :class:`tabletop_envs.evaluation.arena.ArenaResult`
``AgentStats``            :class:`tabletop_envs.evaluation.arena.AgentStats`
``_score_game``           :func:`tabletop_envs.evaluation.arena.score_game`
``play_game``             :func:`tabletop_envs.evaluation.play.play_game`
``game_seeds``            :func:`tabletop_envs.evaluation.play.game_seeds`
``lineups``               :func:`tabletop_envs.evaluation.play.lineups`
``PlayedGame``            :class:`tabletop_envs.evaluation.play.PlayedGame`
``_play_games``           :func:`tabletop_envs.evaluation.play.play_games`
``_names``                :func:`tabletop_envs.evaluation.play.agent_names`
``_play_on_ray``          :func:`tabletop_envs.evaluation.ray.play_on_ray`
``wilson``                :func:`tabletop_envs.evaluation.stats.wilson`
``bradley_terry``         :func:`tabletop_envs.evaluation.stats.bradley_terry`
``Z95``, ``PRIOR_DRAWS``  :mod:`tabletop_envs.evaluation.stats`
========================  ==================================================================
"""

from __future__ import annotations

import importlib
import warnings
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names as mypy sees them; at run time __getattr__ finds them
    from tabletop_envs.evaluation.arena import AgentStats as AgentStats
    from tabletop_envs.evaluation.arena import ArenaResult as ArenaResult
    from tabletop_envs.evaluation.arena import run_arena as run_arena
    from tabletop_envs.evaluation.play import PlayedGame as PlayedGame
    from tabletop_envs.evaluation.play import game_seeds as game_seeds
    from tabletop_envs.evaluation.play import lineups as lineups
    from tabletop_envs.evaluation.play import play_game as play_game
    from tabletop_envs.evaluation.stats import PRIOR_DRAWS as PRIOR_DRAWS
    from tabletop_envs.evaluation.stats import Z95 as Z95
    from tabletop_envs.evaluation.stats import bradley_terry as bradley_terry
    from tabletop_envs.evaluation.stats import wilson as wilson

#: old name -> (module, name there)
MOVED: dict[str, tuple[str, str]] = {
    "run_arena": ("tabletop_envs.evaluation.arena", "run_arena"),
    "ArenaResult": ("tabletop_envs.evaluation.arena", "ArenaResult"),
    "AgentStats": ("tabletop_envs.evaluation.arena", "AgentStats"),
    "_score_game": ("tabletop_envs.evaluation.arena", "score_game"),
    "play_game": ("tabletop_envs.evaluation.play", "play_game"),
    "game_seeds": ("tabletop_envs.evaluation.play", "game_seeds"),
    "lineups": ("tabletop_envs.evaluation.play", "lineups"),
    "PlayedGame": ("tabletop_envs.evaluation.play", "PlayedGame"),
    "_play_games": ("tabletop_envs.evaluation.play", "play_games"),
    "_names": ("tabletop_envs.evaluation.play", "agent_names"),
    "_play_on_ray": ("tabletop_envs.evaluation.ray", "play_on_ray"),
    "wilson": ("tabletop_envs.evaluation.stats", "wilson"),
    "bradley_terry": ("tabletop_envs.evaluation.stats", "bradley_terry"),
    "Z95": ("tabletop_envs.evaluation.stats", "Z95"),
    "PRIOR_DRAWS": ("tabletop_envs.evaluation.stats", "PRIOR_DRAWS"),
}


def __getattr__(name: str) -> Any:
    """Return a moved name from its new module, warning where it went."""
    if name not in MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, new = MOVED[name]
    warnings.warn(
        f"tabletop_envs.training.arena.{name} moved to {module}.{new}; the old name is "
        "removed in 0.3",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(importlib.import_module(module), new)


def __dir__() -> list[str]:
    return sorted([*globals(), *MOVED])


__all__ = [
    "AgentStats",
    "ArenaResult",
    "PlayedGame",
    "bradley_terry",
    "game_seeds",
    "lineups",
    "play_game",
    "run_arena",
    "wilson",
]
