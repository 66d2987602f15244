"""The single source of chance of a game state: a seeded numpy Generator (PCG64).

A state keeps its stream as a Generator only once something draws from it; until then it keeps
the stream's *position*, a seed or an immutable :data:`RngState`, which copies for free. These
helpers convert between the three forms and the JSON form.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_envs.core.errors import InvalidParameterError, InvalidStateError
from tabletop_envs.core.state_check import check_int, check_keys

#: A PCG64 stream position as an immutable value: ``(state, inc, has_uint32, uinteger)``.
RngState = tuple[int, int, int, int]

#: Any fixed seed: a Generator built at a given position is seeded from it first (a fixed
#: SeedSequence is much cheaper than fresh OS entropy), then moved to the position.
_PLACEHOLDER_SEED = np.random.SeedSequence(0)


def make_rng(seed: int | np.random.SeedSequence | None) -> np.random.Generator:
    """Return a PCG64 Generator from ``seed`` (``None`` draws fresh entropy)."""
    return np.random.Generator(np.random.PCG64(seed))


def check_pcg64(rng: object) -> np.random.Generator:
    """Return ``rng`` if it is a numpy Generator over PCG64, else raise InvalidParameterError."""
    if not isinstance(rng, np.random.Generator) or type(rng.bit_generator) is not np.random.PCG64:
        raise InvalidParameterError(
            "a game state's rng must be a numpy Generator over PCG64 (e.g. "
            f"tabletop_envs.core.rng.make_rng(seed)), got {rng!r}"
        )
    return rng


def rng_state(rng: np.random.Generator) -> RngState:
    """Return the position of a PCG64 Generator (drawing on from it leaves the value as it is)."""
    s = rng.bit_generator.state
    inner = s["state"]
    return (inner["state"], inner["inc"], s["has_uint32"], s["uinteger"])


def seed_state(seed: int) -> RngState:
    """Return the start position of the stream ``make_rng(seed)``."""
    return rng_state(make_rng(seed))


def rng_at(position: RngState) -> np.random.Generator:
    """Return a new PCG64 Generator at ``position`` (an :func:`rng_state` value)."""
    state, inc, has_uint32, uinteger = position
    bit_generator = np.random.PCG64(_PLACEHOLDER_SEED)
    bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": state, "inc": inc},
        "has_uint32": has_uint32,
        "uinteger": uinteger,
    }
    return np.random.Generator(bit_generator)


def rng_state_to_json(position: RngState) -> dict[str, Any]:
    """Return the JSON form of a position (the layout of ``bit_generator.state``)."""
    state, inc, has_uint32, uinteger = position
    return {
        "bit_generator": "PCG64",
        "state": {"state": state, "inc": inc},
        "has_uint32": has_uint32,
        "uinteger": uinteger,
    }


def rng_state_from_json(data: Any) -> RngState:
    """Return the position written by :func:`rng_to_json` / :func:`rng_state_to_json`.

    The data is untrusted (a saved game): anything but a PCG64 state raises InvalidStateError.
    """
    data = check_keys(data, ("bit_generator", "has_uint32", "state", "uinteger"), "rng")
    if data["bit_generator"] != "PCG64":
        raise InvalidStateError(
            "rng.bit_generator", f"only 'PCG64' is used, got {data['bit_generator']!r}"
        )
    inner = check_keys(data["state"], ("inc", "state"), "rng.state")
    state = check_int(inner["state"], 0, 2**128 - 1, "rng.state.state")
    inc = check_int(inner["inc"], 0, 2**128 - 1, "rng.state.inc")
    if inc % 2 == 0:
        raise InvalidStateError("rng.state.inc", "a PCG64 increment is odd")
    has_uint32 = check_int(data["has_uint32"], 0, 1, "rng.has_uint32")
    uinteger = check_int(data["uinteger"], 0, 2**32 - 1, "rng.uinteger")
    return (state, inc, has_uint32, uinteger)


def rng_to_json(rng: np.random.Generator) -> dict[str, Any]:
    """Return the Generator's complete state as JSON-ready data."""
    return dict(rng.bit_generator.state)


def rng_from_json(data: Any) -> np.random.Generator:
    """Rebuild a Generator from :func:`rng_to_json` output, at exactly that point of its stream.

    The data is untrusted (a saved game): anything but a PCG64 state raises InvalidStateError.
    """
    return rng_at(rng_state_from_json(data))


def copy_rng(rng: np.random.Generator) -> np.random.Generator:
    """Return an independent Generator at the same point of the same stream."""
    bit_generator = type(rng.bit_generator)(_PLACEHOLDER_SEED)
    bit_generator.state = rng.bit_generator.state
    return np.random.Generator(bit_generator)
