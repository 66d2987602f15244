"""Checks for loading saved states: untrusted data in, plain values or InvalidStateError out.

Every game's ``_load_state_dict`` reads its fields through these helpers, so a saved state of
the wrong shape or type is refused with one error type naming the field, before anything is
built from it. The invariants that tie fields together are each game's own checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop_envs.core.errors import InvalidStateError


def is_int(value: object) -> bool:
    """Return whether ``value`` is a plain JSON integer (not a bool, a float or a string)."""
    return type(value) is int


def check_keys(
    data: object, keys: tuple[str, ...], field: str = "state", optional: tuple[str, ...] = ()
) -> Mapping[str, Any]:
    """Return ``data`` if it maps exactly ``keys`` (plus any of ``optional``), else raise."""
    if not isinstance(data, Mapping):
        raise InvalidStateError(field, f"must be an object, got {type(data).__name__}")
    missing = [k for k in keys if k not in data]
    if missing:
        raise InvalidStateError(field, f"missing keys {missing}; expected {list(keys)}")
    extra = sorted(str(k) for k in data if k not in keys and k not in optional)
    if extra:
        raise InvalidStateError(field, f"unknown keys {extra}; expected {list(keys)}")
    return data


def read_int(data: Mapping[str, Any], key: str, low: int, high: int, field: str = "state") -> int:
    """Return ``data[key]`` if it is an integer in ``[low, high]``, else raise."""
    return check_int(data[key], low, high, f"{field}.{key}")


def check_int(value: object, low: int, high: int, field: str) -> int:
    """Return ``value`` if it is an integer in ``[low, high]``, else raise InvalidStateError."""
    if not is_int(value):
        raise InvalidStateError(field, f"must be an integer from {low} to {high}, got {value!r}")
    if not low <= value <= high:  # type: ignore[operator]
        raise InvalidStateError(field, f"must be from {low} to {high}, got {value}")
    return value  # type: ignore[return-value]


def read_bool(data: Mapping[str, Any], key: str, field: str = "state") -> bool:
    """Return ``data[key]`` if it is true or false, else raise InvalidStateError."""
    value = data[key]
    if not isinstance(value, bool):
        raise InvalidStateError(f"{field}.{key}", f"must be true or false, got {value!r}")
    return value


def check_list(value: object, field: str, length: int | None = None) -> list[Any]:
    """Return ``value`` if it is a list (of ``length`` items when given), else raise."""
    if not isinstance(value, list):
        raise InvalidStateError(field, f"must be a list, got {type(value).__name__}")
    if length is not None and len(value) != length:
        raise InvalidStateError(field, f"must hold {length} items, got {len(value)}")
    return value


def read_int_list(
    data: Mapping[str, Any],
    key: str,
    low: int,
    high: int,
    length: int | None = None,
    field: str = "state",
) -> list[int]:
    """Return ``data[key]`` if it is a list of integers in ``[low, high]``, else raise."""
    return check_int_list(data[key], low, high, f"{field}.{key}", length)


def check_int_list(
    value: object, low: int, high: int, field: str, length: int | None = None
) -> list[int]:
    """Return ``value`` if it is a list of integers in ``[low, high]``, else raise."""
    items = check_list(value, field, length)
    return [check_int(v, low, high, f"{field}[{i}]") for i, v in enumerate(items)]
