"""Iris play (rules/iris.md, "Play" and "Decisions"), written as text boards and coordinates."""

from __future__ import annotations

import json

import pytest

from tabletop_envs.games.iris import IrisState
from tabletop_envs.games.iris.rules import BLACK, WHITE
from tests.iris.boards import legal_moves, marks, play, position, stones
from tests.iris.reference import RefIris

EMPTY_4 = """
   a b c d
  i . . . e
 h . . . . f
g . . . . . g
 f . . . . h
  e . . . i
   d c b a
"""

# Side 3: every gray cell but the centre is taken; a stone on the centre has no far gray cell.
CENTRE_ONLY_GRAY_LEFT = """
  a b c
 f X O d
e O . X e
 d X O f
  c b a
"""


def _gray(side: int) -> set:
    ref = RefIris(side=side)
    return {c for c in ref.cells if not ref.colored(c)}


# ---- opening -------------------------------------------------------------------------------
@pytest.mark.parametrize("side", [3, 4, 5, 8])
def test_opening_black_may_place_one_stone_on_any_empty_gray_cell_only(side):
    state = IrisState.new(board_size=side)
    assert state.current_player == BLACK
    assert legal_moves(state) == _gray(side)  # no colored cell, no pass


def test_opening_is_a_single_stone_then_white_moves():
    state = play(IrisState.new(board_size=4), "(1, -1)")
    assert state.current_player == WHITE
    assert stones(state) == ([(1, -1)], [])
    assert "pass" in legal_moves(state)


def test_opening_from_position_empty_board_with_black_to_move():
    state = position(EMPTY_4, to_move=BLACK)
    assert legal_moves(state) == _gray(4)
    fresh = IrisState.new(board_size=4)
    assert json.loads(state.to_json())["state"] == json.loads(fresh.to_json())["state"]


# ---- two-stone turns -----------------------------------------------------------------------
def test_white_first_turn_is_two_stones_then_black_plays_two():
    state = play(IrisState.new(board_size=4), "(0, 0)", "(1, -2)")
    assert state.current_player == WHITE  # second stone still to come
    play(state, "(-1, 2)")
    assert state.current_player == BLACK
    assert stones(state) == ([(0, 0)], [(-1, 2), (1, -2)])
    play(state, "(2, -1)", "(-2, 1)")
    assert state.current_player == WHITE
    assert stones(state) == ([(-2, 1), (0, 0), (2, -1)], [(-1, 2), (1, -2)])


@pytest.mark.parametrize("first", [(0, -3), (3, -3), (2, -3), (3, 0), (-3, 1), (-1, 3)])
def test_colored_first_stone_forces_the_opposite_cell_as_only_legal_action(first):
    state = play(IrisState.new(board_size=4), "(0, 0)", first)
    opposite = (-first[0], -first[1])
    assert legal_moves(state) == {opposite}
    play(state, opposite)
    assert state.current_player == BLACK
    assert stones(state)[WHITE] == sorted([first, opposite])


def test_gray_first_stone_allows_any_empty_gray_cell_not_adjacent():
    state = play(position(EMPTY_4, to_move=BLACK), "(0, 0)", "(1, 0)")
    expected = """
       a b c d
      i * * * e
     h * * . . f
    g * * X O . g
     f * * . . h
      e * * * i
       d c b a
    """
    assert legal_moves(state) == marks(expected)
    assert stones(state) == ([(0, 0)], [(1, 0)])


def test_gray_second_stone_refuses_adjacent_colored_occupied_and_the_first_cell():
    state = play(IrisState.new(board_size=4), "(0, 0)", "(1, 0)")
    legal = legal_moves(state)
    for refused in [(2, 0), (1, -1), (1, 1), (2, -1), (0, 1)]:  # neighbours of (1, 0)
        assert refused not in legal
    for refused in [(3, 0), (0, -3), (-3, 0)]:  # colored
        assert refused not in legal
    assert (0, 0) not in legal  # occupied
    assert (1, 0) not in legal  # the first stone itself
    assert "pass" not in legal


# ---- forfeit -------------------------------------------------------------------------------
def test_forfeit_when_no_far_gray_cell_only_legal_action_is_the_pass_id():
    state = position(CENTRE_ONLY_GRAY_LEFT, to_move=WHITE)
    play(state, "(0, 0)")
    assert state.current_player == WHITE
    assert state.legal_actions() == [state.pass_action]
    assert state.action_to_string(state.pass_action) == "forfeit"
    play(state, "pass")  # the forfeit ends the turn
    assert state.current_player == BLACK
    assert not state.is_terminal
    assert "pass" in legal_moves(state)


def test_forfeit_when_the_only_far_gray_cells_are_taken_on_a_larger_board():
    board = """
       a b c d
      i X O X e
     h O X O X f
    g X O . . O g
     f O X . X h
      e X O X i
       d c b a
    """
    # Gray cells left: (0, 0), (1, 0), (0, 1): pairwise adjacent.
    for first in ["(0, 0)", "(1, 0)", "(0, 1)"]:
        state = play(position(board, to_move=BLACK), first)
        assert state.legal_actions() == [state.pass_action], first


def test_forfeit_with_auto_forced_ends_the_turn_by_itself():
    state = position(CENTRE_ONLY_GRAY_LEFT, to_move=WHITE, auto_forced=True)
    play(state, "(0, 0)")
    assert state.current_player == BLACK
    assert stones(state)[WHITE] == [(-1, 0), (0, 0), (0, 1), (1, -1)]
    assert "pass" in legal_moves(state)


def test_forfeit_is_not_a_pass_so_pass_forfeit_pass_does_not_end_the_game():
    state = position(CENTRE_ONLY_GRAY_LEFT, to_move=BLACK)
    play(state, "pass", "(0, 0)", "pass", "pass")  # Black passes, White stone + forfeit, Black
    assert not state.is_terminal
    assert state.current_player == WHITE
    play(state, "pass")
    assert state.is_terminal


# ---- auto_forced ---------------------------------------------------------------------------
def test_auto_forced_false_forced_opposite_is_a_step_with_one_legal_action():
    state = play(IrisState.new(board_size=4, auto_forced=False), "(0, 0)", "(3, -1)")
    assert state.current_player == WHITE
    assert state.legal_actions() == [state.coord_to_action(-3, 1)]


def test_auto_forced_true_places_the_opposite_stone_by_itself():
    state = play(IrisState.new(board_size=4, auto_forced=True), "(0, 0)", "(3, -1)")
    assert state.current_player == BLACK
    assert stones(state) == ([(0, 0)], [(-3, 1), (3, -1)])


def test_auto_forced_does_not_play_a_gray_second_stone_even_with_one_choice():
    """Only the opposite cell and the forfeit are forced; a lone far gray cell is a choice."""
    board = """
      a b c
     f X O d
    e . X . e
     d O X f
      c b a
    """
    state = play(position(board, to_move=WHITE, auto_forced=True), "(1, 0)")
    assert state.current_player == WHITE
    assert legal_moves(state) == {(-1, 0)}
    play(state, "(-1, 0)")
    assert state.current_player == BLACK


def test_auto_forced_game_through_the_env_hands_the_turn_over():
    from tabletop_envs import iris_v0

    env = iris_v0.raw_env(board_size=4, auto_forced=True)
    env.reset(seed=1)
    env.step(env.game.coord_to_action(0, 0))
    assert env.agent_selection == "player_1"
    env.step(env.game.coord_to_action(0, -3))
    assert env.agent_selection == "player_0"
    assert stones(env.game)[WHITE] == [(0, -3), (0, 3)]


# ---- passes --------------------------------------------------------------------------------
def test_pass_is_available_only_at_the_start_of_a_turn():
    state = play(IrisState.new(board_size=4), "(0, 0)")
    assert "pass" in legal_moves(state)
    assert "pass" not in legal_moves(play(state.clone(), "(0, -3)"))  # forced opposite
    assert "pass" not in legal_moves(play(state.clone(), "(1, -2)"))  # gray second stone


def test_pass_is_not_allowed_on_blacks_opening():
    assert "pass" not in legal_moves(IrisState.new(board_size=4))


def test_two_consecutive_passes_end_the_game():
    state = play(IrisState.new(board_size=4), "(0, 0)", "pass")
    assert not state.is_terminal
    assert state.current_player == BLACK
    play(state, "pass")
    assert state.is_terminal
    assert state.current_player == -1
    assert state.legal_actions() == []


def test_pass_then_stones_then_pass_is_not_consecutive():
    state = play(IrisState.new(board_size=4), "(0, 0)", "pass", "(1, -2)", "(-1, 2)", "pass")
    assert not state.is_terminal
    assert state.current_player == BLACK
    play(state, "(2, -1)", "(-2, 1)", "pass")  # Black plays stones, White passes again
    assert not state.is_terminal
    play(state, "pass")  # ... and Black's pass right after ends it
    assert state.is_terminal


def test_passed_last_position_ends_on_the_next_pass():
    state = position(EMPTY_4.replace("g . . . . . g", "g . . X . . g"), passed_last=True)
    play(state, "pass")
    assert state.is_terminal


# ---- end on a full board -------------------------------------------------------------------
def test_board_full_after_a_second_stone_ends_the_game():
    board = """
      X X O
     O . O X
    O O X X O
     X O . O
      O X X
    """
    state = position(board, to_move=WHITE)
    play(state, "(0, -1)")
    assert not state.is_terminal
    play(state, "(0, 1)")
    assert state.is_terminal
    assert state.legal_actions() == []


@pytest.mark.parametrize("auto_forced", [False, True])
def test_gray_first_stone_filling_the_last_cell_ends_the_game_without_a_forfeit(auto_forced):
    board = """
      X X O
     O X O X
    O O . X O
     X O O O
      O X X
    """
    state = play(position(board, to_move=WHITE, auto_forced=auto_forced), "(0, 0)")
    assert state.is_terminal
    assert state.current_player == -1
    assert state.legal_actions() == []


@pytest.mark.parametrize("auto_forced", [False, True])
def test_colored_pair_filling_the_last_two_cells_ends_the_game(auto_forced):
    board = """
      a X O
     O X O X
    O O O X O
     X O O O
      O X a
    """
    state = play(position(board, to_move=BLACK, auto_forced=auto_forced), "(0, -2)")
    if not auto_forced:
        assert not state.is_terminal
        play(state, "(0, 2)")
    assert state.is_terminal


def test_position_with_a_full_board_is_already_over():
    board = """
      X X O
     O X O X
    O O X X O
     X O O O
      O X X
    """
    state = position(board)
    assert state.is_terminal
    assert state.legal_actions() == []


def test_from_position_refuses_a_colored_stone_without_its_opposite():
    """Such a position is unreachable, and a forced second stone would overwrite a stone."""
    board = """
      X b c
     f . . d
    e . X . e
     d . . f
      c b a
    """
    with pytest.raises(ValueError, match=r"colored cell \(0, -2\) and its opposite \(0, 2\)"):
        position(board)
    with pytest.raises(ValueError, match="opposite pairs"):
        IrisState.from_position(board_size=3, black=[(2, -2)], white=[(-2, 2)])
