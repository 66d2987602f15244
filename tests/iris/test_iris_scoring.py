"""Iris scoring and rewards (rules/iris.md, "Scoring" and the reward/agent Decisions).

Each scenario is a side-4 position right after a pass; the next pass ends the game.
"""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_envs import iris_v0
from tabletop_envs.agents.base import RandomAgent
from tabletop_envs.games.iris import IrisState
from tabletop_envs.games.iris.rules import BLACK, WHITE
from tests.iris.boards import parse_board, play, position, stones
from tests.iris.reference import RefIris

# Black: pairs a, b as a group of 2 at each end (+ a gray group); White: pair g as two singles.
GROUPS_COUNT_COLORED_CELLS = """
   X X c d
  i . . . e
 h . . . . f
O . X X X O O
 f . . . . h
  e . . . i
   d c X X
"""

# Black joins both ends through the centre: one group of 4. White: four groups of 2 (8 cells).
FIRST_ELEMENT_DECIDES_NOT_THE_SUM = """
   X X O O
  i X . . e
 h . X . . O
O . . X . . O
 O . . X . h
  e . . X i
   O O X X
"""

# Black [2, 2] against White [2, 1, 1]: same number of colored cells, the 2nd element decides.
SECOND_ELEMENT_DECIDES = """
   X X O d
  i . . . e
 h . . . . f
O O O O O O O
 f . . . . h
  e . . . i
   d O X X
"""

# Black [2, 2] against White [2, 2, 1, 1]: Black's missing third element counts as 0.
MISSING_ELEMENT_COUNTS_AS_ZERO = """
   X X O O
  i . . . e
 h . . . . f
O . . . . . O
 f . . . . h
  e . . . i
   O O X X
"""

# Black [2, 2] plus a gray group, White [2, 2] plus gray groups: equal lists, a draw.
ZERO_SCORE_GROUPS_DO_NOT_MATTER = """
   X X O O
  i . . . e
 h . X . O f
g . X . . O g
 f . O . . h
  e . . . i
   O O X X
"""

SCENARIOS = {
    "groups_count_colored_cells": (GROUPS_COUNT_COLORED_CELLS, [2, 2], [1, 1], BLACK),
    "first_element_decides_not_the_sum": (
        FIRST_ELEMENT_DECIDES_NOT_THE_SUM,
        [4],
        [2, 2, 2, 2],
        BLACK,
    ),
    "second_element_decides": (SECOND_ELEMENT_DECIDES, [2, 2], [2, 1, 1], BLACK),
    "missing_element_counts_as_zero": (MISSING_ELEMENT_COUNTS_AS_ZERO, [2, 2], [2, 2, 1, 1], WHITE),
    "zero_score_groups_do_not_matter": (ZERO_SCORE_GROUPS_DO_NOT_MATTER, [2, 2], [2, 2], None),
}
RETURNS = {BLACK: [1.0, -1.0], WHITE: [-1.0, 1.0], None: [0.0, 0.0]}


def _ref(board: str) -> RefIris:
    side, black, white = parse_board(board)
    ref = RefIris(side=side)
    ref.board.update(dict.fromkeys(black, BLACK) | dict.fromkeys(white, WHITE))
    return ref


@pytest.mark.parametrize("name", SCENARIOS)
def test_group_scores_and_sorted_list_comparison(name):
    board, black, white, winner = SCENARIOS[name]
    state = position(board, to_move=BLACK, passed_last=True)
    assert state.group_scores() == (black, white)
    assert not state.is_terminal
    assert state.returns().tolist() == [0.0, 0.0]
    assert state.result_info() == {}
    play(state, "pass")
    assert state.is_terminal
    assert state.result_info() == {"group_scores": [black, white], "winner": winner}
    assert state.returns().tolist() == RETURNS[winner]
    ref = _ref(board)
    assert ref.group_scores() == (black, white)
    assert ref.winner() == winner


def test_game_over_status_line_names_the_outcome_and_the_lists():
    state = play(position(SECOND_ELEMENT_DECIDES, to_move=WHITE, passed_last=True), "pass")
    last = state.render_text().splitlines()[-1]
    assert last == "game over: Black wins (Black groups [2, 2], White groups [2, 1, 1])"


def test_stones_of_different_players_or_two_apart_are_not_one_group():
    board = """
      X b X
     f . O d
    e . . . e
     d O . f
      X b X
    """
    state = position(board)
    # (0, -2) and (2, -2) are two apart with an empty cell between: separate groups.
    assert state.group_scores() == ([1, 1, 1, 1], [])


def test_draw_possible_after_early_passes():
    state = play(IrisState.new(board_size=5), "(0, 0)", "pass", "pass")
    assert state.is_terminal
    assert state.result_info() == {"group_scores": [[], []], "winner": None}
    assert state.returns().tolist() == [0.0, 0.0]
    assert "draw" in state.render_text().splitlines()[-1]


def test_full_side_3_boards_are_never_drawn_exhaustively():
    """The designer's claim, checked on every full side-3 board with colored cells in pairs."""
    ref = RefIris(side=3)
    pairs = ref.ring[: len(ref.ring) // 2]
    gray = [c for c in ref.cells if not ref.colored(c)]
    for pm in range(1 << len(pairs)):
        for c_i, c in enumerate(pairs):
            ref.board[c] = ref.board[ref.opposite(c)] = (pm >> c_i) & 1
        for gm in range(1 << len(gray)):
            for g_i, c in enumerate(gray):
                ref.board[c] = (gm >> g_i) & 1
            assert ref.winner() is not None, dict(ref.board)


# ---- rewards through the env ---------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("auto_forced", [False, True])
def test_rewards_are_zero_on_every_non_final_step_and_plus_minus_one_at_the_end(seed, auto_forced):
    env = iris_v0.raw_env(board_size=4, auto_forced=auto_forced)
    env.reset(seed=seed)
    agent = RandomAgent(seed=seed)
    while not all(env.terminations.values()):
        assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
        env.step(agent.act(env.game, env.game.current_player))
    rewards = [env.rewards["player_0"], env.rewards["player_1"]]
    winner = env.result_details()["winner"]
    assert rewards == RETURNS[winner]


def test_player_0_is_black_and_moves_first_with_the_opening_mask():
    env = iris_v0.raw_env(board_size=4, render_mode="ansi")
    env.reset(seed=0)
    assert env.agent_selection == "player_0"
    mask = env.observe("player_0")["action_mask"]
    opening = IrisState.new(board_size=4)
    assert np.array_equal(mask, opening.legal_mask())
    assert not mask[opening.pass_action]
    env.step(opening.coord_to_action(0, 0))
    assert env.agent_selection == "player_1"
    assert stones(env.game) == ([(0, 0)], [])
    row = env.render().splitlines()[4].split()  # r = 0, after the legend: its label, 7 cells
    assert row[0] == "0" and row[4] == "X"  # Black's stone is drawn X


def _ring_arcs(ref: RefIris) -> int:
    """Return the number of maximal one-owner arcs of the (full) ring."""
    owners = [ref.board[c] for c in ref.ring]
    changes = sum(owners[k] != owners[k - 1] for k in range(len(owners)))
    return changes or 1


@pytest.mark.parametrize("side", [4, 5, 6, 8])
def test_full_boards_have_an_odd_number_of_scoring_groups_so_never_draw(side):
    """Why the designer's no-draw claim holds on a full board.

    The ring splits into arcs of one owner, alternating, ``2k`` in all; the point reflection
    maps arc ``i`` to arc ``i + k`` with the same owner, so ``k`` is even. On a full hex board
    the groups joining White's arcs are exactly those Black's groups do not separate (as in Hex),
    so the scoring groups number ``k + 1`` (odd) in all, or 1 when one player owns the whole
    ring: the two lists differ in length, hence differ.
    """
    rng = np.random.default_rng(side)
    ref = RefIris(side=side)
    pairs = ref.ring[: len(ref.ring) // 2]
    gray = [c for c in ref.cells if not ref.colored(c)]
    for _ in range(120):
        p_gray, p_pair = rng.random(), rng.random()
        for c in pairs:
            ref.board[c] = ref.board[ref.opposite(c)] = int(rng.random() < p_pair)
        for c in gray:
            ref.board[c] = int(rng.random() < p_gray)
        arcs = _ring_arcs(ref)
        black, white = ref.group_scores()
        if arcs == 1:
            assert len(black) + len(white) == 1
        else:
            assert arcs % 4 == 0  # 2k arcs, k even
            assert len(black) + len(white) == arcs // 2 + 1
        assert ref.winner() is not None
        state = IrisState.from_position(
            board_size=side,
            black=[c for c in ref.cells if ref.board[c] == BLACK],
            white=[c for c in ref.cells if ref.board[c] == WHITE],
        )
        assert state.is_terminal
        assert state.result_info()["group_scores"] == [black, white]
