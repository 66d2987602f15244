"""The table-size measurement (``benchmarks/irk_table_size.py``) measures what it claims.

Replaying a big-table game on a ``T`` table gives the same legal placements (shifted) at every
place step exactly when the script says no footprint leaves the ``T`` table.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from tabletop_envs.games.irk.rules import PLACE, IrkState, opening_count

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "irk_table_size.py"


def load_script():
    spec = importlib.util.spec_from_file_location("irk_table_size", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["irk_table_size"] = module  # its config dataclass looks its module up
    spec.loader.exec_module(module)
    return module


def replay(seed: int, n: int, size: int, big: int) -> list[bool]:
    """Play the script's random game on the big table and replay it on a ``size`` table.

    Returns, per place step, whether the legal placements agree (shifted); stops at the first
    disagreement (from there on the games differ).
    """
    k = opening_count(n)
    dr = (size - 3) // 2 - (big - 3) // 2
    dc = (size - k) // 2 - (big - k) // 2
    a = IrkState.new(seed=seed, num_players=n, table_size=big)
    b = IrkState.new(seed=seed, num_players=n, table_size=size)
    rng = np.random.default_rng(seed + 1_000_003)
    agree = []
    while not a.is_terminal:
        legal = np.flatnonzero(a.legal_mask())
        action = int(legal[rng.integers(len(legal))])
        if a.phase == PLACE:
            shifted = set()
            for act in legal:
                r, c, o = a.action_to_placement(int(act))
                if 0 <= r + dr < size and 0 <= c + dc < size:
                    shifted.add(b.placement_to_action(r + dr, c + dc, o))
            on_b = set(np.flatnonzero(b.legal_mask()).tolist())
            same = b.phase == PLACE and b.to_move == a.to_move and shifted == on_b
            same = same and len(shifted) == len(legal)
            agree.append(same)
            if not same:
                return agree
            r, c, o = a.action_to_placement(action)
            b.apply(b.placement_to_action(r + dr, c + dc, o))
        else:
            b.apply(action)
        a.apply(action)
    return agree


@pytest.mark.parametrize("n", [2, 4])
def test_the_measured_extents_predict_the_edge_exactly(n):
    script = load_script()
    k = opening_count(n)
    outcomes = set()
    for seed in range(4):
        extents = script.play(n, seed)
        for size in (11, 15, 19, 25):
            fits = [script.fits(e, size, k) for e in extents]
            agree = replay(seed, n, size, script.BIG)
            outcomes.add(all(fits))
            if all(fits):
                assert all(agree) and len(agree) == len(extents)
            else:
                first = fits.index(False)
                assert agree == [True] * first + [False]
    assert outcomes == {True, False}


def test_small_tables_are_edge_limited_and_the_default_is_not():
    script = load_script()
    games = [script.play(4, seed) for seed in range(20)]
    assert all(any(not script.fits(e, 11, 2) for e in g) for g in games)
    assert sum(any(not script.fits(e, 31, 2) for e in g) for g in games) <= 1
