"""The core contract on every case: clone, JSON round trip (RNG included), equality, and
hidden-information resampling."""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import numpy as np
import pytest

from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.core.game import GameState
from tests.conformance.cases import (
    CASES,
    assert_same_game_view,
    game_class,
    mid_game_states,
    new_game,
    play_out,
    random_action,
    random_trajectory,
)

RESAMPLE_GAMES = 3  # games resampled at every step
RESAMPLE_PLAYOUTS = 4  # resampled states per game and seat played to the end


def _play_both(a: GameState, b: GameState, seed: int, what: str) -> None:
    """Play ``a`` and ``b`` on with the same random actions, asserting they stay identical."""
    rng = np.random.default_rng(seed)
    step = 0
    while not a.is_terminal:
        assert_same_game_view(a, b, f"{what}, step {step}")
        action = random_action(a, rng)
        a.apply(action)
        b.apply(action)
        step += 1
    assert_same_game_view(a, b, f"{what}, end")
    assert np.array_equal(a.returns(), b.returns()), f"{what}: returns differ"
    assert a.result_info() == b.result_info(), f"{what}: result_info differs"


@pytest.mark.parametrize(("name", "params"), CASES)
def test_clone_equal_independent_and_plays_on(name: str, params: dict[str, Any]) -> None:
    """A mid-game clone equals the original, is independent, and plays on identically."""
    for k, game in enumerate(mid_game_states(name, params, seed=3)):
        where = f"state {k}"
        clone = game.clone()
        assert clone is not game and type(clone) is type(game), where
        assert_same_game_view(game, clone, where)
        before = game.to_json()
        mutated = game.clone()
        mutated.rng.integers(2**32, size=3)  # drawing from the clone's RNG ...
        if not mutated.is_terminal:
            mutated.apply(random_action(mutated, np.random.default_rng(k)))  # ... and playing
        assert game.to_json() == before, f"{where}: changing a clone changed the original"
        assert game == clone, where
        _play_both(game, clone, seed=k, what=f"{where} clone")


@pytest.mark.parametrize(("name", "params"), CASES)
def test_json_round_trip_plays_on_identically(name: str, params: dict[str, Any]) -> None:
    """``from_json(to_json())`` mid-game restores an equal state, RNG position included."""
    cls = game_class(name)
    for k, game in enumerate(mid_game_states(name, params, seed=4)):
        where = f"state {k}"
        text = game.to_json()
        assert json.loads(text)["game"] == cls.game_name, where
        restored = cls.from_json(text)
        assert type(restored) is cls, where
        assert restored.params == game.params, where
        assert restored.to_json() == text, f"{where}: JSON not stable through a round trip"
        assert_same_game_view(game, restored, where)
        draws = [s.clone().rng.integers(2**62, size=8).tolist() for s in (game, restored)]
        assert draws[0] == draws[1], f"{where}: the restored RNG draws differently"
        _play_both(game, restored, seed=k, what=f"{where} JSON")


@pytest.mark.parametrize(("name", "params"), CASES)
def test_from_json_rejects_foreign_text(name: str, params: dict[str, Any]) -> None:
    """``from_json`` names the problem for another game's or another format's JSON."""
    cls = game_class(name)
    data = json.loads(new_game(name, params, 0).to_json())
    with pytest.raises(ValueError, match="no_such_game"):
        cls.from_json(json.dumps({**data, "game": "no_such_game"}))
    with pytest.raises(ValueError, match="format"):
        cls.from_json(json.dumps({**data, "format": -1}))


@pytest.mark.parametrize(("name", "params"), CASES)
def test_state_equality(name: str, params: dict[str, Any]) -> None:
    """``__eq__`` compares parameters, RNG position and state; states are unhashable."""
    a = new_game(name, params, seed=5)
    assert a == new_game(name, params, seed=5)
    assert a != new_game(name, params, seed=6)  # at least the RNG differs
    assert a != "a state"
    assert a.__eq__(object()) is NotImplemented
    with pytest.raises(TypeError):
        hash(a)
    b = a.clone()
    b.rng.integers(10)
    assert a != b, "states with different RNG positions compare equal"
    states = random_trajectory(name, params, seed=5)
    for step, (s, t) in enumerate(itertools.pairwise(states)):
        assert s != t, f"step {step}: an action left the state equal"


@pytest.mark.parametrize(("name", "params"), CASES)
def test_resample_hidden_keeps_every_view(name: str, params: dict[str, Any]) -> None:
    """``resample_hidden(seat)`` keeps seat's observation (and mask if it moves) and plays on."""
    for seed in range(RESAMPLE_GAMES):
        states = random_trajectory(name, params, seed=100 + seed)
        n = len(states)
        playout_steps = {round(i * (n - 1) / RESAMPLE_PLAYOUTS) for i in range(RESAMPLE_PLAYOUTS)}
        for step, game in enumerate(states):
            before = game.clone()
            for seat in range(game.num_players):
                where = f"game {seed} step {step} seat {seat}"
                rng = np.random.default_rng([seed, step, seat])
                drawn = game.resample_hidden(seat, rng)
                assert type(drawn) is type(game) and drawn is not game, where
                assert drawn.params == game.params, where
                assert np.array_equal(drawn.observation(seat), game.observation(seat)), (
                    f"{where}: resampling changed the seat's own observation"
                )
                assert drawn.current_player == game.current_player, where
                assert drawn.is_terminal == game.is_terminal, where
                if seat == game.current_player:
                    assert np.array_equal(drawn.legal_mask(), game.legal_mask()), (
                        f"{where}: resampling changed the mover's legal actions"
                    )
                again = game.resample_hidden(seat, np.random.default_rng([seed, step, seat]))
                assert again == drawn, f"{where}: resampling with equal RNGs differs"
                if step in playout_steps:
                    assert type(drawn).from_json(drawn.to_json()) == drawn, where
                    play_out(drawn, np.random.default_rng(step))
                    low, high = drawn.spec.reward_range
                    assert ((drawn.returns() >= low) & (drawn.returns() <= high)).all(), where
            assert game == before, f"game {seed} step {step}: resample_hidden changed the state"


@pytest.mark.parametrize(("name", "params"), CASES)
def test_clone_keeps_a_subclass(name: str, params: dict[str, Any]) -> None:
    """Users subclass game states (instrumentation, variants): clone() must keep their class."""
    sub = type("InstrumentedState", (game_class(name),), {})
    game = sub.new(seed=5, **params)
    game.apply(random_action(game, np.random.default_rng(5)))
    assert type(game.clone()) is sub


@pytest.mark.parametrize(("name", "params"), CASES)
def test_seat_arguments_are_checked(name: str, params: dict[str, Any]) -> None:
    """A seat outside ``0..n-1``, or not an integer, is refused, never read as another seat.

    A negative seat would otherwise index from the end (the last seat's private view).
    """
    game = mid_game_states(name, params, seed=3)[-1]
    before = game.clone()
    n = game.num_players
    calls = {
        "observation": lambda seat: game.observation(seat),
        "resample_hidden": lambda seat: game.resample_hidden(seat, np.random.default_rng(0)),
        "render_text": lambda seat: game.render_text(seat),
    }
    for method, call in calls.items():
        for bad in (-1, n, 1.0, True, "0"):
            try:
                call(bad)
            except InvalidParameterError as err:
                assert re.search(rf"seat must be .*\b{n - 1}\b", str(err)), f"{method}: {err}"
            else:
                pytest.fail(f"{method}({bad!r}) was accepted; seats are the ints 0..{n - 1}")
        for seat in (0, np.int64(n - 1)):
            call(seat)  # accepted, numpy integers included
    assert game == before, "a refused seat changed the state"
