"""Illegal actions: a clear IllegalActionError naming action, player and reason; state unchanged."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tabletop_envs.core.errors import IllegalActionError
from tabletop_envs.games.iris import IrisState
from tests.iris.boards import action, play, position

CENTRE_ONLY_GRAY_LEFT = """
  a b c
 f X O d
e O . X e
 d X O f
  c b a
"""


def _side4(*moves: str) -> IrisState:
    return play(IrisState.new(board_size=4, seed=7), *moves)


def _forfeit() -> IrisState:
    return play(position(CENTRE_ONLY_GRAY_LEFT, to_move=1), "(0, 0)")


def _over() -> IrisState:
    return _side4("(0, 0)", "pass", "pass")


# name: (state factory, action (move string, id or any object), player, reason regex)
CASES = {
    "occupied_cell": (lambda: _side4("(0, 0)"), "(0, 0)", 1, r"cell \(0, 0\) is occupied"),
    "off_board_id": (lambda: _side4("(0, 0)"), 0, 1, r"id 0 is not a cell of the side-4 board"),
    # id 7 of the 7x7 array is row 1, col 0 -> (q, r) = (-3, -2): off the hexagon.
    "off_board_id_at_a_row_start": (
        lambda: _side4("(0, 0)"),
        7,
        1,
        r"id 7 is not a cell of the side-4 board",
    ),
    "out_of_range_id_high": (_side4, 50, 0, r"action ids run from 0 to 49"),
    "out_of_range_id_huge": (_side4, 10**12, 0, r"action ids run from 0 to 49"),
    "out_of_range_id_negative": (_side4, -1, 0, r"action ids run from 0 to 49"),
    "wrong_type_float": (_side4, 24.0, 0, r"an action is an integer id from 0 to 49"),
    "wrong_type_str": (_side4, "24", 0, r"an action is an integer id from 0 to 49"),
    "wrong_type_none": (_side4, None, 0, r"an action is an integer id from 0 to 49"),
    "wrong_type_bool": (_side4, True, 0, r"an action is an integer id from 0 to 49"),
    "wrong_type_numpy_float": (_side4, np.float64(24), 0, r"an action is an integer id"),
    "wrong_type_tuple": (_side4, (0, 0), 0, r"an action is an integer id"),
    "opening_on_colored_cell": (
        _side4,
        "(0, -3)",
        0,
        r"opening stone must go on a gray cell; \(0, -3\) is colored",
    ),
    "pass_on_opening": (_side4, "pass", 0, r"Black may not pass on the opening turn"),
    "non_opposite_second_stone": (
        lambda: _side4("(0, 0)", "(0, -3)"),
        "(1, -3)",
        1,
        r"after the colored stone at \(0, -3\) the second stone must go on \(0, 3\)",
    ),
    "gray_second_stone_after_colored_first": (
        lambda: _side4("(0, 0)", "(0, -3)"),
        "(1, -1)",
        1,
        r"must go on \(0, 3\)",
    ),
    "adjacent_second_stone": (
        lambda: _side4("(0, 0)", "(1, 0)"),
        "(1, -1)",
        1,
        r"may not be adjacent to the first stone at \(1, 0\)",
    ),
    "colored_second_stone_after_gray_first": (
        lambda: _side4("(0, 0)", "(1, 0)"),
        "(3, -3)",
        1,
        r"after the gray stone at \(1, 0\) the second stone must go on a gray cell",
    ),
    "first_cell_again_as_second_stone": (
        lambda: _side4("(0, 0)", "(1, 0)"),
        "(1, 0)",
        1,
        r"cell \(1, 0\) is occupied",
    ),
    "pass_as_second_stone_after_colored": (
        lambda: _side4("(0, 0)", "(0, -3)"),
        "pass",
        1,
        r"a pass is only allowed at the start of a turn",
    ),
    "pass_as_second_stone_after_gray": (
        lambda: _side4("(0, 0)", "(1, 0)"),
        "pass",
        1,
        r"a pass is only allowed at the start of a turn",
    ),
    "stone_when_the_second_stone_is_forfeited": (
        _forfeit,
        "(0, -2)",
        1,
        r"the second stone is forfeited .*play pass",
    ),
    "stone_after_game_over": (_over, "(1, 0)", -1, r"the game is over"),
    "pass_after_game_over": (_over, "pass", -1, r"the game is over"),
    "colored_stone_after_game_over": (_over, "(0, -3)", -1, r"the game is over"),
}


def _snapshot(state: IrisState) -> tuple:
    return (
        state.to_json(),
        state.legal_mask().tobytes(),
        state.observation(0).tobytes(),
        state.observation(1).tobytes(),
        state.render_text(),
        state.returns().tolist(),
        state.result_info(),
    )


@pytest.mark.parametrize("name", CASES)
def test_illegal_action_error_names_action_player_reason_and_leaves_state_unchanged(name):
    make, move, player, reason = CASES[name]
    state = make()
    assert state.current_player == player
    act = action(state, move) if isinstance(move, str) and move[:1] in "(p" else move
    before = _snapshot(state)
    with pytest.raises(IllegalActionError) as info:
        state.apply(act)
    err = info.value
    assert err.player == player
    assert err.action == act
    assert str(err).startswith(f"illegal action {act!r} for player {player}: ")
    assert re.search(reason, err.reason), err.reason
    assert isinstance(err, ValueError)
    assert _snapshot(state) == before
    # ... and the state still plays on like an untouched copy.
    fresh = IrisState.from_json(before[0])
    for a in fresh.legal_actions()[:1]:
        fresh.apply(a)
        state.apply(a)
        assert state.to_json() == fresh.to_json()


def test_every_masked_out_id_is_refused_in_every_phase():
    states = [
        _side4(),
        _side4("(0, 0)"),
        _side4("(0, 0)", "(0, -3)"),
        _side4("(0, 0)", "(1, 0)"),
        _forfeit(),
        _over(),
    ]
    for state in states:
        mask = state.legal_mask()
        before = state.to_json()
        for a in np.flatnonzero(mask == 0):
            with pytest.raises(IllegalActionError):
                state.apply(int(a))
        assert state.to_json() == before


def test_numpy_integer_ids_are_accepted():
    state = IrisState.new(board_size=4)
    state.apply(np.int64(state.coord_to_action(0, 0)))
    state.apply(np.int32(state.coord_to_action(0, -3)))
    assert state.legal_actions() == [state.coord_to_action(0, 3)]
