"""Scoring: groups and table values, majorities with the star tiebreak, winners, rewards."""

from __future__ import annotations

import json

import pytest

from tabletop_envs.games.irk.scoring import (
    final_rewards,
    majority_points,
    parse_table,
    score_game,
    table_values,
)

GREEN, RED, YELLOW, PURPLE, BLUE = range(5)


# ---- groups and table values -----------------------------------------------------------------
def test_a_group_sums_its_flowers_of_the_color():
    values = table_values(parse_table("G3 G1 G2"))
    assert values[GREEN] == 6 and values[RED] == 0


def test_gray_squares_join_flowers_of_any_color():
    grid = parse_table("""
    G3 .  G2
    R1 .  R*
    """)
    values = table_values(grid)
    assert values[GREEN] == 5  # G3 - gray - G2
    assert values[RED] == 2  # R1 - gray - R*


def test_another_color_breaks_a_group_and_the_best_group_counts():
    values = table_values(parse_table("G3 R2 G2 G1"))
    assert values[GREEN] == 3  # groups {G3} and {G2, G1}: max(3, 3)
    values = table_values(parse_table("G3 R2 G2 G2"))
    assert values[GREEN] == 4


def test_the_largest_group_is_the_highest_valued_one():
    """Decision: "the largest group" is read in flower value (a 3 counts three symbols)."""
    grid = parse_table("""
    G3 R1 G1 G1 G*
    """)
    # {G3}: one cell, one flower, value 3; {G1, G1, G*}: three cells and flowers, value 3
    assert table_values(grid)[GREEN] == 3
    grid = parse_table("""
    G3 R1 G1 G1 .  .  .
    G2 R1 _  _  _  _  _
    """)
    # {G3, G2}: two cells worth 5 beats {G1, G1, ., ., .}: five cells, two flowers, worth 2
    assert table_values(grid)[GREEN] == 5


def test_diagonals_do_not_connect():
    grid = parse_table("""
    G3 _
    _  G2
    """)
    assert table_values(grid)[GREEN] == 3


def test_empty_cells_do_not_connect():
    assert table_values(parse_table("G3 _ G2"))[GREEN] == 3


def test_stars_and_plain_flowers_count_one():
    assert table_values(parse_table("Y* Y1 . Y*"))[YELLOW] == 3


def test_a_color_absent_from_the_table_is_worth_0():
    assert table_values(parse_table(". . ."))[BLUE] == 0


def test_a_long_gray_path_joins_far_groups():
    grid = parse_table("""
    P3 _  _  _  P2
    .  .  .  .  .
    """)
    assert table_values(grid)[PURPLE] == 5


# ---- majorities -------------------------------------------------------------------------------
def test_rules_example_unique_second_by_stars():
    # counts A 4, B 2 with a star, C 2 without; V = 9
    assert majority_points([4, 2, 2], [0, 1, 0], 9) == [9, 4, 0]
    # without A, B is a unique first
    assert majority_points([0, 2, 2], [0, 1, 0], 9) == [0, 9, 4]


def test_star_tiebreak_for_first_place():
    assert majority_points([3, 3], [1, 0], 7) == [7, 0]
    assert majority_points([3, 3, 1], [0, 2, 0], 7) == [3, 7, 0]


def test_star_tiebreak_for_second_place():
    assert majority_points([5, 3, 3, 0], [0, 0, 1, 0], 8) == [8, 0, 4, 0]


def test_tied_seconds_get_nothing():
    assert majority_points([5, 3, 3], [0, 1, 1], 8) == [8, 0, 0]


def test_tie_for_first_halves_and_cancels_second():
    assert majority_points([4, 4, 2], [1, 1, 0], 9) == [4, 4, 0]
    assert majority_points([4, 4, 4, 1], [0, 0, 0, 0], 5) == [2, 2, 2, 0]


def test_no_second_place_with_two_players():
    assert majority_points([4, 2], [0, 0], 9) == [9, 0]


def test_second_place_with_three_and_four_players():
    assert majority_points([4, 2, 0], [0, 0, 0], 9) == [9, 4, 0]
    assert majority_points([1, 0, 6, 2], [0, 0, 0, 0], 7) == [0, 0, 7, 3]


def test_count_zero_takes_no_place():
    assert majority_points([3, 0, 0], [0, 0, 0], 8) == [8, 0, 0]  # no second although unique
    assert majority_points([0, 0], [0, 0], 8) == [0, 0]
    assert majority_points([0, 0, 0], [0, 0, 0], 0) == [0, 0, 0]


def test_odd_values_round_down_when_halved():
    assert majority_points([2, 2], [0, 0], 7) == [3, 3]
    assert majority_points([3, 2, 1], [0, 0, 0], 1) == [1, 0, 0]


# ---- whole scoring and winners -----------------------------------------------------------------
TABLE = """
G3 .  R2
G1 _  R1
"""


def test_score_game_full_result():
    piles = [["G3 . .", "R1 G2 ."], ["R3 . .", "G1 Y* B1"], ["Y2 P1 .", ". G1 B2"]]
    result = score_game(parse_table(TABLE), piles)
    # green: G3 - gray - G1 = 4 (R2 is red and does not join); red: R2 - R1 = 3
    assert result["table_values"] == [4, 3, 0, 0, 0]
    assert result["counts"][0] == [5, 1, 0, 0, 0]
    assert result["counts"][1] == [1, 3, 1, 0, 1]
    assert result["stars"][1] == [0, 0, 1, 0, 0]
    # green: A 5 first (4), B 1 vs C 1 tied second -> nothing; red: B 3 first (3), A 1 second (1)
    assert result["points"] == [[4, 1, 0, 0, 0], [0, 3, 0, 0, 0], [0, 0, 0, 0, 0]]
    assert result["totals"] == [5, 3, 0]
    assert result["star_totals"] == [0, 1, 0]
    assert result["winners"] == [0]
    assert json.loads(json.dumps(result)) == result


def test_final_star_tiebreak():
    # both score 4 (tied first in green halves 9 -> 4); B has more stars in its whole pile
    piles = [["G3 . ."], ["G2 R1 .", "R1 P* G1"]]
    result = score_game(parse_table("G3 G3 G3"), piles)
    assert result["totals"] == [4, 4]
    assert result["star_totals"] == [0, 1]
    assert result["winners"] == [1]


def test_shared_wins():
    piles = [["G3 . ."], [". G3 ."], ["R3 . ."]]
    result = score_game(parse_table("G3 G3 . R2"), piles)
    assert result["totals"] == [3, 3, 2]
    assert result["winners"] == [0, 1]
    assert final_rewards(result) == [0.0, 0.0, -1.0]


def test_win_loss_and_score_rewards():
    result = {"totals": [7, 3, 5], "winners": [0]}
    assert final_rewards(result) == [1.0, -1.0, -1.0]
    assert final_rewards(result, "score") == [7.0, 3.0, 5.0]


def test_nobody_scores_gives_a_shared_win():
    result = score_game(parse_table(". ."), [[], []])
    assert result["winners"] == [0, 1]
    assert final_rewards(result) == [0.0, 0.0]


@pytest.mark.parametrize("bad", ["G4", "X1"])
def test_parse_table_refuses_bad_squares(bad):
    with pytest.raises(ValueError, match="bad square"):
        parse_table(f"G3 {bad}")
