"""The single source of chance of a game state: a seeded numpy Generator."""

from __future__ import annotations

from typing import Any

import numpy as np

from tabletop_envs.core.errors import InvalidStateError
from tabletop_envs.core.state_check import check_int, check_keys


def make_rng(seed: int | np.random.SeedSequence | None) -> np.random.Generator:
    """Return a PCG64 Generator from ``seed`` (``None`` draws fresh entropy)."""
    return np.random.Generator(np.random.PCG64(seed))


def rng_to_json(rng: np.random.Generator) -> dict[str, Any]:
    """Return the Generator's complete state as JSON-ready data."""
    return dict(rng.bit_generator.state)


def rng_from_json(data: Any) -> np.random.Generator:
    """Rebuild a Generator from :func:`rng_to_json` output, at exactly that point of its stream.

    The data is untrusted (a saved game): anything but a PCG64 state raises InvalidStateError.
    """
    data = check_keys(data, ("bit_generator", "has_uint32", "state", "uinteger"), "rng")
    if data["bit_generator"] != "PCG64":
        raise InvalidStateError(
            "rng.bit_generator", f"only 'PCG64' is used, got {data['bit_generator']!r}"
        )
    inner = check_keys(data["state"], ("inc", "state"), "rng.state")
    check_int(inner["state"], 0, 2**128 - 1, "rng.state.state")
    check_int(inner["inc"], 0, 2**128 - 1, "rng.state.inc")
    if inner["inc"] % 2 == 0:
        raise InvalidStateError("rng.state.inc", "a PCG64 increment is odd")
    check_int(data["has_uint32"], 0, 1, "rng.has_uint32")
    check_int(data["uinteger"], 0, 2**32 - 1, "rng.uinteger")
    bit_generator = np.random.PCG64()
    bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": inner["state"], "inc": inner["inc"]},
        "has_uint32": data["has_uint32"],
        "uinteger": data["uinteger"],
    }
    return np.random.Generator(bit_generator)


def copy_rng(rng: np.random.Generator) -> np.random.Generator:
    """Return an independent Generator at the same point of the same stream."""
    bit_generator = type(rng.bit_generator)()
    bit_generator.state = rng.bit_generator.state
    return np.random.Generator(bit_generator)
