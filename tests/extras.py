"""Optional extras a test needs: skip without them, except under ``CI=true``, where ``.ci/run``
installs every extra and a missing one is a failure. A checkout tested with the test extra
alone (``pip install -e ".[test]"``) skips what needs more."""

from __future__ import annotations

import importlib.util
import os

import pytest

#: The train extra's modules the training code imports.
TRAIN = ("torch", "sb3_contrib")


def on_ci() -> bool:
    """Return whether the tests run in the CI (``CI=true``), where every extra is installed."""
    return os.environ.get("CI", "").lower() == "true"


def need_extra(extra: str, *modules: str) -> None:
    """Skip the test unless ``modules`` (of ``extra``) are installed; fail under ``CI=true``."""
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        message = f"{missing[0]} is not installed (pip install 'tabletop_envs[{extra}]')"
        if on_ci():
            pytest.fail(f"the CI installs every extra, yet {message}")
        pytest.skip(message)


def train_extra_missing() -> bool:
    """Return whether the train extra is missing (never under ``CI=true``, which has it)."""
    return not on_ci() and any(importlib.util.find_spec(name) is None for name in TRAIN)
