"""Irk's flow: dealing, opening layout, the seven rounds, choices, reveals, box, discards."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tabletop_envs import InvalidStateError
from tabletop_envs.games.irk.rules import (
    CHOOSE,
    HAND_SIZE,
    OVER,
    PLACE,
    ROUND_KINDS,
    IrkState,
    opening_count,
)
from tests.irk.helpers import fits_nowhere, random_action, random_states, with_state

PLAYERS = [2, 3, 4]


@pytest.mark.parametrize("n", PLAYERS)
def test_deal_hands_opening_and_unused_tiles(n):
    game = IrkState.new(seed=5, num_players=n)
    assert [len(h) for h in game.hands] == [HAND_SIZE] * n
    assert len(game.placements) == opening_count(n) == (5 if n < 4 else 2)
    assert len(game.unused) == 30 - HAND_SIZE * n - opening_count(n)
    every = [t for h in game.hands for t in h] + game.unused + [x[1] for x in game.placements]
    assert sorted(every) == list(range(30))


@pytest.mark.parametrize("n", PLAYERS)
def test_opening_tiles_lie_upright_side_by_side_centred(n):
    t = 15
    game = IrkState.new(seed=2, num_players=n, table_size=t)
    k = opening_count(n)
    row, col = (t - 3) // 2, (t - k) // 2
    for j, (seat, tile, placement) in enumerate(game.placements):
        assert seat == -1
        assert game.action_to_placement(game.deck_size + placement) == (row, col + j, 0)
        for depth, square in enumerate(game.tiles[tile]):
            assert game.visible[(row + depth) * t + col + j] == square
    assert int(game.height.sum()) == 3 * k


def test_dealing_depends_on_the_seed_only():
    assert IrkState.new(seed=9) == IrkState.new(seed=9)
    assert IrkState.new(seed=9).hands != IrkState.new(seed=10).hands


@pytest.mark.parametrize("n", PLAYERS)
def test_seven_rounds_box_passing_and_turn_order(n):
    states = random_states(11, num_players=n)
    # who moves first in each round's choose phase = the box holder
    firsts = {}
    for before in states:
        if before.phase == CHOOSE and before.round not in firsts:
            firsts[before.round] = (before.to_move, before.box)
    assert sorted(firsts) == list(range(7))
    # the box passes after table rounds only: rounds bet/table/table/bet/table/table/bet
    expected_box = [0, 0, 1, 2, 2, 3, 4]
    assert [firsts[r] for r in range(7)] == [(b % n, b % n) for b in expected_box]
    assert ROUND_KINDS == ("bet", "table", "table", "bet", "table", "table", "bet")


@pytest.mark.parametrize("n", PLAYERS)
def test_choices_then_placements_go_round_from_the_box_holder(n):
    states = random_states(12, num_players=n)
    for rnd in range(7):
        in_round = [s for s in states if s.round == rnd and s.phase != OVER]
        box = in_round[0].box
        choosers = [s.to_move for s in in_round if s.phase == CHOOSE]
        assert choosers == [(box + k) % n for k in range(n)]
        placers = [s.to_move for s in in_round if s.phase == PLACE]
        if ROUND_KINDS[rnd] == "bet":
            assert placers == []
        else:
            discarded = {seat for seat, _, r in states[-1].discards if r == rnd}
            assert placers == [(box + k) % n for k in range(n) if (box + k) % n not in discarded]


@pytest.mark.parametrize("n", PLAYERS)
def test_bet_round_tiles_go_to_the_score_piles_all_at_once(n):
    states = random_states(13, num_players=n)
    for before, after in itertools.pairwise(states):
        if before.phase == CHOOSE and ROUND_KINDS[before.round] == "bet":
            if after.round == before.round:  # a secret choice: no pile changes
                assert after.piles == before.piles
            else:  # the last choice reveals every tile into its owner's pile
                for seat in range(n):
                    added = after.piles[seat][-1]
                    assert after.piles[seat][:-1] == before.piles[seat]
                    if seat == before.to_move:  # the last chooser's tile comes from its hand
                        assert added in before.hands[seat] and before.chosen[seat] == -1
                    else:
                        assert added == before.chosen[seat]
                assert all(c == -1 for c in after.chosen)


@pytest.mark.parametrize("n", PLAYERS)
def test_game_end_piles_of_three_empty_hands_and_length(n):
    states = random_states(14, num_players=n)
    end = states[-1]
    assert end.is_terminal and end.phase == OVER and end.current_player == -1
    assert all(len(p) == 3 for p in end.piles)
    assert all(h == [] for h in end.hands)
    assert len(end.placements) + len(end.discards) == opening_count(n) + 4 * n
    assert end.steps == len(states) - 1 == 11 * n - len(end.discards)
    assert end.steps <= end.spec.max_game_length
    assert not end.legal_mask().any()


def test_a_tile_with_no_legal_placement_is_discarded_automatically():
    """On a tiny crowded table tiles run out of placements: discarded with no step."""
    found = 0
    for seed in range(40):
        game = IrkState.new(seed=seed, num_players=4, table_size=5)
        rng = np.random.default_rng(seed)
        while not game.is_terminal:
            before = game.clone()
            action = random_action(game, rng)
            game.apply(action)
            new = game.discards[len(before.discards) :]
            for seat, tile, rnd in new:
                found += 1
                assert rnd == before.round
                # it was that seat's chosen tile (chosen before, or by this very step when it is
                # the round's last choice) and has no legal placement on the table it met (one
                # apply places at most one tile, before any discard it triggers)
                chosen_now = before.phase == CHOOSE and seat == before.to_move and action == tile
                assert before.chosen[seat] == tile or chosen_now
                assert game.chosen[seat] == -1 and tile not in game.hands[seat]
                assert all(tile != x[1] for x in game.placements)
                assert fits_nowhere(game, tile)
                # it is public from then on
                for viewer in range(4):
                    sec = game.layout.slice("revealed")
                    assert game.observation(viewer)[sec][tile] == 1
            if game.phase == PLACE:
                assert game.legal_mask().any()  # the mover always has a placement
        assert game.steps == 44 - len(game.discards)
    assert found > 10


def test_round_and_phase_names():
    game = IrkState.new(seed=0)
    assert game.round_kind == "bet"
    text = game.render_text(0)
    assert "round 1/7 (bet), choose phase: player_0 to move; box: player_0" in text
    assert "player_0 hand: #" in text
    assert "hand:" not in game.render_text()


def test_json_round_trip_and_inconsistent_states_are_refused():
    states = random_states(15, num_players=3, table_size=13)
    for game in states[::5]:
        assert IrkState.from_json(game.to_json()) == game
    game = states[3]
    twice = [list(h) for h in game.hands]
    twice[1][0] = twice[0][0]
    with pytest.raises(InvalidStateError, match="every tile of the deck is in exactly one place"):
        with_state(game, hands=twice)
    with pytest.raises(InvalidStateError, match="must be from 0 to 675"):
        with_state(game, placements=[[-1, t, 13 * 13 * 4] for _, t, _ in game.placements])


@pytest.mark.parametrize(("n", "size"), [(2, 31), (4, 6)])
def test_a_cell_shows_the_top_most_square_and_counts_its_stack(n, size):
    """Stacking, rebuilt independently from the list of placements at every step."""
    from tabletop_envs.games.irk.placement import footprint

    stacked = 0
    for game in random_states(16, num_players=n, table_size=size):
        stacks: dict[tuple[int, int], list[int]] = {}
        for _seat, tile, placement in game.placements:  # in the order they were laid
            cell, orientation = divmod(placement, 4)
            for square, rc in zip(
                game.tiles[tile], footprint(*divmod(cell, size), orientation), strict=True
            ):
                stacks.setdefault(rc, []).append(square)
        for r in range(size):
            for c in range(size):
                stack = stacks.get((r, c), [])
                assert game.visible[r * size + c] == (stack[-1] if stack else 0)
                assert game.height[r * size + c] == len(stack)
                stacked += len(stack) > 1
    assert stacked > 0
