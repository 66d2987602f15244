"""What the client tests share: every env at every player count, and the optional clients.

A heavy client (Tianshou, TorchRL, SuperSuit) is an optional dependency, the ``clients`` extra:
its tests skip with a reason when it is missing, except under ``CI=true``, where the CI
installs the extra (``.ci/run``) and a missing client fails instead.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import Any

import pytest

#: Every registered env at each player count it offers (the other parameters at defaults).
CONFIGS = [
    pytest.param("iris_v0", {}, id="iris_v0-2p"),
    *[
        pytest.param(name, {"num_players": n}, id=f"{name}-{n}p")
        for name in ("isis_osiris_v0", "irk_v0")
        for n in (2, 3, 4)
    ],
]
#: The Gymnasium id of each env's single-agent view.
GYM_IDS = {
    "iris_v0": "tabletop_envs/Iris-v0",
    "isis_osiris_v0": "tabletop_envs/IsisOsiris-v0",
    "irk_v0": "tabletop_envs/Irk-v0",
}
#: The clients of the ``clients`` extra, by import name.
HEAVY_CLIENTS = ("tianshou", "torchrl", "supersuit")


def on_ci() -> bool:
    """Return whether the tests run in the CI (``CI=true``), where every client is installed."""
    return os.environ.get("CI", "").lower() == "true"


def need(module: str) -> ModuleType:
    """Import a client of the ``clients`` extra; skip without it (fail under ``CI=true``)."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        message = f"{module} is not installed (pip install 'tabletop_envs[clients]'): {err}"
        if on_ci():
            pytest.fail(f"the CI installs the clients extra, yet {message}")
        pytest.skip(message)


def label(name: str, params: dict[str, Any]) -> str:
    """Return ``irk_v0(num_players=3)`` for messages."""
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in params.items())})"
