"""One named test per **Decision** of rules/iris.md (and the choices made where it is silent)."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_envs import iris_v0
from tabletop_envs.games.iris import IrisState
from tabletop_envs.games.iris.rules import BLACK, WHITE
from tests.iris.boards import legal_moves, parse_board, play, position, stones
from tests.iris.reference import RefIris


def _random_game(side: int, seed: int, auto_forced: bool = False):
    """Yield the state after every step of a seeded random game (no voluntary passes)."""
    rng = np.random.default_rng(seed)
    state = IrisState.new(board_size=side, auto_forced=auto_forced, seed=seed)
    while not state.is_terminal:
        legal = state.legal_actions()
        cells = [a for a in legal if a != state.pass_action] or legal
        state.apply(cells[rng.integers(len(cells))])
        yield state


@pytest.mark.parametrize("seed", range(12))
def test_decision_colored_cells_are_always_filled_in_opposite_pairs_by_one_player(seed):
    ref = RefIris(side=4)
    for state in _random_game(4, seed):
        if "forced opposite" in state.render_text():
            continue  # mid-turn: the forced stone is still to come
        black, white = parse_board(state.render_text())[1:]
        for own, other in ((black, white), (white, black)):
            for cell in own:
                if ref.colored(cell):
                    assert ref.opposite(cell) in own, (cell, state.render_text())
                    assert ref.opposite(cell) not in other


@pytest.mark.parametrize("seed", range(6))
def test_decision_a_colored_first_stone_is_legal_whenever_its_cell_is_empty(seed):
    ref = RefIris(side=5)
    for state in _random_game(5, seed):
        legal = legal_moves(state)
        if "pass" not in legal or len(legal) == 1:
            continue  # not the start of a turn
        black, white = stones(state)
        for cell in ref.ring:
            if cell not in black and cell not in white:
                assert cell in legal
                assert ref.opposite(cell) not in black + white


def test_decision_pass_only_at_turn_start_never_for_the_second_stone_nor_on_the_opening():
    state = IrisState.new(board_size=4)
    assert "pass" not in legal_moves(state)  # Black's opening
    play(state, "(0, 0)")
    assert "pass" in legal_moves(state)  # start of White's turn
    assert "pass" not in legal_moves(play(state.clone(), "(0, -3)"))  # forced opposite
    assert "pass" not in legal_moves(play(state.clone(), "(2, -1)"))  # gray second stone


CENTRE_ONLY_GRAY_LEFT = """
  a b c
 f X O d
e O . X e
 d X O f
  c b a
"""


def test_decision_forced_and_forfeited_steps_are_one_action_decisions_by_default():
    state = play(IrisState.new(board_size=4), "(0, 0)", "(-3, 2)")
    assert legal_moves(state) == {(3, -2)}
    assert state.current_player == WHITE
    state = play(position(CENTRE_ONLY_GRAY_LEFT), "(0, 0)")
    assert legal_moves(state) == {"pass"}
    assert state.current_player == WHITE


def test_decision_auto_forced_plays_forced_and_forfeited_steps_by_itself():
    state = play(IrisState.new(board_size=4, auto_forced=True), "(0, 0)", "(-3, 2)")
    assert state.current_player == BLACK
    assert stones(state)[WHITE] == [(-3, 2), (3, -2)]
    state = play(position(CENTRE_ONLY_GRAY_LEFT, auto_forced=True), "(0, 0)")
    assert state.current_player == BLACK
    assert "pass" in legal_moves(state) and len(legal_moves(state)) > 1


def test_decision_a_forfeited_turn_is_not_a_pass():
    """Gap in the rules: "both players pass in consecutive turns"; a forfeit turn placed a stone."""
    state = play(position(CENTRE_ONLY_GRAY_LEFT, to_move=BLACK), "pass", "(0, 0)", "pass", "pass")
    assert not state.is_terminal


@pytest.mark.parametrize("auto_forced", [False, True])
def test_decision_rewards_plus_one_minus_one_and_zero_on_every_non_final_step(auto_forced):
    env = iris_v0.raw_env(board_size=3, auto_forced=auto_forced)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    while not env.terminations["player_0"]:
        assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        cells = legal[:-1] if len(legal) > 1 else legal
        env.step(int(cells[rng.integers(len(cells))]))
    winner = env.result_details()["winner"]
    assert winner in (0, 1)  # a full board: never a draw
    assert env.infos["player_0"]["winners"].tolist() == [int(winner == s) for s in (0, 1)]
    assert env.rewards[f"player_{winner}"] == 1.0
    assert env.rewards[f"player_{1 - winner}"] == -1.0


def test_decision_draw_rewards_zero_each():
    env = iris_v0.raw_env(board_size=3)
    env.reset(seed=0)
    for a in (env.game.coord_to_action(0, 0), env.game.pass_action, env.game.pass_action):
        env.step(a)
    assert env.result_details()["winner"] is None
    assert not env.infos["player_0"]["winners"].any()
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert all(env.terminations.values())


def test_decision_player_0_is_black_and_moves_first():
    env = iris_v0.raw_env(board_size=3, render_mode="ansi")
    env.reset(seed=0)
    assert env.possible_agents == ["player_0", "player_1"]
    assert env.agent_selection == "player_0"
    env.step(env.game.coord_to_action(1, -1))
    assert stones(env.game) == ([(1, -1)], [])  # player_0's stone is Black's X
    assert env.agent_selection == "player_1"
