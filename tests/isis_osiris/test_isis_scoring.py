"""Scoring, winners and both reward modes on hand-built boards, and the score bound."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_envs.games.isis_osiris import IsisOsirisState
from tabletop_envs.games.isis_osiris.tables import MATERIAL, NEIGHBORS, score_bound
from tests.isis_osiris.reference import MIX, score_grid

E = ". . . . . ."


def position(rows: list[str], **kwargs: object) -> IsisOsirisState:
    """Return the position of a hand-built board."""
    return IsisOsirisState.from_position(rows, **kwargs)


def test_stone_scores_the_sum_of_orthogonal_tiles() -> None:
    """Up, down, left and right count; diagonal tiles and neighbouring stones do not."""
    rows = ["+4 -1 +3 . . .", "+2 A +1 . . .", "+3 -2 +2 . . .", E, E, ". . . . . B"]
    game = position(rows)
    assert game.scores() == [-1 + 2 + 1 - 2, 0]


def test_stone_with_no_adjacent_tile_scores_zero() -> None:
    """A stone touching only stones and empty squares is worth 0."""
    game = position(["A B . . . .", "B A . . . .", E, E, E, E])
    assert game.scores() == [0, 0]


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        (["A +3 . . . .", "-2 . . . . .", E, E, E, ". . . . . B"], 1),  # corner: 2 sides
        ([". . . . +4 A", ". . . . . -1", E, E, E, ". . . . . B"], 3),  # other corner
        ([". +1 . . . .", "+2 A +3 . . .", ". -4 . . . .", E, E, ". . . . . B"], 2),  # interior
        ([E, "+2 . . . . .", "A -3 . . . .", "+4 . . . . .", E, ". . . . . B"], 3),  # edge: 3
        ([E, E, E, E, ". . -1 . . .", ". -2 A +3 . B"], 0),  # bottom edge
    ],
)
def test_corner_edge_and_interior_stones(rows: list[str], expected: int) -> None:
    """Corners have 2 neighbours, edges 3, interior squares 4."""
    assert position(rows).scores()[0] == expected


def test_one_tile_counts_for_every_adjacent_stone() -> None:
    """A tile between several stones scores for each of them (and for each owner)."""
    game = position([". A . . . .", "A +4 B . . .", ". A . . . .", E, E, ". . . . B B"])
    assert game.scores() == [12, 4]


def test_scores_may_be_negative() -> None:
    """Negative tiles make negative totals."""
    game = position(["A -4 B . . .", "-2 -3 . . . .", E, E, E, ". . . . . ."])
    assert game.scores() == [-6, -4]
    assert [len(NEIGHBORS[s]) for s in (0, 5, 30, 35, 7, 1)] == [2, 2, 2, 2, 4, 3]


FULL_SOLE = [
    "A +4 A -4 B -1",
    "+3 A +2 B -2 B",
    "A +2 A -2 B -3",
    "+2 A +2 B -2 B",
    "A +1 A -1 B -2",
    "+3 -3 +2 B -2 +2",
]


def test_sole_winner_gets_plus_one_others_minus_one() -> None:
    """The highest score wins alone: +1, everybody else -1; infos list scores and winners."""
    game = position(FULL_SOLE)
    assert game.is_terminal
    scores = game.result_info()["scores"]
    assert scores == score_grid_of(FULL_SOLE) and scores[0] > scores[1]
    assert game.result_info() == {"scores": scores, "winners": [0]}
    assert game.returns().tolist() == [1.0, -1.0]


def test_least_negative_wins_when_all_scores_are_negative() -> None:
    """With every score negative the least negative is the highest and wins."""
    rows = [
        "B +1 -2 A -2 B",
        "B -3 -3 -2 A -4",
        "+2 +2 -1 B B A",
        "-2 -1 -2 -2 A +4",
        "B +2 A +3 B +2",
        "+2 +3 B A A A",
    ]
    game = position(rows)
    assert game.is_terminal
    assert game.result_info() == {"scores": [-4, -1], "winners": [1]}
    assert game.returns().tolist() == [-1.0, 1.0]


def test_two_player_tie_shares_the_win_with_zero_each() -> None:
    """Equal highest scores share the win: both are winners, 0 reward each."""
    rows = [
        "A -2 +4 A +2 +3",
        "-3 B -2 A B B",
        "-2 +2 A +2 A B",
        "-2 A +1 A -2 -4",
        "+3 +2 -1 B +2 A",
        "B B -2 +2 B -3",
    ]
    game = position(rows)
    assert game.result_info() == {"scores": [3, 3], "winners": [0, 1]}
    assert game.returns().tolist() == [0.0, 0.0]
    assert position(rows, reward="score").returns().tolist() == [3.0, 3.0]


def test_three_player_tie_for_top_shares_the_win_and_others_lose() -> None:
    """Seats tied for the top get 0 each; the rest get -1."""
    rows = [
        "+1 A -2 C A +2",
        "-3 +2 C -2 B +1",
        "A B +2 +4 B -2",
        "C -4 -2 +3 A -2",
        "B C C B C B",
        "-1 +2 +2 A -1 A",
    ]
    game = position(rows, num_players=3)
    assert game.is_terminal
    assert game.result_info() == {"scores": [1, 1, -11], "winners": [0, 1]}
    assert score_grid_of(rows, 3) == [1, 1, -11]
    assert game.returns().tolist() == [0.0, 0.0, -1.0]


def test_score_reward_mode_pays_each_final_score() -> None:
    """``reward="score"``: each seat's return is its score (here with a negative one)."""
    game = position(FULL_SOLE, reward="score")
    assert game.returns().tolist() == [float(s) for s in score_grid_of(FULL_SOLE)]
    assert min(game.returns()) < 0


def test_rewards_are_zero_before_the_end() -> None:
    """No reward and no result before the board is full."""
    game = IsisOsirisState.new(seed=0, reward="score")
    game.apply(0)
    assert game.returns().tolist() == [0.0, 0.0] and game.result_info() == {}


def score_grid_of(rows: list[str], n: int = 2) -> list[int]:
    """Score a text board with the reference scorer."""
    grid: list[list[object]] = []
    for row in rows:
        cells: list[object] = []
        for token in row.split():
            if token == ".":
                cells.append(None)
            elif token in "ABCD":
                cells.append(("S", "ABCD".index(token)))
            else:
                cells.append(("T", int(token)))
        grid.append(cells)
    return score_grid(grid, n)


# ---- the score bound (reward range of the score mode) -------------------------------------------
def test_score_bound_values() -> None:
    """The proven bound: 80 (2 players, 8 stones), 64 (3, 6 stones), 56 (4, 5 stones)."""
    assert [score_bound(n) for n in (2, 3, 4)] == [80, 64, 56]


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_hill_climbed_boards_stay_within_the_score_bound(num_players: int) -> None:
    """A search for the best and worst boards of seat 0 never leaves the declared range."""
    stones = MATERIAL[num_players][0]
    bound = score_bound(num_players)
    rng = np.random.default_rng(num_players)
    for sign in (1, -1):
        tiles = sorted((v for v, k in MIX.items() for _ in range(k)), key=lambda v: -sign * v)
        best = 0
        for _ in range(3):
            cells = ["A"] * stones + [f"{v:+d}" for v in tiles] + ["."] * (36 - stones - 22)
            rng.shuffle(cells)
            current = seat0(cells, num_players)
            for _ in range(1500):
                i, j = rng.integers(36, size=2)
                cells[i], cells[j] = cells[j], cells[i]
                value = seat0(cells, num_players)
                if sign * value >= sign * current:
                    current = value
                else:
                    cells[i], cells[j] = cells[j], cells[i]
            best = max(best, sign * current)
        assert 0 < best <= bound


def seat0(cells: list[str], n: int) -> int:
    """Return seat 0's score with ``cells`` laid out row by row."""
    return score_grid_of([" ".join(cells[6 * r : 6 * r + 6]) for r in range(6)], n)[0]
