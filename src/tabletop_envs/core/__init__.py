"""The shared rules core: game contract, errors, geometry, components, seats, chance.

Nothing here imports gymnasium or pettingzoo.
"""

from tabletop_envs.core.errors import (
    IllegalActionError,
    InvalidParameterError,
    InvalidStateError,
)
from tabletop_envs.core.game import TERMINAL, GameSpec, GameState, PhasedGameState

__all__ = [
    "TERMINAL",
    "GameSpec",
    "GameState",
    "IllegalActionError",
    "InvalidParameterError",
    "InvalidStateError",
    "PhasedGameState",
]
