"""Loading a saved Irk state: each invariant of the rules refused by name, reachable states load."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

from tabletop_envs import InvalidStateError, irk_v0
from tabletop_envs.games.irk.rules import CHOOSE, PLACE, IrkState
from tests.irk.helpers import random_action, random_states


def saved(game: IrkState) -> dict:
    """Return the JSON data of ``game`` (to change and load again)."""
    return json.loads(game.to_json())


def refused(data: dict, field: str, match: str) -> InvalidStateError:
    """Assert that loading ``data`` raises InvalidStateError on ``field`` matching ``match``."""
    with pytest.raises(InvalidStateError, match=match) as info:
        IrkState.from_json(json.dumps(data))
    assert info.value.field == field, info.value
    return info.value


def first(states: list[IrkState], **where) -> IrkState:
    """Return the first state whose attributes have the given values."""
    return next(s for s in states if all(getattr(s, k) == v for k, v in where.items()))


STATES = random_states(21, num_players=3, table_size=13)


def test_round_7_in_the_choose_phase_is_refused():
    """The issue's case: it crashed on the next choice."""
    data = saved(STATES[0])
    data["state"]["round"] = 7
    refused(data, "state.round", "over exactly after round 7")


def test_a_chooser_already_holding_a_chosen_tile_is_refused():
    """The issue's case: it loaded, its tile vanished and the game deadlocked later."""
    game = first(STATES, phase=CHOOSE, round=2)
    data = saved(game)
    mover = game.to_move
    tile = data["state"]["hands"][mover].pop()
    data["state"]["chosen"][mover] = tile
    refused(data, f"state.chosen[{mover}]", "up to the mover")


def test_a_tile_in_two_places_or_nowhere_is_refused():
    data = saved(STATES[3])
    hands = data["state"]["hands"]
    hands[1][0] = hands[0][0]
    refused(data, "state.hands[1]", r"tile \d+ is also in hands\[0\]")
    data = saved(STATES[3])
    data["state"]["unused"][0] = data["state"]["placements"][0][1]
    refused(data, "state.placements[0]", "also in unused")


def test_hand_pile_and_unused_sizes_are_checked():
    game = first(STATES, phase=CHOOSE, round=4)
    data = saved(game)
    data["state"]["unused"].append(data["state"]["hands"][0].pop())
    refused(data, "state.hands[0]", "must hold")
    data = saved(game)
    data["state"]["piles"][1].append(data["state"]["hands"][1].pop())
    refused(data, "state.hands[1]", "must hold")
    data = saved(game)
    data["state"]["piles"][2].append(data["state"]["unused"].pop())
    refused(data, "state.piles[2]", r"one tile per bet round played \(2\)")


def test_phase_round_box_and_mover_must_fit():
    game = first(STATES, phase=CHOOSE, round=3)  # a bet round
    data = saved(game)
    data["state"]["phase"] = PLACE
    refused(data, "state.phase", "bet round")
    data = saved(game)
    data["state"]["box"] = (game.box + 1) % 3
    refused(data, "state.box", "passes after each table round")
    data = saved(STATES[-1])
    data["state"]["to_move"] = (STATES[-1].box + 1) % 3
    refused(data, "state.to_move", "box holder")
    data = saved(STATES[-1])
    data["state"]["phase"] = CHOOSE
    refused(data, "state.round", "over exactly after round 7")


def test_steps_must_count_the_moves_made():
    data = saved(STATES[10])
    data["state"]["steps"] += 1
    refused(data, "state.steps", "choices and placements made")


def test_placements_are_replayed_with_the_placement_rules():
    game = first(STATES, phase=CHOOSE, round=5)
    data = saved(game)
    placements = data["state"]["placements"]
    placements[0][2] += 4  # an opening tile moved one cell right
    refused(data, "state.placements[0]", "opening tile 0 lies upright")
    data = saved(game)
    placements = data["state"]["placements"]
    placements[5][2] = 0  # a played tile moved to the corner, far from every tile
    refused(data, "state.placements[5]", "neither covers nor shares an edge")
    data = saved(game)
    placements = data["state"]["placements"]
    placements[5][0], placements[6][0] = placements[6][0], placements[5][0]  # wrong order
    refused(data, "state.placements", "neither placed nor discarded")
    data = saved(game)
    data["state"]["placements"].append([0, data["state"]["unused"].pop(), 0])
    with pytest.raises(InvalidStateError, match="state"):
        IrkState.from_json(json.dumps(data))


def test_discards_only_of_tiles_with_no_legal_placement():
    game = first(STATES, phase=CHOOSE, round=2)  # after the first table round
    data = saved(game)
    state = data["state"]
    seat, tile, _ = state["placements"][-1]
    state["placements"].pop()
    state["discards"].append([seat, tile, 1])
    refused(data, "state.discards[0]", "had a legal placement in round 2")


def _with_discards() -> list[IrkState]:
    """Return every state of crowded random games (4 players, 5 x 5 table) that hold discards."""
    out = []
    for seed in range(12):
        game = IrkState.new(seed=seed, num_players=4, table_size=5)
        rng = np.random.default_rng(seed)
        while not game.is_terminal:
            game.apply(random_action(game, rng))
            out.append(game.clone())
    return [s for s in out if s.discards]


def test_every_state_of_crowded_games_with_discards_loads_equal():
    states = _with_discards()
    assert len(states) > 50
    for state in states:
        again = IrkState.from_json(state.to_json())
        assert again == state and again.to_json() == state.to_json()


def test_a_discard_moved_to_another_round_is_refused():
    state = next(s for s in _with_discards() if s.discards[0][2] > 1)
    data = saved(state)
    data["state"]["discards"][0][2] -= 1
    with pytest.raises(InvalidStateError, match=r"state\.(placements|discards)"):
        IrkState.from_json(json.dumps(data))


def test_the_mover_must_have_a_legal_placement_in_the_place_phase():
    """A revealed tile with no legal placement is discarded before its turn, never to move."""
    for seed in range(12):
        for state in random_states(seed, num_players=4, table_size=5):
            if state.phase != PLACE:
                continue
            mover = state.to_move
            stuck = [t for t in state.hands[mover] if not len(state.placements_of(t))]
            if stuck:
                data = saved(state)
                hand = data["state"]["hands"][mover]
                hand[hand.index(stuck[0])] = state.chosen[mover]
                data["state"]["chosen"][mover] = stuck[0]
                refused(data, f"state.chosen[{mover}]", "has no legal placement")
                return
    raise AssertionError("no place step whose mover holds a tile that fits nowhere")


def test_unpickling_and_load_state_check_the_same_way():
    game = first(STATES, phase=CHOOSE, round=2)
    bad = game.clone()
    bad.round = 7
    with pytest.raises(InvalidStateError, match=r"state\.round"):
        pickle.loads(pickle.dumps(bad))
    env = irk_v0.env(num_players=3, table_size=13)
    env.reset(seed=1)
    before = env.game.to_json()
    with pytest.raises(InvalidStateError, match=r"state\.round"):
        env.load_state(bad)
    assert env.game.to_json() == before
    env.load_state(game)
    assert env.game == game


def test_wrong_types_are_refused_by_field():
    data = saved(STATES[2])
    data["state"]["hands"][0][0] = "3"
    refused(data, "state.hands[0][0]", "integer")
    data = saved(STATES[2])
    data["state"]["placements"][1] = [1, 2]
    refused(data, "state.placements[1]", "3 items")
    data = saved(STATES[2])
    del data["state"]["box"]
    refused(data, "state", "missing keys")
