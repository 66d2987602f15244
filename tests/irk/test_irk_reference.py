"""The core against the independent reference (``tests/irk/reference.py``) on random games."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_envs.games.irk.rules import PLACE, IrkState
from tests.irk.helpers import random_action, tile_squares, visible_dict
from tests.irk.reference import ref_legal, ref_score, ref_table_value


def check_game(seed: int, **params) -> int:
    """Play one random game comparing every place mask and the final score; return checks."""
    game = IrkState.new(seed=seed, **params)
    rng = np.random.default_rng(seed)
    t = game.params.table_size
    d = game.deck_size
    checks = 0
    while not game.is_terminal:
        if game.phase == PLACE:
            table = visible_dict(game)
            squares = tile_squares(game, game.chosen[game.to_move])
            expected = [
                d + (r * t + c) * 4 + o
                for r in range(t)
                for c in range(t)
                for o in range(4)
                if ref_legal(table, squares, r, c, o, t)
            ]
            assert np.flatnonzero(game.legal_mask()).tolist() == expected
            checks += 1
        game.apply(random_action(game, rng))
    table = visible_dict(game)
    piles = [[tile_squares(game, tile) for tile in pile] for pile in game.piles]
    points, winners = ref_score(table, piles)
    result = game.result_info()
    assert result["totals"] == points
    assert result["winners"] == winners
    assert result["table_values"] == [ref_table_value(table, c) for c in "GRYPB"]
    return checks


@pytest.mark.parametrize("n", [2, 3, 4])
def test_core_matches_reference_on_random_games(n):
    checks = sum(check_game(seed, num_players=n, table_size=11) for seed in range(6))
    checks += check_game(50 + n, num_players=n)  # default table size
    assert checks > 20


def test_core_matches_reference_on_a_crowded_table():
    """A 6x6 table fills up: covers, mismatches and discards are frequent."""
    for seed in range(6):
        check_game(seed, num_players=4, table_size=6)


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4])
def test_core_matches_reference_on_many_games(n):
    for seed in range(200):
        check_game(1000 + seed, num_players=n, table_size=9 + seed % 8)
