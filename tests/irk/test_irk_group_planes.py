"""The optional group planes of the table (``group_planes=True``): values, bounds, copies.

Also the checks shared by both opt-in observation extras (``group_planes``, ``action_values``).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.games.irk.deck import COLORS, EMPTY, GRAY, SQUARE_COLOR, SQUARE_VALUE
from tabletop_envs.games.irk.observation import (
    GROUP_CHANNELS,
    TABLE_CHANNELS,
    observation_layout,
    table_channels,
)
from tabletop_envs.games.irk.rules import IrkState
from tabletop_envs.games.irk.scoring import cell_group_values, table_values
from tests.irk.helpers import random_states, square_grid


def reference_group_values(grid: np.ndarray, color: int) -> np.ndarray:
    """Per cell, the value of its ``color`` group (0 outside): a plain flood fill."""
    rows, cols = grid.shape

    def joins(r: int, c: int) -> bool:
        code = int(grid[r, c])
        return code == GRAY or (code != EMPTY and SQUARE_COLOR[code] == color)

    out = np.zeros(grid.shape, dtype=np.int64)
    seen = np.zeros(grid.shape, dtype=bool)
    for r0 in range(rows):
        for c0 in range(cols):
            if seen[r0, c0] or not joins(r0, c0):
                continue
            group, todo = [], [(r0, c0)]
            seen[r0, c0] = True
            while todo:
                r, c = todo.pop()
                group.append((r, c))
                for rr, cc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                    if 0 <= rr < rows and 0 <= cc < cols and not seen[rr, cc] and joins(rr, cc):
                        seen[rr, cc] = True
                        todo.append((rr, cc))
            total = sum(SQUARE_VALUE[int(grid[r, c])] for r, c in group)
            for r, c in group:
                out[r, c] = total
    return out


def group_planes(game: IrkState, seat: int = 0) -> np.ndarray:
    return game.layout.split(game.observation(seat))["table"][:, :, len(TABLE_CHANNELS) :]


def test_cell_group_values_of_a_hand_built_table():
    # green: G3, the gray beside it and G1 below form one group (4); G2 alone (2). The gray
    # square joins red's R2 (2) and yellow's Y* (1); purple and blue have only the gray (0).
    grid = square_grid("G3 .  R2\nG1 Y* G2", size=3)
    cells = {i: int(v) for i, v in enumerate(grid.ravel()) if v != EMPTY}
    got = cell_group_values(cells, grid.shape)
    assert got[COLORS.index("green")] == {0: 4, 1: 4, 3: 4, 5: 2}
    assert got[COLORS.index("red")] == {1: 2, 2: 2}
    assert got[COLORS.index("yellow")] == {1: 1, 4: 1}
    assert got[COLORS.index("purple")] == {1: 0}
    assert got[COLORS.index("blue")] == {1: 0}


@pytest.mark.parametrize(("seed", "players"), [(1, 2), (2, 3), (3, 4)])
def test_group_planes_match_a_flood_fill_and_the_table_values(seed, players):
    t = 13
    for game in random_states(seed, num_players=players, table_size=t, group_planes=True):
        grid = game.visible[:-1].reshape(t, t)
        planes = group_planes(game, seat=players - 1)
        for color in range(len(COLORS)):
            assert np.array_equal(planes[:, :, color], reference_group_values(grid, color))
        assert planes.max(axis=(0, 1)).tolist() == table_values(grid)


def test_group_planes_only_add_channels():
    plain = random_states(4, num_players=2, table_size=11)
    grouped = random_states(4, num_players=2, table_size=11, group_planes=True)
    assert len(plain) == len(grouped)  # the same game: the planes change no rule
    for a, b in zip(plain, grouped, strict=True):
        x = a.layout.split(a.observation(1))
        y = b.layout.split(b.observation(1))
        assert np.array_equal(y["table"][:, :, : len(TABLE_CHANNELS)], x["table"])
        assert all(np.array_equal(x[k], y[k]) for k in x if k != "table")
        assert np.array_equal(a.legal_mask(), b.legal_mask())


@pytest.mark.parametrize("extra", ["group_planes", "action_values"])
def test_observation_extras_survive_clone_json_and_resampling(extra):
    states = random_states(5, num_players=3, table_size=13, **{extra: True})
    rng = np.random.default_rng(0)
    for game in states[::2]:
        want = game.observation(2)
        assert np.array_equal(game.clone().observation(2), want)
        assert np.array_equal(IrkState.from_json(game.to_json()).observation(2), want)
        assert np.array_equal(game.resample_hidden(2, rng).observation(2), want)


def test_group_planes_layout_spec_and_bounds():
    t, n, d = 11, 4, 30
    layout = observation_layout(t, n, d, group_planes=True)
    assert layout.channels == table_channels(True) == TABLE_CHANNELS + GROUP_CHANNELS
    assert layout.size == observation_layout(t, n, d).size + t * t * len(GROUP_CHANNELS)
    assert layout.names[11:16] == tuple(f"table[0,0].group_{c}" for c in COLORS)
    game = IrkState.new(seed=0, num_players=n, table_size=t, group_planes=True)
    assert game.spec.observation_shape == (layout.size,)


@pytest.mark.parametrize("extra", ["group_planes", "action_values"])
def test_observation_extras_are_bools_kept_in_json_and_bounded(extra):
    """The opt-in observation extras: a bool, saved with the state, within the space."""
    with pytest.raises(InvalidParameterError, match=extra):
        IrkState.new(seed=0, **{extra: "yes"})
    data = json.loads(IrkState.new(seed=0, **{extra: True}).to_json())
    assert data["params"][extra] is True
    game = IrkState.new(seed=0, num_players=4, table_size=11, **{extra: True})
    assert game.spec.observation_high == 18  # all of one color's flowers: 6 tiles' worth
    for state in random_states(6, num_players=4, table_size=11, **{extra: True}):
        obs = state.observation(0)
        assert obs.min() >= 0 and obs.max() <= state.spec.observation_high
