"""Placing a tile: contact, the covering rules, the one-mismatch limit, the table edge.

Tables are text (``_`` an empty cell, ``.`` a gray square); a placement is the cell of the
tile's top square and the direction it runs: 0 down, 1 right, 2 up, 3 left.
"""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_envs import IllegalActionError
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.games.irk.placement import footprint, placement_tables
from tabletop_envs.games.irk.rules import IrkState
from tests.irk.helpers import can_place

DOWN, RIGHT, UP, LEFT = 0, 1, 2, 3

# One vertical tile "G3 R2 Y*" in column 2 of a 7x7 table, rows 2-4.
STRIP = """
_  _  _  _  _  _  _
_  _  _  _  _  _  _
_  _  G3 _  _  _  _
_  _  R2 _  _  _  _
_  _  Y* _  _  _  _
_  _  _  _  _  _  _
_  _  _  _  _  _  _
"""


def test_footprints_of_the_four_orientations():
    assert footprint(3, 3, DOWN) == ((3, 3), (4, 3), (5, 3))
    assert footprint(3, 3, RIGHT) == ((3, 3), (3, 4), (3, 5))
    assert footprint(3, 3, UP) == ((3, 3), (2, 3), (1, 3))
    assert footprint(3, 3, LEFT) == ((3, 3), (3, 2), (3, 1))


# ---- contact -------------------------------------------------------------------------------
def test_contact_by_a_shared_edge_is_enough():
    assert can_place(STRIP, "B1 . .", 2, 3, DOWN, size=10)[0]  # beside the strip
    assert can_place(STRIP, "B1 . .", 5, 2, DOWN, size=10)[0]  # below its end


def test_contact_through_a_corner_alone_is_refused():
    legal, reason = can_place(STRIP, "B1 . .", 5, 3, DOWN, size=10)  # (4, 2) diagonally only
    assert not legal and "neither covers nor shares an edge" in reason
    assert not can_place(STRIP, "B1 . .", 1, 3, UP)[0]  # corner at (2, 2) from above-right


def test_a_tile_far_away_is_refused():
    assert not can_place(STRIP, "B1 . .", 0, 5, DOWN)[0]


# ---- covering rules --------------------------------------------------------------------------
def test_numbered_may_be_covered_by_numbered_of_any_color():
    assert can_place(STRIP, "R3 . .", 3, 2, RIGHT)[0]  # R2 under R3: same color, no mismatch
    assert can_place(STRIP, "G2 . .", 3, 2, RIGHT)[0]  # R2 under G2: a mismatch, allowed alone


@pytest.mark.parametrize("new", ["R1", "R*", "."])
def test_numbered_may_not_be_covered_by_a_non_numbered_square(new):
    legal, reason = can_place(STRIP, f"{new} . .", 3, 2, RIGHT)
    assert not legal and "numbered flower R2" in reason


def test_star_may_be_covered_by_a_star():
    assert can_place(STRIP, "Y* . .", 4, 2, RIGHT)[0]
    assert can_place(STRIP, "B* . .", 4, 2, RIGHT)[0]  # other color: one mismatch


@pytest.mark.parametrize("new", ["Y1", "Y3", "Y2", "."])
def test_star_may_not_be_covered_by_anything_else(new):
    legal, reason = can_place(STRIP, f"{new} . .", 4, 2, RIGHT)
    assert not legal and "starred flower Y*" in reason


PLAIN = """
_  _  _  _  _
_  G1 .  P1 _
_  _  _  _  _
"""


@pytest.mark.parametrize("new", ["G1", "G*", "G2", "G3", "B1", "B2", "B*", "."])
def test_plain_may_be_covered_by_anything(new):
    assert can_place(PLAIN, f"{new} . .", 1, 1, DOWN)[0]


def test_gray_may_always_be_covered_without_mismatch():
    # any square may cover gray: a numbered flower, a star, a plain flower, gray
    for square in ("B2", "R*", "Y1", "."):
        assert can_place(PLAIN, f"{square} Y3 R1", 1, 2, DOWN)[0]
    # G1 on G1, Y3 on gray, B1 on P1: the gray cover is free, so one mismatch in all
    assert can_place(PLAIN, "G1 Y3 B1", 1, 1, RIGHT)[0]
    assert can_place(PLAIN, "G1 . B1", 1, 1, RIGHT)[0]  # gray on gray as well


def test_at_most_one_mismatch():
    assert can_place(PLAIN, "G1 . R1", 1, 1, RIGHT)[0]  # G on G, gray on gray, R on P: 1
    legal, reason = can_place(PLAIN, "R1 . R1", 1, 1, RIGHT)  # R on G and R on P: 2
    assert not legal and "2 mismatches" in reason
    assert not can_place(PLAIN, ". . .", 1, 1, RIGHT)[0]  # gray on G and on P: 2


def test_covering_with_the_same_color_is_no_mismatch():
    assert can_place(PLAIN, "G3 . P*", 1, 1, RIGHT)[0]
    assert can_place(STRIP, "G3 R3 Y*", 2, 2, DOWN)[0]  # exact match over three cells


def test_overlapping_two_different_tiles():
    table = """
    _  _  _  _
    _  B1 R1 _
    _  .  .  _
    _  Y1 G1 _
    """
    # covers B1 (first tile) and R1 (second tile), one mismatch (B on R)
    assert can_place(table, "B1 B1 .", 1, 1, RIGHT)[0]
    # down the gray row of two tiles and beyond
    assert can_place(table, ". . Y1", 2, 1, RIGHT)[0]


def test_a_placement_must_stay_on_the_table():
    legal, reason = can_place(STRIP, "B1 . .", 5, 2, DOWN, size=7)
    assert not legal and "leave the 7x7 table" in reason
    assert can_place(STRIP, "B1 . .", 4, 2, DOWN, size=7)[0] is False  # covers Y* with B1
    assert can_place(STRIP, "B1 . .", 4, 3, DOWN, size=7)[0]


def test_placement_tables_only_hold_on_table_footprints():
    t = placement_tables(6)
    assert t.valid.sum() == 4 * 6 * 4  # per orientation: 6 lines x 4 positions
    for p in np.flatnonzero(t.valid):
        assert all(0 <= c < 36 for c in t.cells[p])


# ---- ids and the state -------------------------------------------------------------------------
def test_place_ids_round_trip_through_the_helpers():
    game = IrkState.new(seed=0, table_size=11)
    d = game.deck_size
    assert game.placement_to_action(0, 0, 0) == d
    for action in (d, d + 5, d + 11 * 11 * 4 - 1):
        assert game.placement_to_action(*game.action_to_placement(action)) == action
    assert game.placement_to_action(2, 3, "left") == d + (2 * 11 + 3) * 4 + 3
    assert game.action_to_tile(5) == game.tile_to_action(5) == 5
    with pytest.raises(ValueError, match=f"place id must be from {d} to"):
        game.action_to_placement(3)
    with pytest.raises(ValueError, match=f"choose id must be from 0 to {d - 1}"):
        game.action_to_tile(d)
    with pytest.raises(ValueError, match="orientation"):
        game.placement_to_action(0, 0, "diagonal")
    with pytest.raises(ValueError, match="row must be from 0 to 10"):
        game.placement_to_action(11, 0, 0)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda g: g.placement_to_action(1.5, 2, 0), "row must be an integer from 0 to 10"),
        (lambda g: g.placement_to_action(1, "2", 0), "col must be an integer from 0 to 10"),
        (lambda g: g.placement_to_action(1, 2, 0.0), "orientation must be an integer from 0"),
        (lambda g: g.placement_to_action(1, 2, 4), "orientation must be from 0 to 3, got 4"),
        (lambda g: g.placement_to_action(-1, 2, 0), "row must be from 0 to 10, got -1"),
        (lambda g: g.action_to_tile(True), "choose id must be an integer from 0 to 29"),
        (lambda g: g.action_to_tile(2.0), "choose id must be an integer from 0 to 29"),
        (lambda g: g.tile_to_action(-1), "tile must be from 0 to 29, got -1"),
        (lambda g: g.action_to_placement("40"), "place id must be an integer from 30 to 513"),
        (lambda g: g.action_to_string(-1), "action must be from 0 to 513, got -1"),
        (lambda g: g.action_to_string(514), "action must be from 0 to 513, got 514"),
        (lambda g: g.action_to_string(3.0), "action must be an integer from 0 to 513"),
        (lambda g: g.tile_label(-1), "tile must be from 0 to 29, got -1"),
        (lambda g: g.placements_of(30), "tile must be from 0 to 29, got 30"),
    ],
)
def test_helpers_refuse_non_integers_and_out_of_range_ids(call, message):
    """The helpers name the argument and its valid values instead of computing nonsense."""
    game = IrkState.new(seed=0, table_size=11)  # 30 tiles: choose ids 0-29, place ids 30-513
    with pytest.raises(InvalidParameterError, match=message):
        call(game)


def test_helpers_accept_numpy_integers():
    game = IrkState.new(seed=0, table_size=11)
    d = game.deck_size
    assert (
        game.placement_to_action(np.int64(2), np.int32(3), np.int8(3)) == d + (2 * 11 + 3) * 4 + 3
    )
    assert game.action_to_placement(np.int64(d + 5)) == (0, 1, 1)
    assert game.action_to_tile(np.int64(5)) == game.tile_to_action(np.int16(5)) == 5
    assert game.action_to_string(np.int64(3)) == game.action_to_string(3)
    assert np.array_equal(game.placements_of(np.int64(3)), game.placements_of(3))


def test_an_illegal_placement_raises_and_leaves_the_state_unchanged():
    game = IrkState.new(seed=4)
    rng = np.random.default_rng(1)
    while game.phase != 1:  # play to the first place step
        legal = np.flatnonzero(game.legal_mask())
        game.apply(int(legal[rng.integers(len(legal))]))
    before = game.to_json()
    illegal = game.placement_to_action(0, 0, 0)  # a corner far from the opening
    with pytest.raises(IllegalActionError, match="neither covers nor shares"):
        game.apply(illegal)
    with pytest.raises(IllegalActionError, match="place phase"):
        game.apply(0)
    assert game.to_json() == before
