"""The conformance suite, shipped: check that a game and its env keep every promise of the
library's contract.

``check_env("iris_v0", board_size=8)`` runs every check on a registered env (a game of your own
included, once registered); ``check_game(MyState, {"size": 5})`` runs the rules core's checks on
a game class before it has an env. A failure raises :class:`ConformanceError` (an
AssertionError) naming the env, its parameters, the check and where it failed. See
``docs/testing.md`` for what each check means.

The checks themselves live in :mod:`~tabletop_envs.testing.core_checks`,
:mod:`~tabletop_envs.testing.copies`, :mod:`~tabletop_envs.testing.env_checks` and
:mod:`~tabletop_envs.testing.api`, each a function of a :class:`Case` (a game under one parameter
set, with the depth and first seed), for test suites that want one test per check.
"""

from tabletop_envs.testing.check import (
    CHECKS,
    DEFAULT_GAMES,
    Check,
    ConformanceError,
    check_env,
    check_game,
)
from tabletop_envs.testing.play import Case, play_out, random_action

__all__ = [
    "CHECKS",
    "DEFAULT_GAMES",
    "Case",
    "Check",
    "ConformanceError",
    "check_env",
    "check_game",
    "play_out",
    "random_action",
]
