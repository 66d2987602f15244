"""The Irk greedy heuristic scores actions with the game's own scoring, exactly.

Its margin (own points minus the opponents' mean, as if the game ended now) must equal the one
computed by :func:`score_game` on the position each action leads to: every legal placement and
every bet of random games (2, 3, 4 players), covers of gray squares and odd table values included.
"""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_envs.games.irk.heuristics import _Evaluator
from tabletop_envs.games.irk.placement import footprint
from tabletop_envs.games.irk.rules import CHOOSE, PLACE, ROUND_KINDS, IrkState
from tabletop_envs.games.irk.scoring import score_game
from tests.irk.helpers import random_action


def laid(game: IrkState, tile: int, placement: int) -> np.ndarray:
    """Return the visible grid after laying ``tile`` at ``placement`` (no legality check)."""
    grid = game.visible_grid()
    cell, orientation = divmod(placement, 4)
    top = divmod(cell, game.params.table_size)
    for square, (r, c) in zip(game.tiles[tile], footprint(*top, orientation), strict=True):
        grid[r, c] = square
    return grid


def with_bet(game: IrkState, seat: int, bets: list[int]) -> list[list]:
    """Return every seat's pile as tile codes, ``bets`` added to ``seat``'s."""
    piles = [[game.tiles[t] for t in pile] for pile in game.piles]
    piles[seat] += [game.tiles[t] for t in bets]
    return piles


def margin(grid: np.ndarray, piles: list[list], seat: int) -> float:
    """Return ``seat``'s points minus the opponents' mean points by ``score_game``."""
    totals = score_game(grid, piles)["totals"]
    return totals[seat] - (sum(totals) - totals[seat]) / (len(totals) - 1)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_heuristic_margin_equals_the_games_scoring(n):
    checked = {"place": 0, "bet": 0}
    for seed in range(3):
        game = IrkState.new(seed=seed, num_players=n, table_size=13)
        rng = np.random.default_rng(seed)
        while not game.is_terminal:
            seat = game.current_player
            ev = _Evaluator(game, seat)
            if game.phase == PLACE:
                tile = game.chosen[seat]
                piles = with_bet(game, seat, [])
                for p in game.placements_of(tile).tolist():
                    expected = margin(laid(game, tile, p), piles, seat)
                    assert ev.place(tile, p) == pytest.approx(expected)
                    checked["place"] += 1
            elif game.phase == CHOOSE and ROUND_KINDS[game.round] == "bet":
                for tile in game.hands[seat]:
                    bet = with_bet(game, seat, [tile])
                    assert ev.bet(tile) == pytest.approx(margin(game.visible_grid(), bet, seat))
                    checked["bet"] += 1
            game.apply(random_action(game, rng))
    assert checked["place"] > 100 and checked["bet"] > 20
