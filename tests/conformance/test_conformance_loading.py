"""Saved states are untrusted input: a state that loads plays on; anything else is refused.

Hypothesis mutates and truncates the JSON of random states of every case (and the data of
unpickling) and asserts exactly the loader's promise: either ``InvalidStateError`` naming a
field, or a state that keeps every rule to the end of the game (legal moves apply, refused
moves change nothing, observations stay in their space, every position saves and loads again).
The CI-sized run tries a few hundred mutations per game; the slow run at least 10,000 per game
(``python -m pytest -q -m slow tests/conformance/test_conformance_loading.py``).
"""

from __future__ import annotations

import contextlib
import json
import pickle
from functools import cache
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop_envs.core.errors import IllegalActionError, InvalidStateError
from tabletop_envs.core.game import TERMINAL, GameState
from tests.conformance.cases import (
    CASES,
    game_class,
    json_get,
    json_paths,
    json_set,
    random_actions,
    random_trajectory,
)
from tests.golden.tracing import all_cases

#: Seeds of the random games whose states are mutated.
SEEDS = range(6)
#: Examples per case: CI-sized, and the slow run (at least 10,000 per game over its cases).
CI_EXAMPLES = 60
SLOW_EXAMPLES_PER_GAME = 10_000


@cache
def _saved(name: str, params_key: str, seed: int) -> tuple[str, ...]:
    """Return the JSON of every state of one seeded random game of a case."""
    params = json.loads(params_key)
    return tuple(state.to_json() for state in random_trajectory(name, params, seed))


_LEAVES = st.one_of(
    st.integers(-3, 40),
    st.sampled_from([2**31, -(2**63), 2**130, 0, 1, -1]),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=4),
    st.lists(st.integers(-2, 40), max_size=4),
    st.dictionaries(st.text(max_size=3), st.integers(-2, 5), max_size=2),
)


@st.composite
def mutated_text(draw: st.DrawFn, name: str, params: dict[str, Any]) -> str:
    """Draw the JSON text of a random state of the case, changed in one to three places."""
    seed = draw(st.sampled_from(SEEDS))
    saved = _saved(name, json.dumps(params, sort_keys=True), seed)
    text = saved[draw(st.integers(0, len(saved) - 1))]
    if draw(st.integers(0, 9)) == 0:
        return text[: draw(st.integers(0, len(text) - 1))]  # truncated
    data = json.loads(text)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(json_paths(data)))
        old = json_get(data, path)
        kind = draw(st.integers(0, 5))
        if kind == 0:  # any value
            data = json_set(data, path, draw(_LEAVES))
        elif kind == 1 and type(old) is int:  # a near number
            data = json_set(data, path, old + draw(st.sampled_from([-2, -1, 1, 2, 7])))
        elif kind == 2 and isinstance(old, list) and old:  # drop, repeat or swap items
            i, j = draw(st.integers(0, len(old) - 1)), draw(st.integers(0, len(old) - 1))
            how = draw(st.integers(0, 2))
            if how == 0:
                del old[i]
            elif how == 1:
                old.append(old[i])
            else:
                old[i], old[j] = old[j], old[i]
        elif kind == 3 and isinstance(old, dict) and old:  # drop or add a key
            key = draw(st.sampled_from(sorted(old, key=str)))
            if draw(st.booleans()):
                del old[key]
            else:
                old[f"{key}_x"] = old[key]
        elif kind == 4 and path:  # the same field from another state of another game
            other = json.loads(draw(st.sampled_from(_saved(name, json.dumps(params), 0))))
            with contextlib.suppress(KeyError, IndexError, TypeError):  # no such field there
                data = json_set(data, path, json_get(other, path))
        else:  # a value of another type
            data = json_set(data, path, draw(_LEAVES))
    return json.dumps(data)


def _assert_playable(game: GameState, rng: np.random.Generator, where: str) -> None:
    """Assert a loaded state keeps every rule from here to the end of the game."""
    cls = type(game)
    spec = game.spec
    for seat in range(spec.num_players):
        _assert_observation(game, seat, where)
        game.render_text(seat)
    game.render_text()
    for step in range(spec.max_game_length + 1):
        here = f"{where}, step {step} after loading"
        again = cls.from_json(game.to_json())  # every position reached saves and loads
        assert again == game, f"{here}: JSON round trip changed the state"
        mask = game.legal_mask()
        assert mask.dtype == np.int8 and mask.shape == (spec.num_actions,), here
        if game.is_terminal:
            assert game.current_player == TERMINAL and not mask.any(), here
            returns = game.returns()
            low, high = spec.reward_range
            assert returns.shape == (spec.num_players,), here
            assert np.all((low <= returns) & (returns <= high)), f"{here}: returns {returns}"
            game.result_info()
            return
        assert 0 <= game.current_player < spec.num_players, f"{here}: mover"
        assert mask.any(), f"{here}: a live game with no legal action"
        _assert_observation(game, game.current_player, here)
        illegal = np.flatnonzero(mask == 0)
        if len(illegal):
            before = game.to_json()
            with pytest.raises(IllegalActionError):
                game.apply(int(illegal[rng.integers(len(illegal))]))
            assert game.to_json() == before, f"{here}: a refused action changed the state"
        legal = np.flatnonzero(mask)
        game.apply(int(legal[rng.integers(len(legal))]))
    raise AssertionError(f"{where}: no end within max_game_length={spec.max_game_length}")


def _assert_observation(game: GameState, seat: int, where: str) -> None:
    spec = game.spec
    obs = game.observation(seat)
    assert obs.shape == spec.observation_shape, f"{where}: observation shape"
    assert obs.dtype == spec.observation_dtype, f"{where}: observation dtype"
    assert obs.min(initial=0) >= spec.observation_low, f"{where}: observation below its space"
    assert obs.max(initial=0) <= spec.observation_high, f"{where}: observation above its space"


def _check_text(name: str, params: dict[str, Any], text: str, seed: int) -> str:
    """Load ``text`` the JSON way and the unpickling way; assert the promise; return the answer."""
    cls = game_class(name)
    try:
        game = cls.from_json(text)
    except InvalidStateError as err:
        assert not err.problem.startswith("malformed"), f"a check names no field: {err}"
        game = None
    else:
        _assert_playable(game.clone(), np.random.default_rng(seed), f"loaded {text[:300]}")
    # Unpickling reads the same rng and state data (with real parameters) and must agree.
    try:
        data = json.loads(text)
        params_data, rng_data, state_data = data["params"], data["rng"], data["state"]
    except (ValueError, TypeError, KeyError):
        return "refused" if game is None else "loaded"
    original = cls.new(seed=0, **params)
    if game is not None:
        params = game.params
    elif params_data == json.loads(original.to_json())["params"]:
        params = original.params
    else:
        return "refused"  # refused for its parameters: unpickling never sees those
    probe = cls.__new__(cls)
    try:
        probe.__setstate__({"params": params, "rng": rng_data, "state": state_data})
    except InvalidStateError:
        assert game is None, "unpickling refused what from_json loaded"
        return "refused"
    if game is not None:
        assert probe == game, "unpickling and from_json built different states"
    else:
        assert not _plain_refusal(text, cls), "unpickling loaded what from_json refused"
    return "refused" if game is None else "loaded"


def _plain_refusal(text: str, cls: type[GameState]) -> bool:
    """Return whether from_json refused ``text`` for its rng or state (not its envelope)."""
    try:
        cls.from_json(text)
    except InvalidStateError as err:
        return err.field.startswith(("rng", "state"))
    return False


def _run(name: str, params: dict[str, Any], examples: int) -> None:
    counts = {"refused": 0, "loaded": 0}

    @settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(text=mutated_text(name, params), seed=st.integers(0, 2**16))
    def check(text: str, seed: int) -> None:
        counts[_check_text(name, params, text, seed)] += 1

    check()
    print(f"{name} {params}: {counts}")


@pytest.mark.parametrize(("name", "params"), CASES)
def test_mutated_saved_states_are_refused_or_playable(name: str, params: dict[str, Any]) -> None:
    """Mutated and truncated JSON states: InvalidStateError, or a state that keeps the rules."""
    _run(name, params, CI_EXAMPLES)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "params"), CASES)
def test_mutated_saved_states_slow(name: str, params: dict[str, Any]) -> None:
    """The same with at least 10,000 mutations per game, spread over its cases."""
    cases_of_game = sum(1 for other, _ in all_cases() if other == name)
    _run(name, params, -(-SLOW_EXAMPLES_PER_GAME // cases_of_game))


@pytest.mark.parametrize(("name", "params"), CASES)
def test_every_reached_state_loads(name: str, params: dict[str, Any]) -> None:
    """The checks refuse nothing the rules reach: every state of random games loads equal."""
    cls = game_class(name)
    for seed in SEEDS:
        actions = random_actions(name, params, seed)
        for k, text in enumerate(_saved(name, json.dumps(params, sort_keys=True), seed)):
            loaded = cls.from_json(text)
            assert loaded.to_json() == text, f"seed {seed}, after {k} of {len(actions)} steps"
            state = pickle.loads(pickle.dumps(loaded))
            assert state == loaded
