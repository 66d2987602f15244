"""Checks shared by the training configs: ``setting(check=...)`` functions.

Each returns None for a valid value, else the problem as text ("must be ..."), which
:mod:`tabletop_envs.core.config` turns into an InvalidParameterError naming the field.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tabletop_envs.envs.registry import registered_envs


def registered_env(name: str) -> str | None:
    """Problem text unless ``name`` is a registered env (looked up when checked: users register)."""
    if name in registered_envs():
        return None
    return f"must be a registered env ({', '.join(registered_envs())})"


def at_least(low: int, why: str = "") -> Callable[[Any], str | None]:
    """Return a check refusing numbers below ``low`` ("must be at least LOW[ why]")."""

    def check(value: Any) -> str | None:
        return None if value >= low else f"must be at least {low}{why}"

    return check


def positive(value: float) -> str | None:
    """Problem text unless ``value`` is above 0."""
    return None if value > 0 else "must be positive"


def not_blank(value: str) -> str | None:
    """Problem text for an empty name."""
    return None if value.strip() else "must not be empty"
