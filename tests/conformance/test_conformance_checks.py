"""Every check of :mod:`tabletop_envs.testing` on every case: ``check_env`` passes on every
registered env and every parameter set of its ``test_params``.

One test per (case, check), so a failure names both. The depths below are those the suite ran
before its checks moved into the package (the same games, seeds and counts); a check not listed
runs at ``check_env``'s default depth.
"""

from __future__ import annotations

from typing import Any

import pytest

from tabletop_envs.testing import CHECKS, check_env
from tabletop_envs.testing.env_checks import MID_GAME_STEPS
from tests.conformance.cases import CASES

#: ``games`` and first ``seed`` per check (the rest: ``check_env``'s defaults).
DEPTH: dict[str, dict[str, int]] = {
    "playouts": {"games": 12},  # every legal action tried at every step of 2 of them
    "env_playouts": {"games": 12},
    "hidden": {"games": 3, "seed": 100},
    "clone": {"games": 1, "seed": 3},
    "json": {"games": 1, "seed": 4},
    "seats": {"seed": 3},
    "copies": {"games": 1, "seed": 11},
    "env_copies": {"games": len(MID_GAME_STEPS)},
}


def test_depths_name_checks() -> None:
    assert set(DEPTH) <= {check.name for check in CHECKS}


@pytest.mark.parametrize("check", [check.name for check in CHECKS])
@pytest.mark.parametrize(("name", "params"), CASES)
def test_check_env(name: str, params: dict[str, Any], check: str) -> None:
    """``check_env`` passes the check on the case."""
    assert check_env(name, checks=[check], **DEPTH.get(check, {}), **params) == [check]
