"""Determinism: one seed gives one trajectory, in one process and across processes; different
seeds give different games when the game has chance."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tabletop_envs.core.rng import make_rng, rng_to_json
from tabletop_envs.envs.registry import make
from tests.conformance.cases import CASES, game_class, play_out
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
def test_same_seed_same_trajectory_in_process(name: str, params: dict[str, Any]) -> None:
    """Two envs (and one env reset twice) with the same seed play identical games."""
    first = _digests(name, params, SEEDS)
    assert _digests(name, params, SEEDS) == first
    env = make(name, **params)
    assert [digest(trace_game(env, SEEDS[0])) for _ in range(2)] == [first[0]] * 2


@pytest.mark.parametrize(("name", "params"), CASES)
def test_same_seed_same_trajectory_across_processes(name: str, params: dict[str, Any]) -> None:
    """Fresh interpreters (different hash seeds) trace exactly the games of this process."""
    here = _digests(name, params, SEEDS)
    for hash_seed, result in zip(HASH_SEEDS, _subprocess_digests(name), strict=True):
        assert result[case_id(name, params)] == here, (
            f"the trace differs in a process with PYTHONHASHSEED={hash_seed}"
        )


def _uses_chance(name: str, params: dict[str, Any]) -> bool:
    """Return whether seeded games draw from their RNG at all (set-up or play)."""
    for seed in range(3):
        game = game_class(name)(game_class(name).params_class(**params), seed)
        fresh = rng_to_json(make_rng(seed))
        if rng_to_json(game.rng) != fresh:
            return True
        play_out(game, np.random.default_rng(seed))
        if rng_to_json(game.rng) != fresh:
            return True
    return False


@pytest.mark.parametrize(("name", "params"), CASES)
def test_different_seeds_differ_only_by_chance(name: str, params: dict[str, Any]) -> None:
    """With one action policy, env seeds change the game iff the game has chance."""
    env = make(name, **params)
    traces = {digest(trace_game(env, seed=0, env_seed=s)) for s in range(4)}
    if _uses_chance(name, params):
        assert len(traces) > 1, "different seeds gave identical games, yet the game draws chance"
    else:
        assert len(traces) == 1, "a game without chance depends on the seed"
