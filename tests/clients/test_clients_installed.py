"""The CI runs every client: under ``CI=true`` the ``clients`` extra must be installed, so that
the client tests run there rather than skip."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from tests.clients.configs import HEAVY_CLIENTS, on_ci

ROOT = Path(__file__).resolve().parents[2]


def test_the_clients_extra_lists_every_heavy_client() -> None:
    """``pip install 'tabletop_envs[clients]'`` brings every client these tests use."""
    text = (ROOT / "pyproject.toml").read_text()  # no tomllib before Python 3.11
    line = re.search(r"^clients = \[(.*)\]$", text, flags=re.MULTILINE)
    assert line, "pyproject.toml has no clients extra"
    requirements = re.findall(r'"([^"]+)"', line.group(1))
    names = {re.match(r"[A-Za-z0-9_.-]+", req).group().lower() for req in requirements}
    assert set(HEAVY_CLIENTS) <= names, requirements


def test_the_ci_installs_the_clients_extra() -> None:
    """``.ci/run`` installs the extra (the CI's only way to get the clients)."""
    script = (ROOT / ".ci" / "run").read_text()
    installed = re.findall(r'^pip install -e "\.\[([^\]]*)\]"', script, flags=re.MULTILINE)
    assert any("clients" in extras.split(",") for extras in installed), installed


@pytest.mark.skipif(not on_ci(), reason="only under CI=true: locally a missing client skips")
@pytest.mark.parametrize("module", HEAVY_CLIENTS)
def test_every_client_is_present_under_ci(module: str) -> None:
    assert importlib.util.find_spec(module) is not None, (
        f"{module} is missing under CI=true: .ci/run must install the clients extra"
    )
