"""The optional action values (``action_values=True``) and ``scoring.TableAfter``."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_envs.games.irk.deck import COLORS, EMPTY, parse_tile
from tabletop_envs.games.irk.observation import observation_layout
from tabletop_envs.games.irk.rules import PLACE, IrkState
from tabletop_envs.games.irk.scoring import TableAfter, cell_table_values, table_values
from tests.irk.helpers import random_states, square_grid


def occupied(game: IrkState) -> dict[int, int]:
    visible = game.visible[:-1]
    return {int(c): int(visible[c]) for c in np.flatnonzero(visible != EMPTY)}


def test_occupied_cells_are_the_visible_squares():
    for game in random_states(2, num_players=3, table_size=11)[::5]:
        assert game.occupied_cells() == occupied(game)
        assert all(game.height[cell] > 0 for cell in game.occupied_cells())


def values_section(game: IrkState, seat: int) -> np.ndarray:
    """Return the section as one row per action id, one column per color."""
    return game.layout.split(game.observation(seat))["action_values"].reshape(-1, len(COLORS))


def values_after(game: IrkState, action: int) -> list[int]:
    """Return the table values after ``game`` plays the place id ``action`` (on a copy)."""
    after = game.clone()
    after.apply(action)
    return table_values(after.visible_grid())


@pytest.mark.parametrize(("seed", "players"), [(1, 2), (2, 3), (3, 4)])
def test_table_after_equals_a_flood_fill_of_the_table_after(seed, players):
    # every legal placement of every tile in every hand (not only the one being placed), in
    # every position of a random game: covers joining, re-valuing, covering and splitting
    t = 13
    checked = 0
    for game in random_states(seed, num_players=players, table_size=t)[::2]:
        cells = occupied(game)
        after = TableAfter(cells, (t, t))
        for tile in sorted({x for hand in game.hands for x in hand}):
            codes = game.tiles[tile]
            for placement in game.placements_of(tile).tolist():
                footprint = game.tables.cells[placement].tolist()
                laid = dict(cells)
                laid.update(zip(footprint, codes, strict=True))
                assert after.values(codes, footprint) == cell_table_values(laid, (t, t))
                checked += 1
    assert checked > 1000


def after_laying(table: str, size: int, tile: str, footprint: list[int]) -> dict[str, int]:
    """Return ``TableAfter`` of ``table`` for ``tile`` laid on ``footprint``, by color name."""
    grid = square_grid(table, size)
    cells = {i: int(v) for i, v in enumerate(grid.ravel()) if v != EMPTY}
    values = TableAfter(cells, (size, size)).values(parse_tile(tile), footprint)
    laid = dict(cells)
    laid.update(zip(footprint, parse_tile(tile), strict=True))
    assert values == cell_table_values(laid, (size, size))
    return dict(zip(COLORS, values, strict=True))


def test_table_after_of_hand_built_tables():
    # R3 and its gray (3) and R2 (2) lie apart; R1 . R1 laid right along row 1 joins both
    # through its ends, the gray middle keeping the run whole: 3 + 2 + 1 + 1 = 7
    assert after_laying("R3 . _ R2", 4, "R1 . R1", [5, 6, 7])["red"] == 7
    # R1 G1 R1 under "R3 . .": two red runs, both touching the one red group: 3 + 1 + 1,
    # not two groups of 4
    assert after_laying("R3 . .", 3, "R1 G1 R1", [3, 4, 5])["red"] == 5
    # G1 . . laid down from the gray between two R1 covers it: the red group splits (1 each)
    values = after_laying("R1 . R1", 3, "G1 . .", [1, 4, 7])
    assert values["red"] == 1 and values["green"] == 1
    # a numbered flower covered by a lower one re-values its group: R3 R2 -> R2 R2
    assert after_laying("R3 R2", 3, "R2 . .", [0, 3, 6])["red"] == 4


def test_action_values_of_placements():
    t = 11
    seen = 0
    for game in random_states(7, num_players=3, table_size=t, action_values=True):
        if game.phase != PLACE:
            continue
        section = values_section(game, 0)
        for seat in range(1, 3):  # public: the same for every seat
            assert np.array_equal(values_section(game, seat), section)
        legal = np.flatnonzero(game.legal_mask())
        assert set(np.flatnonzero(section.any(axis=1))) <= set(legal.tolist())
        for action in legal.tolist():
            assert section[action].tolist() == values_after(game, action)
        seen += 1
    assert seen >= 6


def test_action_values_of_the_tiles_of_my_hand_in_a_table_round():
    t = 11
    seen = {"table": 0, "bet": 0}
    for game in random_states(8, num_players=2, table_size=t, action_values=True):
        if game.phase == PLACE or game.is_terminal:
            continue
        kind = game.round_kind
        for seat in range(2):
            section = values_section(game, seat)
            assert not section[game.deck_size :].any()  # no tile is being placed
            if kind == "bet":
                assert not section.any()
                continue
            for tile in range(game.deck_size):
                want = [0] * len(COLORS)
                if tile in game.hands[seat]:  # only my own hand: the others' are hidden
                    for placement in game.placements_of(tile).tolist():
                        grid = game.visible_grid().ravel()
                        grid[game.tables.cells[placement]] = game.tiles[tile]
                        laid = table_values(grid.reshape(t, t))
                        want = np.maximum(want, laid).tolist()
                assert section[tile].tolist() == want
        seen[kind] += 1
    assert seen["table"] >= 4 and seen["bet"] >= 3


def test_action_values_only_add_a_section():
    plain = random_states(4, num_players=2, table_size=11)
    valued = random_states(4, num_players=2, table_size=11, action_values=True)
    assert len(plain) == len(valued)  # the same game: the section changes no rule
    for a, b in zip(plain, valued, strict=True):
        x = a.layout.split(a.observation(1))
        y = b.layout.split(b.observation(1))
        assert list(y) == [*x, "action_values"]
        if a.phase == PLACE:
            assert y["action_values"].any()
        assert all(np.array_equal(x[k], y[k]) for k in x)
        assert np.array_equal(a.legal_mask(), b.legal_mask())


def test_action_values_layout_spec_and_bounds():
    t, n, d = 9, 2, 30
    layout = observation_layout(t, n, d, action_values=True)
    plain = observation_layout(t, n, d)
    assert layout.size == plain.size + (d + t * t * 4) * len(COLORS)
    assert layout.slice("action_values") == slice(plain.size, layout.size)
    assert layout.names[plain.size : plain.size + 6] == (
        *(f"action_values[#0].{c}" for c in COLORS),
        "action_values[#1].green",
    )
    assert layout.names[plain.size + d * 5] == "action_values[0,0,0].green"
    game = IrkState.new(seed=0, num_players=n, table_size=t, action_values=True)
    assert game.spec.observation_shape == (layout.size,)
