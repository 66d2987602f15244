"""Builds the ``env()`` / ``raw_env()`` / ``parallel_env()`` trio of a versioned entry module."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tabletop_envs.envs.registry import make, make_parallel


def entry_points(
    name: str,
) -> tuple[Callable[..., Any], Callable[..., Any], Callable[..., Any]]:
    """Return ``(env, raw_env, parallel_env)`` for the registered env ``name``."""

    def env(**kwargs: Any) -> Any:
        """Create the env; an illegal action ends the game with -1 for the mover."""
        return make(name, **kwargs)

    def raw_env(**kwargs: Any) -> Any:
        """Create the env; an illegal action raises IllegalActionError (state unchanged)."""
        kwargs.setdefault("illegal_action", "raise")
        return make(name, **kwargs)

    def parallel_env(**kwargs: Any) -> Any:
        """Create the Parallel view; an illegal action ends the game with -1 for its player."""
        return make_parallel(name, **kwargs)

    return env, raw_env, parallel_env
