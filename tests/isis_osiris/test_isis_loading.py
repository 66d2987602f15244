"""Saved Isis & Osiris states: a reachable one loads; anything else raises InvalidStateError.

The conformance suite mutates saved states at random (``test_conformance_loading.py``); these
are the named cases of the issue and of every invariant listed under "Saved states" in
``docs/isis_osiris.md``.
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
from tabletop_envs.core.errors import InvalidStateError
from tabletop_envs.games.isis_osiris import IsisOsirisState
from tabletop_envs.games.isis_osiris.rules import OVER, PLACE, TURN
from tabletop_envs.games.isis_osiris.tables import REVEAL, TILE_BASE

Edit = Callable[[dict[str, Any]], None]


def _three(*more: int) -> IsisOsirisState:
    """Seat 0 a stone on a1, seat 1 a tile on b2, seat 2 one on c2 (memory mode), then ``more``."""
    game = IsisOsirisState.new(seed=4, num_players=3, memory=True)
    for action in (0, REVEAL, TILE_BASE + 7, REVEAL, TILE_BASE + 8, *more):
        game.apply(action)
    return game


def _placing() -> IsisOsirisState:
    """Seat 0 has revealed a tile and must place it."""
    return _three(REVEAL)


def _over() -> IsisOsirisState:
    game = IsisOsirisState.new(seed=1, num_players=3)
    rng = np.random.default_rng(1)
    while not game.is_terminal:
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
    return game


def _set(**fields: Any) -> Edit:
    return lambda data: data.update(fields)


def _item(key: str, index: int, value: Any) -> Edit:
    def edit(data: dict[str, Any]) -> None:
        data[key][index] = value

    return edit


def _edits(*edits: Edit) -> Edit:
    def edit(data: dict[str, Any]) -> None:
        for one in edits:
            one(data)

    return edit


def _swap_stack_value(data: dict[str, Any]) -> None:
    stack = data["stacks"][0]
    stack[0] = next(v for v in (1, -1, 2) if v != stack[0])


# name: (state factory, edit of its saved data, field named by the error, problem regex)
CASES: dict[str, tuple[Callable[[], IsisOsirisState], Edit, str, str]] = {
    # The examples.
    "stones_left_40": (_three, _item("stones_left", 0, 40), "state.stones_left[0]", "0 to 6"),
    "stack_tile_of_value_0": (
        _three,
        lambda d: d["stacks"][1].__setitem__(0, 0),
        "state.stacks[1][0]",
        r"a tile value \[-4",
    ),
    "board_tile_of_value_minus_5": (
        _three,
        _item("tiles", 7, -5),
        "state.tiles[7]",
        r"0 \(none\) or a tile value",
    ),
    "owner_7": (_three, _item("owner", 3, 7), "state.owner[3]", "from -1 to 2"),
    # Fields of the wrong type or shape.
    "in_hand_huge": (_placing, _set(in_hand=2**31), "state.in_hand", "tile value"),
    "owner_too_short": (_three, lambda d: d["owner"].pop(), "state.owner", "36 items"),
    "four_stacks_for_three_players": (
        _three,
        lambda d: d["stacks"].append([]),
        "state.stacks",
        "3 items",
    ),
    "stack_not_a_list": (_three, _item("stacks", 2, 5), "state.stacks[2]", "must be a list"),
    "steps_a_string": (_three, _set(steps="5"), "state.steps", "integer"),
    "unknown_key": (_three, _set(extra=0), "state", r"unknown keys \['extra'\]"),
    # Squares and the tile set.
    "stone_and_tile_on_one_square": (
        _three,
        _item("owner", 7, 1),
        "state.tiles[7]",
        "holds a stone of seat 1 and a tile",
    ),
    "placement_step_of_a_square_without_tile": (
        _three,
        _item("placed_at", 0, 2),
        "state.placed_at[0]",
        "holds no tile",
    ),
    "a_tile_value_swapped_in_a_stack": (_three, _swap_stack_value, "state.tiles", "the game has"),
    "stack_longer_than_dealt": (
        _three,
        lambda d: d["stacks"][2].extend([1, 1]),
        "state.stacks[2]",
        "a stack is dealt 7",
    ),
    "box_without_its_tile": (
        _three,
        lambda d: d["unused"].clear(),
        "state.unused",
        "1 stay in the box",
    ),
    # Turns in seat order, material, phase.
    "stones_left_not_matching_the_board": (
        _three,
        _item("stones_left", 0, 6),
        "state.stones_left[0]",
        "so 5 left, got 6",
    ),
    "more_stones_than_dealt": (
        _three,
        _edits(lambda d: d["owner"].__setitem__(slice(10, 18), [0] * 8), _set(to_move=2)),
        "state.owner",
        "seat 0 has 9 stones on the board of its 6",
    ),
    "stone_of_the_wrong_seat": (
        _three,
        _edits(_item("owner", 0, 1), _set(stones_left=[6, 5, 6])),
        "state.stacks[0]",
        "seat 0 has played 0 stones and 0 tiles, but 1 turns",
    ),
    "wrong_seat_to_move": (_three, _set(to_move=1), "state.to_move", "the seat to move is 0"),
    "over_on_a_live_board": (_three, _set(phase=OVER), "state.phase", "not 'over'"),
    "live_on_a_full_board": (_over, _set(phase=TURN), "state.phase", "so the phase is over"),
    "over_with_another_last_mover": (
        _over,
        _set(to_move=0),
        "state.to_move",
        "filled the last square is 2",
    ),
    "placement_without_a_tile_in_hand": (
        _three,
        _set(phase=PLACE),
        "state.in_hand",
        "exactly in the",
    ),
    "tile_in_hand_at_the_start_of_a_turn": (
        _placing,
        _set(phase=TURN),
        "state.in_hand",
        "in the 'turn' phase",
    ),
    # The step record.
    "acted_at_after_the_last_step": (
        _three,
        _item("acted_at", 0, 6),
        "state.acted_at[0]",
        "from 0 to 5",
    ),
    "acted_at_not_its_last_step": (
        _three,
        _item("acted_at", 0, 2),
        "state.acted_at[0]",
        "last step at 1, got 2",
    ),
    "two_tiles_placed_at_one_step": (
        _three,
        _item("placed_at", 8, 3),
        "state.placed_at",
        "same step",
    ),
    "placement_step_not_ending_a_tile_turn": (
        _three,
        _item("placed_at", 8, 4),
        "state.placed_at",
        "do not end tile turns",
    ),
    "more_steps_than_turns": (_three, _set(steps=9), "state.steps", "make 7 turns, but 3 squares"),
    "reveal_step_not_the_movers_last": (
        _placing,
        _item("acted_at", 0, 1),
        "state.acted_at[0]",
        "last step at 6",
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_a_state_play_cannot_reach_is_refused_naming_the_field(name: str) -> None:
    make, edit, field, problem = CASES[name]
    game = make()
    data = json.loads(game.to_json())
    edit(data["state"])
    with pytest.raises(InvalidStateError, match=problem) as info:
        IsisOsirisState.from_json(json.dumps(data))
    assert info.value.field == field, info.value
    # Unpickling reads the same data and refuses it the same way.
    probe = IsisOsirisState.__new__(IsisOsirisState)
    with pytest.raises(InvalidStateError, match=problem):
        probe.__setstate__({"params": game.params, "rng": data["rng"], "state": data["state"]})


def test_the_unedited_states_of_the_cases_load() -> None:
    """The cases refuse their edit, not the position they start from."""
    for make, _, _, _ in CASES.values():
        game = make()
        assert IsisOsirisState.from_json(game.to_json()) == game


def test_a_corrupted_state_is_refused_before_apply_can_half_change_it() -> None:
    """The issue's ``stones_left=40`` used to load and raise IndexError inside ``apply``."""
    game = _three()
    game.stones_left[0] = 40
    env = tabletop_envs.make("isis_osiris_v0", num_players=3, memory=True)
    env.reset(seed=0)
    before = env.game.to_json()
    with pytest.raises(InvalidStateError, match=r"state\.stones_left\[0\]"):
        env.load_state(game)
    assert env.game.to_json() == before
    with pytest.raises(InvalidStateError, match=r"state\.stones_left\[0\]"):
        pickle.loads(pickle.dumps(game))
    with pytest.raises(InvalidStateError, match=r"state\.stones_left\[0\]"):
        copy.deepcopy(game)


BOARD = [
    "A +2 . . . .",
    ". . B . -3 .",
    ". . . . . .",
    ". . . . . .",
    ". . . . . .",
    ". . . . . .",
]


@pytest.mark.parametrize(
    ("num_players", "memory", "in_hand"),
    [(2, False, 0), (2, True, 0), (3, True, 0), (3, False, 4), (4, True, -1)],
)
def test_positions_laid_out_by_from_position_and_play_from_them_load(
    num_players: int, memory: bool, in_hand: int
) -> None:
    """A laid-out position starts a step record at 0: every state of games from it loads."""
    for seed in range(4):
        game = IsisOsirisState.from_position(
            BOARD, num_players=num_players, memory=memory, in_hand=in_hand, seed=seed
        )
        rng = np.random.default_rng(seed)
        while True:
            assert IsisOsirisState.from_json(game.to_json()) == game, game.render_text()
            if game.is_terminal:
                break
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])


def test_a_full_board_from_position_names_the_last_mover() -> None:
    """On a full board the seat "to move" is the one that filled the last square, as in play."""
    rows = [
        "A B +1 +1 +2 +2",
        "A B +2 +2 +2 +3",
        "A B +3 +4 -1 -1",
        "A B -2 -2 -2 -2",
        "A B -2 -3 -3 -4",
        "A B A B A B",
    ]
    game = IsisOsirisState.from_position(rows, num_players=2)
    assert game.is_terminal and game.to_move == 1
    assert IsisOsirisState.from_json(game.to_json()) == game
