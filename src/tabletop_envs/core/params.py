"""Validation helpers for game parameters: errors name the parameter and its valid values."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from tabletop_envs.core.config import quote
from tabletop_envs.core.errors import InvalidParameterError


def make_params(params_class: type, owner: str, values: Mapping[str, Any], also: str = "") -> Any:
    """Return ``params_class(**values)``, a game's parameters; the one wording of an unknown one.

    A name ``params_class`` has no field for raises InvalidParameterError: ``"iris_v0 has no
    parameter 'bord_size'; its parameters are board_size, auto_forced"`` (``owner`` names the
    env or game, ``also`` adds what else the caller takes). Bad values raise the class's own
    error.
    """
    names = [f.name for f in dataclasses.fields(params_class)]
    unknown = [str(key) for key in values if key not in names]
    if unknown:
        which = "parameter" if len(unknown) == 1 else "parameters"
        raise InvalidParameterError(
            f"{owner} has no {which} {', '.join(quote(k) for k in unknown)}; its parameters are "
            f"{', '.join(names) or 'none'}{also}"
        )
    return params_class(**values)


def check_int(name: str, value: Any) -> int:
    """Return ``value`` as an int if it is an integer (numpy ints too; not bool), else raise."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidParameterError(f"{name} must be an integer, got {quote(value)}")
    return int(value)


def check_int_range(name: str, value: Any, low: int, high: int) -> int:
    """Return ``value`` if it is an int in ``[low, high]``, else raise InvalidParameterError."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidParameterError(
            f"{name} must be an integer from {low} to {high}, got {quote(value)}"
        )
    value = int(value)
    if not low <= value <= high:
        raise InvalidParameterError(f"{name} must be from {low} to {high}, got {value}")
    return value


def check_choice(name: str, value: Any, choices: Iterable[Any]) -> Any:
    """Return ``value`` if it is one of ``choices``, else raise InvalidParameterError."""
    choices = tuple(choices)
    if value not in choices or isinstance(value, bool) != any(isinstance(c, bool) for c in choices):
        valid = ", ".join(repr(c) for c in choices)
        raise InvalidParameterError(f"{name} must be one of {valid}; got {quote(value)}")
    return value


def check_bool(name: str, value: Any) -> bool:
    """Return ``value`` if it is a bool, else raise InvalidParameterError."""
    if not isinstance(value, bool):
        raise InvalidParameterError(f"{name} must be True or False, got {quote(value)}")
    return value
