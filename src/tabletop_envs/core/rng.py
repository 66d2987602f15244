"""The single source of chance of a game state: a seeded numpy Generator."""

from __future__ import annotations

from typing import Any

import numpy as np


def make_rng(seed: int | np.random.SeedSequence | None) -> np.random.Generator:
    """Return a PCG64 Generator from ``seed`` (``None`` draws fresh entropy)."""
    return np.random.Generator(np.random.PCG64(seed))


def rng_to_json(rng: np.random.Generator) -> dict[str, Any]:
    """Return the Generator's complete state as JSON-ready data."""
    return dict(rng.bit_generator.state)


def rng_from_json(data: dict[str, Any]) -> np.random.Generator:
    """Rebuild a Generator from :func:`rng_to_json` output, at exactly that point of its stream."""
    name = data.get("bit_generator")
    if name != "PCG64":
        raise ValueError(f"unsupported bit generator {name!r}; only 'PCG64' is used")
    bit_generator = np.random.PCG64()
    bit_generator.state = data  # type: ignore[assignment]  # numpy validates the mapping
    return np.random.Generator(bit_generator)


def copy_rng(rng: np.random.Generator) -> np.random.Generator:
    """Return an independent Generator at the same point of the same stream."""
    bit_generator = type(rng.bit_generator)()
    bit_generator.state = rng.bit_generator.state
    return np.random.Generator(bit_generator)
