"""tabletop_envs: tabletop games as PettingZoo AEC environments on one shared rules core.

Create envs with :func:`make` or the versioned modules (``tabletop_envs.iris_v0.env()``), their
Parallel views with :func:`make_parallel` (``iris_v0.parallel_env()``), and a single-agent
Gymnasium view with ``gymnasium.make("tabletop_envs/Iris-v0")`` (ids registered on import).
A game of your own is one :class:`EnvSpec` given to :func:`register`.
"""

from tabletop_envs.core.errors import (
    IllegalActionError,
    InvalidParameterError,
    InvalidStateError,
    ResetNeededError,
)
from tabletop_envs.core.registration import EnvSpec
from tabletop_envs.envs.registry import (
    make,
    make_parallel,
    register,
    registered_envs,
    unregister,
)

__version__ = "0.1.0"

__all__ = [
    "EnvSpec",
    "IllegalActionError",
    "InvalidParameterError",
    "InvalidStateError",
    "ResetNeededError",
    "__version__",
    "make",
    "make_parallel",
    "register",
    "registered_envs",
    "unregister",
]
