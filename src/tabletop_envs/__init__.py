"""tabletop_envs: tabletop games as PettingZoo AEC environments on one shared rules core.

Create envs with :func:`make` or the versioned modules (``tabletop_envs.iris_v0.env()``).
"""

from tabletop_envs.core.errors import (
    IllegalActionError,
    InvalidParameterError,
    InvalidStateError,
)
from tabletop_envs.envs.registry import make, registered_envs

__version__ = "0.1.0"

__all__ = [
    "IllegalActionError",
    "InvalidParameterError",
    "InvalidStateError",
    "__version__",
    "make",
    "registered_envs",
]
