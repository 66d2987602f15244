"""Moved to :mod:`tabletop_envs.games.irk.heuristics` (game knowledge lives with the game).

This alias warns and will be removed in version 0.3.
"""

import sys
import warnings

from tabletop_envs.games.irk import heuristics as _moved

warnings.warn(
    "tabletop_envs.agents.heuristics.irk moved to tabletop_envs.games.irk.heuristics",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
