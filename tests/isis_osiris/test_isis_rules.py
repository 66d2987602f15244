"""Named tests for every rule and Decision of ``rules/isis_osiris.md`` (scoring aside)."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from tabletop_envs.core.errors import IllegalActionError, InvalidParameterError, InvalidStateError
from tabletop_envs.games.isis_osiris import IsisOsirisState
from tabletop_envs.games.isis_osiris.rules import PLACE, TURN
from tabletop_envs.games.isis_osiris.tables import (
    MATERIAL,
    NUM_ACTIONS,
    REVEAL,
    TILE_BASE,
    coord_to_square,
    max_game_length,
    square_name,
    square_to_coord,
)

MIX = Counter({1: 2, 2: 6, 3: 2, 4: 1, -1: 2, -2: 6, -3: 2, -4: 1})
EMPTY = [". . . . . ."] * 6


def play_policy(game: IsisOsirisState, prefer: str, rng: np.random.Generator) -> int:
    """Play to the end preferring ``"stone"`` or ``"tile"`` turns; return the step count."""
    steps = 0
    while not game.is_terminal:
        legal = game.legal_actions()
        assert legal, "a seat to move always has a legal action"
        if game.phase == TURN:
            stones = [a for a in legal if a < TILE_BASE]
            if (prefer == "tile" and REVEAL in legal) or not stones:
                action = REVEAL
            else:
                action = int(rng.choice(stones))
        else:
            action = int(rng.choice(legal))
        game.apply(action)
        steps += 1
    return steps


# ---- components and set-up ---------------------------------------------------------------
def test_tile_mix_is_22_tiles_summing_to_zero() -> None:
    """The 22 Isis tiles: +1 x2, +2 x6, +3 x2, +4 x1 and their negatives."""
    game = IsisOsirisState.new(seed=0)
    tiles = [v for s in game.stacks for v in s] + game.unused
    assert Counter(tiles) == MIX and len(tiles) == 22 and sum(tiles) == 0


@pytest.mark.parametrize(
    ("num_players", "stones", "tiles", "unused"), [(2, 8, 11, 0), (3, 6, 7, 1), (4, 5, 5, 2)]
)
def test_material_per_player_count(num_players: int, stones: int, tiles: int, unused: int) -> None:
    """Stones and tiles each and unused tiles follow the rules table."""
    assert MATERIAL[num_players] == (stones, tiles, unused)
    for seed in range(5):
        game = IsisOsirisState.new(seed=seed, num_players=num_players)
        assert game.stones_left == [stones] * num_players
        assert [len(s) for s in game.stacks] == [tiles] * num_players
        assert len(game.unused) == unused
        assert Counter([v for s in game.stacks for v in s] + game.unused) == MIX


def test_stacks_are_dealt_from_the_seeded_shuffle() -> None:
    """The same seed deals the same stacks; other seeds deal others."""
    a, b = IsisOsirisState.new(seed=5), IsisOsirisState.new(seed=5)
    assert a.stacks == b.stacks and a.unused == b.unused
    deals = {tuple(map(tuple, IsisOsirisState.new(seed=s).stacks)) for s in range(10)}
    assert len(deals) == 10


def test_the_board_starts_empty_and_seat_0_moves_first() -> None:
    """An empty 6x6 board; ``player_0`` (seat 0) opens."""
    game = IsisOsirisState.new(seed=0, num_players=3)
    assert game.owner == [-1] * 36 and game.tiles == [0] * 36
    assert game.current_player == 0 and game.phase == TURN


# ---- the two kinds of turn -----------------------------------------------------------------
def test_turn_offers_a_stone_on_every_empty_square_or_a_reveal() -> None:
    """At the start of a turn: stone ids on empty squares plus reveal; no tile ids."""
    game = IsisOsirisState.new(seed=0)
    assert game.legal_actions() == [*range(36), REVEAL]
    game.apply(coord_to_square(2, 3))
    assert game.legal_actions() == [a for a in range(36) if a != 15] + [REVEAL]


def test_turns_pass_in_seat_order() -> None:
    """Seats move 0, 1, 2, 0, ... and a tile turn (two steps) counts as one turn."""
    game = IsisOsirisState.new(seed=0, num_players=3)
    movers = []
    for action in (0, REVEAL, TILE_BASE + 1, 2, 3, REVEAL, TILE_BASE + 4):
        movers.append(game.current_player)
        game.apply(action)
    assert movers == [0, 1, 1, 2, 0, 1, 1]
    assert game.current_player == 2


def test_reveal_must_be_followed_by_placing_that_tile() -> None:
    """After reveal only tile ids on empty squares are legal, for the same seat, and the tile
    placed is the top tile of the mover's stack."""
    game = IsisOsirisState.new(seed=3)
    game.apply(0)  # seat 0 stone on a1
    top = game.stacks[1][-1]
    size = len(game.stacks[1])
    game.apply(REVEAL)
    assert game.phase == PLACE and game.current_player == 1
    assert game.in_hand == top and len(game.stacks[1]) == size - 1
    assert game.legal_actions() == list(range(TILE_BASE + 1, REVEAL))
    for action, why in ((5, "revealed tile must be placed"), (REVEAL, "already revealed")):
        before = game.to_json()
        with pytest.raises(IllegalActionError, match=why):
            game.apply(action)
        assert game.to_json() == before
    with pytest.raises(IllegalActionError, match="not empty"):
        game.apply(TILE_BASE + 0)
    game.apply(TILE_BASE + 7)
    assert game.tiles[7] == top and game.in_hand == 0
    assert game.current_player == 0 and game.phase == TURN


def test_a_tile_cannot_be_placed_without_revealing() -> None:
    """Tile ids are illegal at the start of a turn."""
    game = IsisOsirisState.new(seed=0)
    with pytest.raises(IllegalActionError, match="only after revealing"):
        game.apply(TILE_BASE + 3)


def test_forced_tile_when_no_stones_left() -> None:
    """A seat without stones must reveal: the mask is reveal only."""
    board = [
        "A B A B A B",
        "A B A B A B",
        "A B A B . .",
        ". . . . . .",
        ". . . . . .",
        "+1 -1 . . . .",
    ]
    game = IsisOsirisState.from_position(board)  # 8 stones each, 2 tiles: seat 0 to move
    assert game.current_player == 0 and game.stones_left == [0, 0]
    assert game.legal_actions() == [REVEAL]
    with pytest.raises(IllegalActionError, match="no stones left"):
        game.apply(coord_to_square(3, 0))


def test_forced_stone_when_no_tiles_left() -> None:
    """A seat whose stack is empty must place a stone: no reveal id."""
    rows = [
        "+2 +2 +2 +2 +2 +2",
        "-2 -2 -2 -2 -2 -2",
        "+1 +1 -1 -1 +3 +3",
        "-3 -3 +4 -4 . .",
        ". . . . . .",
        ". . . . . .",
    ]
    game = IsisOsirisState.from_position(rows)  # 22 tiles, 11 turns each: stacks empty
    assert [len(s) for s in game.stacks] == [0, 0] and game.current_player == 0
    assert game.legal_actions() == [a for a in range(36) if game.owner[a] < 0 and not game.tiles[a]]
    with pytest.raises(IllegalActionError, match="no tiles left"):
        game.apply(REVEAL)


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("prefer", ["stone", "tile"])
def test_every_player_can_make_all_of_its_turns(num_players: int, prefer: str) -> None:
    """Whatever kinds a seat prefers, it always has a legal action until the board is full."""
    for seed in range(5):
        game = IsisOsirisState.new(seed=seed, num_players=num_players)
        play_policy(game, prefer, np.random.default_rng(seed))
        assert game.filled == 36


# ---- end of the game --------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_game_ends_when_the_last_square_is_filled(num_players: int) -> None:
    """The game ends exactly at the 36th placement; unplayed material is left over."""
    game = IsisOsirisState.new(seed=1, num_players=num_players)
    rng = np.random.default_rng(1)
    placements = 0
    while not game.is_terminal:
        action = int(rng.choice(game.legal_actions()))
        game.apply(action)
        placements += action != REVEAL
        assert game.is_terminal == (placements == 36)
    assert game.current_player == -1 and not game.legal_mask().any()
    stones, tiles, _ = MATERIAL[num_players]
    turns = 36 // num_players
    assert sum(game.stones_left) + sum(map(len, game.stacks)) == num_players * (
        stones + tiles - turns
    )


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_max_game_length_is_reached_when_tiles_are_preferred(num_players: int) -> None:
    """36 placements plus one reveal per tile; tile-first play reaches the declared bound."""
    game = IsisOsirisState.new(seed=0, num_players=num_players)
    steps = play_policy(game, "tile", np.random.default_rng(0))
    assert steps == game.steps == game.spec.max_game_length == max_game_length(num_players)
    assert max_game_length(num_players) == {2: 58, 3: 57, 4: 56}[num_players]


def test_play_after_the_end_is_rejected() -> None:
    """No action is legal once the game is over."""
    game = IsisOsirisState.new(seed=0)
    play_policy(game, "stone", np.random.default_rng(0))
    with pytest.raises(IllegalActionError, match="game is over"):
        game.apply(0)


# ---- parameters, spec, actions ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 1}, "num_players must be from 2 to 4"),
        ({"num_players": 5}, "num_players must be from 2 to 4"),
        ({"num_players": "2"}, "num_players must be an integer"),
        ({"memory": 1}, "memory must be True or False"),
        ({"reward": "points"}, "reward must be one of 'win_loss', 'score'"),
    ],
)
def test_bad_parameters_name_the_valid_values(kwargs: dict, message: str) -> None:
    """Bad parameters raise InvalidParameterError naming what is valid."""
    with pytest.raises(InvalidParameterError, match=message):
        IsisOsirisState.new(seed=0, **kwargs)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_spec_declares_actions_shape_and_rewards(num_players: int) -> None:
    """73 actions, a (6, 6, C) observation with named channels, -1..1 or the score bound."""
    game = IsisOsirisState.new(seed=0, num_players=num_players)
    spec = game.spec
    assert spec.num_actions == NUM_ACTIONS == 73 and spec.num_players == num_players
    assert spec.observation_shape == (6, 6, len(spec.observation_channels))
    assert len(spec.observation_channels) == 26 + 3 * num_players
    assert spec.reward_range == (-1.0, 1.0)
    bound = {2: 80.0, 3: 64.0, 4: 56.0}[num_players]
    score = IsisOsirisState.new(seed=0, num_players=num_players, reward="score")
    assert score.spec.reward_range == (-bound, bound)


def test_action_ids_and_square_helpers() -> None:
    """Stone ids 0-35, tile ids 36-71, reveal 72; squares are row-major (row 0 on top)."""
    game = IsisOsirisState.new(seed=0)
    assert square_to_coord(0) == (0, 0) and square_to_coord(35) == (5, 5)
    assert square_to_coord(8) == (1, 2) and coord_to_square(1, 2) == 8
    assert all(coord_to_square(*square_to_coord(s)) == s for s in range(36))
    assert game.stone_action(1, 2) == 8 and game.tile_action(1, 2) == 44
    assert game.reveal_action == 72
    assert game.action_to_coord(44) == (1, 2) and game.action_to_coord(8) == (1, 2)
    assert square_name(8) == "c2"
    assert [game.action_to_string(a) for a in (8, 44, 72)] == ["stone c2", "tile c2", "reveal"]
    for bad in (-1, 36, 2.0, True):
        with pytest.raises(ValueError):
            square_to_coord(bad)
    with pytest.raises(ValueError, match="row must be from 0 to 5"):
        coord_to_square(6, 0)
    with pytest.raises(ValueError, match="reveal"):
        game.action_to_coord(72)


def test_action_to_string_rejects_bad_ids() -> None:
    """Names are given for ids 0-72 only; anything else is a ValueError, not a wrong name."""
    game = IsisOsirisState.new(seed=0)
    assert game.action_to_string(np.int64(72)) == "reveal"
    assert [game.action_to_string(a) for a in (0, 35, 36, 71)] == [
        "stone a1",
        "stone f6",
        "tile a1",
        "tile f6",
    ]
    for bad in (-1, 73, 100, 72.0, True, "3"):
        with pytest.raises(ValueError, match="action id"):
            game.action_to_string(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda g: g.square_to_coord(2.0), "square must be an integer from 0 to 35"),
        (lambda g: g.coord_to_square(0.5, 0), "row must be an integer from 0 to 5"),
        (lambda g: g.coord_to_square(0, True), "col must be an integer from 0 to 5"),
        (lambda g: g.stone_action(0, 6), "col must be from 0 to 5, got 6"),
        (lambda g: g.tile_action("1", 2), "row must be an integer from 0 to 5"),
        (lambda g: g.action_to_coord("40"), "action id must be an integer from 0 to 72"),
        (lambda g: g.action_to_coord(-1), "action id must be from 0 to 72, got -1"),
        (lambda g: g.action_to_string(np.bool_(True)), "action id must be an integer"),
    ],
)
def test_helpers_name_the_argument_and_its_range(call, message) -> None:
    """Every helper raises InvalidParameterError (a ValueError) naming what was wrong."""
    with pytest.raises(InvalidParameterError, match=message):
        call(IsisOsirisState.new(seed=0))


class Annotated(IsisOsirisState):
    """A subclass, to check that ``clone`` keeps the type."""


@pytest.mark.parametrize("memory", [False, True])
def test_clone_is_independent_and_keeps_the_subclass(memory: bool) -> None:
    """``clone`` is ``type(self)`` and shares no mutable field or cache with the original:
    playing the clone to the end changes no field, observation, mask or count of the original,
    which then plays the same moves to the same observations; a finished clone's result and
    returns are its own."""
    rng = np.random.default_rng(0)
    game = Annotated.new(seed=1, num_players=3, memory=memory)
    for _ in range(9):
        game.apply(REVEAL if game.phase == TURN else int(rng.choice(game.legal_actions())))
    assert game.phase == PLACE  # a tile in hand: every kind of field is in use
    before = game.to_json()
    views = [game.observation(s) for s in range(3)]
    mask, unseen = game.legal_mask(), game.unseen_counts()
    clone = game.clone()
    assert type(clone) is Annotated and clone == game
    probe = game.clone()
    probe.unused.append(4)
    probe.rng.random()
    assert game.to_json() == before
    trace = []
    while not clone.is_terminal:  # tile-heavy, so that stacks run out (forced stones)
        legal = clone.legal_actions()
        action = REVEAL if REVEAL in legal and rng.random() < 0.7 else int(rng.choice(legal))
        clone.apply(action)
        trace.append((action, [clone.observation(s) for s in range(3)], clone.legal_mask()))
    assert game.to_json() == before and not game.is_terminal
    assert all(np.array_equal(game.observation(s), views[s]) for s in range(3))
    assert np.array_equal(game.legal_mask(), mask) and game.unseen_counts() == unseen
    assert game.returns().tolist() == [0.0] * 3 and game.result_info() == {}
    for action, obs, legal in trace:  # the original plays on like its clone did
        game.apply(action)
        assert all(np.array_equal(game.observation(s), obs[s]) for s in range(3))
        assert np.array_equal(game.legal_mask(), legal)
    assert game == clone and game.result_info() == clone.result_info()
    assert not any(game.stacks)  # the forced-stone mask was used
    result, returns = game.result_info(), game.returns()
    done = game.clone()
    done._result["scores"].append(99)
    done._result["winners"].append(99)
    done._returns[:] = 7.0
    assert game.result_info() == result and np.array_equal(game.returns(), returns)


@pytest.mark.parametrize("action", [-1, 73, 1.5, "3", None, True])
def test_malformed_actions_are_rejected_without_change(action: object) -> None:
    """Ids out of range or of the wrong type raise IllegalActionError; the state is kept."""
    game = IsisOsirisState.new(seed=0)
    before = game.to_json()
    with pytest.raises(IllegalActionError):
        game.apply(action)  # type: ignore[arg-type]
    assert game.to_json() == before


def test_numpy_integer_actions_are_accepted() -> None:
    """``np.int64`` ids work like ints."""
    game = IsisOsirisState.new(seed=0)
    game.apply(np.int64(4))
    assert game.owner[4] == 0


def test_from_position_rejects_impossible_material() -> None:
    """A board no game can reach is refused with a reason."""
    with pytest.raises(ValueError, match="impossible"):
        IsisOsirisState.from_position(["A A A A A A", "A A A . . .", *EMPTY[:4]])
    with pytest.raises(ValueError, match="token"):
        IsisOsirisState.from_position(["+4 +4 . . . .", *EMPTY[:5]])


def test_from_position_with_a_tile_in_hand() -> None:
    """``in_hand`` starts the placement step of the seat to move; bad values are refused."""
    game = IsisOsirisState.from_position(["A . . . . .", *EMPTY[:5]], in_hand=4)
    assert game.phase == PLACE and game.current_player == 1 and game.in_hand == 4
    assert len(game.stacks[1]) == 10 and game.legal_actions() == list(range(37, 72))
    with pytest.raises(ValueError, match="in_hand"):
        IsisOsirisState.from_position(["+4 . . . . .", *EMPTY[:5]], in_hand=4)


def test_memory_record_survives_json_clone_and_counts_in_equality() -> None:
    """``placed_at`` (step of each tile's placement) and ``acted_at`` (step of each seat's last
    action) are state: JSON and ``clone`` keep them (so every seat's memory-mode view), they
    take part in equality, and a record of the wrong size is refused."""
    game = IsisOsirisState.new(seed=4, num_players=3, memory=True)
    for action in (0, REVEAL, TILE_BASE + 7, REVEAL, TILE_BASE + 8):
        game.apply(action)  # seat 0 stone, seat 1 tile on b2, seat 2 tile on c2
    assert game.acted_at == [1, 3, 5] and game.placed_at[7:9] == [3, 5]
    for copy in (IsisOsirisState.from_json(game.to_json()), game.clone()):
        assert copy == game and (copy.placed_at, copy.acted_at) == (game.placed_at, game.acted_at)
        for seat in range(3):
            assert np.array_equal(copy.observation(seat), game.observation(seat))
            assert copy.render_text(seat) == game.render_text(seat)
            assert copy.unseen_counts(seat) == game.unseen_counts(seat)
    other = game.clone()
    other.acted_at[0] = 6  # as if seat 0 had acted after the last reveal: another view
    assert other != game
    data = json.loads(game.to_json())
    data["state"]["placed_at"] = data["state"]["placed_at"][:35]
    with pytest.raises(InvalidStateError, match="placed_at"):
        IsisOsirisState.from_json(json.dumps(data))
