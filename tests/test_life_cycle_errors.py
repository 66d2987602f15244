"""Life-cycle mistakes get the documented exception types (issue: trust, second round)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tabletop_envs
from tabletop_envs import InvalidParameterError, InvalidStateError


@pytest.mark.parametrize("name", ["iris_v0", "isis_osiris_v0", "irk_v0"])
def test_load_state_refuses_what_is_not_a_state_of_this_env(name: str) -> None:
    env = tabletop_envs.make(name)
    env.reset(seed=1)
    before = env.game.to_json()
    other = tabletop_envs.make("iris_v0" if name != "iris_v0" else "irk_v0")
    other.reset(seed=1)
    for bad in (None, 5, "state", other.game):
        with pytest.raises(InvalidStateError):
            env.load_state(bad)
        assert env.game.to_json() == before


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("iris_v0", {"board_size": 3}),
        ("irk_v0", {"num_players": 3}),
        ("isis_osiris_v0", {"num_players": 4}),
    ],
)
def test_load_state_refuses_other_parameters(name: str, params: dict) -> None:
    env = tabletop_envs.make(name)
    env.reset(seed=2)
    other = tabletop_envs.make(name, **params)
    other.reset(seed=2)
    with pytest.raises(InvalidStateError, match="cannot load"):
        env.load_state(other.game)


@pytest.mark.parametrize("name", ["iris_v0", "isis_osiris_v0", "irk_v0"])
@pytest.mark.parametrize("rng", [None, 3, "x", np.random.RandomState(0)])
def test_resample_hidden_needs_a_generator(name: str, rng: object) -> None:
    env = tabletop_envs.make(name)
    env.reset(seed=0)
    with pytest.raises(InvalidParameterError, match=r"numpy\.random\.Generator"):
        env.game.resample_hidden(0, rng)


RNGS = st.one_of(st.none(), st.integers(), st.text(max_size=3), st.floats(), st.just(np.random))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["iris_v0", "isis_osiris_v0", "irk_v0"]), st.integers(0, 3), RNGS)
def test_resample_hidden_refuses_any_non_generator(name: str, seat: int, rng: object) -> None:
    """Whatever ``rng`` is, if not a Generator: InvalidParameterError, the game unchanged."""
    env = tabletop_envs.make(name)
    env.reset(seed=seat)
    before = env.game.to_json()
    with pytest.raises(InvalidParameterError):
        env.game.resample_hidden(seat % env.game.num_players, rng)
    assert env.game.to_json() == before


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["iris_v0", "isis_osiris_v0", "irk_v0"]),
    st.one_of(
        st.none(),
        st.integers(),
        st.text(max_size=5),
        st.lists(st.integers(), max_size=3),
        st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    ),
)
def test_load_state_refuses_any_non_state(name: str, junk: object) -> None:
    env = tabletop_envs.make(name)
    env.reset(seed=1)
    before = env.game.to_json()
    with pytest.raises(InvalidStateError):
        env.load_state(junk)
    assert env.game.to_json() == before


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(st.sampled_from(["iris_v0", "isis_osiris_v0", "irk_v0"]), st.integers(0, 3), RNGS)
def test_resample_hidden_refuses_any_non_generator_slow(name: str, seat: int, rng: object) -> None:
    test_resample_hidden_refuses_any_non_generator.hypothesis.inner_test(name, seat, rng)
