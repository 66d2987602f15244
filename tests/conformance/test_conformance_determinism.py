"""Determinism across processes: fresh interpreters (other hash seeds) trace exactly the games
of this process. (One seed, one game in one process, and seeds that change the game only by
chance: the ``seeding`` and ``env_seeding`` checks of ``tabletop_envs.testing``.)"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tabletop_envs.envs.registry import make
from tests.conformance.cases import CASES
from tests.golden.tracing import case_id, digest, trace_game

REPO = Path(__file__).resolve().parents[2]
SEEDS = (3, 4)  # games compared across processes (the golden traces use 0-2)
HASH_SEEDS = ("0", "12345")  # PYTHONHASHSEED of the two subprocesses
_PYTHONPATH = os.pathsep.join([str(REPO / "src"), str(REPO)])


@functools.cache
def _subprocess_digests(name: str) -> list[dict[str, list[str]]]:
    """Return the trace digests of every case of ``name`` computed by two fresh interpreters."""
    cmd = [sys.executable, "-m", "tests.golden.tracing", name, "--seeds", *map(str, SEEDS)]
    procs = [
        subprocess.Popen(
            cmd,
            cwd=REPO,
            # this checkout's package (src/) first: an installed copy may be another checkout's
            env={**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": _PYTHONPATH},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for hash_seed in HASH_SEEDS
    ]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{err}"
        results.append(json.loads(out))
    return results


def _digests(name: str, params: dict[str, Any], seeds: tuple[int, ...]) -> list[str]:
    env = make(name, **params)
    return [digest(trace_game(env, s)) for s in seeds]


@pytest.mark.parametrize(("name", "params"), CASES)
def test_same_seed_same_trajectory_across_processes(name: str, params: dict[str, Any]) -> None:
    """Fresh interpreters (different hash seeds) trace exactly the games of this process."""
    here = _digests(name, params, SEEDS)
    for hash_seed, result in zip(HASH_SEEDS, _subprocess_digests(name), strict=True):
        assert result[case_id(name, params)] == here, (
            f"the trace differs in a process with PYTHONHASHSEED={hash_seed}"
        )
