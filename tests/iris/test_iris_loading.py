"""Saved Iris states: one the rules keep loads; anything else raises InvalidStateError.

The conformance suite mutates saved states at random (``test_conformance_loading.py``); these
are the named cases of the issue and of every invariant listed under "Saved states" in
``docs/iris.md``.
"""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tabletop_envs
from tabletop_envs.core.errors import InvalidParameterError, InvalidStateError
from tabletop_envs.games.iris import IrisState
from tabletop_envs.games.iris.rules import (
    BLACK,
    FIRST,
    FORFEIT,
    OPENING,
    OVER,
    SECOND_GRAY,
    SECOND_OPPOSITE,
    WHITE,
)
from tests.iris.boards import play, position
from tests.iris.test_iris_errors import CENTRE_ONLY_GRAY_LEFT

Edit = Callable[[IrisState, dict[str, Any]], None]


def _side4(*moves: str) -> IrisState:
    return play(IrisState.new(board_size=4, seed=7), *moves)


def _idx(state: IrisState, q: int, r: int) -> int:
    return state.coord_to_action(q, r)


def _edited(state: IrisState, edit: Edit) -> str:
    """Return the JSON of ``state`` with its state data changed by ``edit``."""
    data = json.loads(state.to_json())
    edit(state, data["state"])
    return json.dumps(data)


def _set(**fields: Any) -> Edit:
    def edit(_: IrisState, data: dict[str, Any]) -> None:
        data.update(fields)

    return edit


def _stone(q: int, r: int, value: int) -> Edit:
    def edit(state: IrisState, data: dict[str, Any]) -> None:
        data["board"][_idx(state, q, r)] = value

    return edit


def _raw(index: int, value: int) -> Edit:
    def edit(_: IrisState, data: dict[str, Any]) -> None:
        data["board"][index] = value

    return edit


def _full() -> IrisState:
    """Return a side-3 game played to a full board (passes only to forfeit)."""
    state = IrisState.new(board_size=3, seed=2)
    rng = np.random.default_rng(2)
    while not state.is_terminal:
        legal = [a for a in state.legal_actions() if a != state.pass_action]
        state.apply(int(rng.choice(legal or [state.pass_action])))
    return state


# name: (state factory, edit of its saved data, field named by the error, problem regex)
CASES: dict[str, tuple[Callable[[], IrisState], Edit, str, str]] = {
    # The examples.
    "colored_stone_without_its_opposite": (
        lambda: _side4("(0, 0)"),
        _stone(0, -3, 1),
        "state.board",
        r"opposite pairs by one player: \(0, -3\) holds a Black stone and its opposite "
        r"\(0, 3\) holds nothing",
    ),
    # Index 0 of the 7x7 array is (q, r) = (-3, -3): off the side-4 hexagon.
    "stone_on_an_off_board_array_cell": (
        lambda: _side4("(0, 0)"),
        _raw(0, 2),
        "state.board[0]",
        r"outside the side-4 hexagon and must be 0",
    ),
    "to_move_minus_one": (lambda: _side4("(0, 0)"), _set(to_move=-1), "state.to_move", "0 to 1"),
    "phase_minus_three": (lambda: _side4("(0, 0)"), _set(phase=-3), "state.phase", "0 to 5"),
    "board_value_minus_two": (_side4, _raw(24, -2), "state.board[24]", r"from 0 to 2, got -2"),
    # Fields of the wrong type or shape.
    "board_too_short": (_side4, lambda s, d: d["board"].pop(), "state.board", "49 items"),
    "board_value_a_float": (_side4, _raw(24, 1.0), "state.board[24]", "integer"),  # type: ignore[arg-type]
    "passed_last_an_int": (_side4, _set(passed_last=1), "state.passed_last", "true or false"),
    "to_move_a_bool": (lambda: _side4("(0, 0)"), _set(to_move=True), "state.to_move", "integer"),
    "unknown_key": (_side4, _set(extra=[]), "state", r"unknown keys \['extra'\]"),
    "missing_key": (_side4, lambda s, d: d.pop("steps"), "state", r"missing keys \['steps'\]"),
    "steps_beyond_max_game_length": (_side4, _set(steps=10**6), "state.steps", "from 0 to 112"),
    # The opening.
    "opening_with_a_stone": (
        lambda: _side4("(0, 0)", "pass"),
        _set(phase=OPENING, to_move=BLACK, passed_last=False),
        "state.phase",
        "the opening is Black's first stone",
    ),
    "opening_after_a_pass": (_side4, _set(passed_last=True), "state.passed_last", "opening"),
    "opening_after_steps": (_side4, _set(steps=1), "state.steps", "before the opening"),
    "empty_board_with_black_to_move_past_the_opening": (
        _side4,
        _set(phase=FIRST),
        "state.phase",
        "is the opening, not the 'first stone' phase",
    ),
    # The first stone of the turn and the phase.
    "second_stone_phase_without_a_first_stone": (
        lambda: _side4("(0, 0)", "(1, 0)"),
        _set(pending=-1),
        "state.pending",
        "must be the cell of the first stone",
    ),
    "first_stone_phase_with_a_first_stone": (
        lambda: _side4("(0, 0)"),
        lambda s, d: d.update(pending=_idx(s, 0, 0)),
        "state.pending",
        r"must be -1 \(no first stone\) in the 'first stone' phase",
    ),
    "first_stone_of_the_other_player": (
        lambda: _side4("(0, 0)", "(1, 0)"),
        lambda s, d: d.update(pending=_idx(s, 0, 0)),
        "state.pending",
        r"holds a Black stone, not a stone of the player to move \(a White stone\)",
    ),
    "forced_phase_after_a_gray_first_stone": (
        lambda: _side4("(0, 0)", "(1, 0)"),
        _set(phase=SECOND_OPPOSITE),
        "state.pending",
        r"'forced opposite' phase is on a colored cell, and \(1, 0\) is not",
    ),
    "gray_phase_after_a_colored_first_stone": (
        lambda: _side4("(0, 0)", "(0, -3)"),
        _set(phase=SECOND_GRAY),
        "state.pending",
        r"'second gray stone' phase is on a gray cell, and \(0, -3\) is not",
    ),
    "forced_cell_already_filled": (
        lambda: _side4("(0, 0)", "(0, -3)"),
        _stone(0, 3, 1),
        "state.board",
        r"\(0, 3\) opposite the first stone at \(0, -3\) must be empty",
    ),
    "forfeit_while_a_far_gray_cell_is_free": (
        lambda: _side4("(0, 0)", "(1, 0)"),
        _set(phase=FORFEIT),
        "state.phase",
        "exists, so the phase is 'second gray stone', not 'forfeit'",
    ),
    "second_gray_stone_with_no_free_far_cell": (
        lambda: play(position(CENTRE_ONLY_GRAY_LEFT, to_move=WHITE), "(0, 0)"),
        _set(phase=SECOND_GRAY),
        "state.phase",
        "does not exist, so the phase is 'forfeit', not 'second gray stone'",
    ),
    # The end.
    "live_game_on_a_full_board": (
        _full,
        _set(phase=FIRST),
        "state.phase",
        "the board is full, so the game is over",
    ),
    "over_with_empty_cells_and_no_pass": (
        lambda: _side4("(0, 0)"),
        _set(phase=OVER),
        "state.phase",
        "it ends on a full board or on two passes in a row",
    ),
    "over_with_a_first_stone": (
        lambda: _side4("(0, 0)", "pass", "pass"),
        lambda s, d: d.update(pending=_idx(s, 0, 0)),
        "state.pending",
        "'over' phase",
    ),
    # The step count.
    "more_steps_than_the_stones_allow": (
        lambda: _side4("(0, 0)"),
        _set(steps=6),
        "state.steps",
        r"6 steps cannot lead to 1 stones.*at most 5",
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_a_state_the_rules_cannot_reach_is_refused_naming_the_field(name: str) -> None:
    make, edit, field, problem = CASES[name]
    state = make()
    text = _edited(state, edit)
    with pytest.raises(InvalidStateError, match=problem) as info:
        IrisState.from_json(text)
    assert info.value.field.startswith(field), info.value
    assert isinstance(info.value, ValueError)
    # Unpickling reads the same data and refuses it the same way.
    data = json.loads(text)
    probe = IrisState.__new__(IrisState)
    with pytest.raises(InvalidStateError, match=problem):
        probe.__setstate__({"params": state.params, "rng": data["rng"], "state": data["state"]})


def test_the_unedited_states_of_the_cases_load() -> None:
    """The cases refuse their edit, not the position they start from."""
    for make, _, _, _ in CASES.values():
        state = make()
        assert IrisState.from_json(state.to_json()) == state


def test_invalid_state_error_is_exported_and_a_value_error() -> None:
    assert tabletop_envs.InvalidStateError is InvalidStateError
    err = InvalidStateError("state.board[3]", "must be 0")
    assert isinstance(err, ValueError)
    assert (err.field, err.problem) == ("state.board[3]", "must be 0")
    assert str(err) == "invalid saved state: state.board[3]: must be 0"


def test_env_load_state_refuses_a_corrupted_state_and_keeps_its_game() -> None:
    env = tabletop_envs.make("iris_v0", board_size=4)
    env.reset(seed=3)
    before = env.game.to_json()
    game = _side4("(0, 0)")
    game.board[_idx(game, 0, -3)] = 1  # a colored stone without its opposite
    with pytest.raises(InvalidStateError, match="opposite pairs"):
        env.load_state(game)
    assert env.game.to_json() == before


def test_a_corrupted_state_does_not_survive_a_copy() -> None:
    game = _side4("(0, 0)")
    game.to_move = 7
    with pytest.raises(InvalidStateError, match=r"state\.to_move"):
        pickle.loads(pickle.dumps(game))
    with pytest.raises(InvalidStateError, match=r"state\.to_move"):
        copy.deepcopy(game)


@pytest.mark.parametrize(
    ("black", "white", "to_move", "passed_last"),
    [
        ((), (), BLACK, False),  # the opening
        ((), (), WHITE, False),  # White starts on an empty board
        ((), (), WHITE, True),
        (((0, 0),), (), WHITE, True),
        (((0, 0), (0, -3), (0, 3)), ((1, 0),), BLACK, False),
    ],
)
@pytest.mark.parametrize("auto_forced", [False, True])
def test_positions_laid_out_by_from_position_and_play_from_them_load(
    black: tuple, white: tuple, to_move: int, passed_last: bool, auto_forced: bool
) -> None:
    """Laid-out positions keep the same invariants as play: every state of games from them loads."""
    for seed in range(8):
        state = IrisState.from_position(
            board_size=4,
            black=black,
            white=white,
            to_move=to_move,
            passed_last=passed_last,
            auto_forced=auto_forced,
        )
        rng = np.random.default_rng(seed)
        while True:
            assert IrisState.from_json(state.to_json()) == state, state.render_text()
            if state.is_terminal:
                break
            legal = state.legal_actions()
            state.apply(legal[rng.integers(len(legal))])


def test_from_position_refuses_a_pass_before_the_opening() -> None:
    with pytest.raises(InvalidParameterError, match="passed_last must be False at the opening"):
        IrisState.from_position(to_move=BLACK, passed_last=True)
    with pytest.raises(InvalidParameterError, match="passed_last"):
        IrisState.from_position(to_move=WHITE, passed_last=1)  # type: ignore[arg-type]
