"""Evaluation: agents play seeded games, the arena counts them, statistics rate them.

* :mod:`~tabletop_envs.evaluation.play`: one game (:func:`play_game`), the seeds of an arena's
  games (:func:`game_seeds`), the seat rotation (:func:`lineups`), a series of games.
* :mod:`~tabletop_envs.evaluation.arena`: :func:`run_arena`, :class:`ArenaResult`,
  :class:`AgentStats`, the outcome rule; :class:`ArenaConfig` declares a run.
* :mod:`~tabletop_envs.evaluation.stats`: Wilson intervals, Bradley-Terry Elo, its bootstrap.
* :mod:`~tabletop_envs.evaluation.ray`: :func:`init_ray` and the arena's Ray fan-out.

This layer sits above the agents and below training: it imports neither ``training`` nor the
command line, and Ray only when asked to use it.
"""

from tabletop_envs.evaluation.arena import (
    AgentStats,
    ArenaConfig,
    ArenaResult,
    evaluate,
    run_arena,
)
from tabletop_envs.evaluation.play import (
    GameConfig,
    PlayedGame,
    game_seeds,
    lineups,
    play_game,
)
from tabletop_envs.evaluation.ray import init_ray
from tabletop_envs.evaluation.stats import bradley_terry, fit_elo, wilson

__all__ = [
    "AgentStats",
    "ArenaConfig",
    "ArenaResult",
    "GameConfig",
    "PlayedGame",
    "bradley_terry",
    "evaluate",
    "fit_elo",
    "game_seeds",
    "init_ray",
    "lineups",
    "play_game",
    "run_arena",
    "wilson",
]
