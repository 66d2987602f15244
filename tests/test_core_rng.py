"""The chance stream of a game state: built on first use, copied as a position, reseeded lazily.

The stream must be exactly the one a Generator held from the start would give: a state that
keeps only a position draws the same numbers, saves the same JSON and compares equal.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from tabletop_envs.core.errors import InvalidParameterError, InvalidStateError
from tabletop_envs.core.rng import (
    check_pcg64,
    copy_rng,
    make_rng,
    rng_at,
    rng_from_json,
    rng_state,
    rng_state_from_json,
    rng_state_to_json,
    rng_to_json,
    seed_state,
)
from tabletop_envs.games.iris.rules import IrisState
from tabletop_envs.games.isis_osiris.rules import IsisOsirisState
from tabletop_envs.games.isis_osiris.tables import NUM_TILES


def test_a_position_rebuilds_the_stream_exactly() -> None:
    rng = make_rng(7)
    rng.integers(2**40, size=3)
    rng.random()  # a 32-bit draw leaves has_uint32 / uinteger set on some paths
    rng.integers(2**31)
    at = rng_state(at_rng := rng)
    assert rng_state(rng_at(at)) == at
    assert rng_at(at).integers(2**62, size=6).tolist() == at_rng.integers(2**62, size=6).tolist()
    assert rng_state_to_json(at) == rng_to_json(rng_at(at))
    assert rng_state_from_json(rng_state_to_json(at)) == at
    assert rng_state(rng_from_json(rng_state_to_json(at))) == at
    assert seed_state(7) == rng_state(make_rng(7))


def test_copy_rng_is_independent() -> None:
    rng = make_rng(3)
    copy = copy_rng(rng)
    assert copy.integers(2**62, size=4).tolist() == rng.integers(2**62, size=4).tolist()
    copy.integers(10)
    assert rng_state(copy) != rng_state(rng)


def test_only_pcg64_generators_are_accepted() -> None:
    assert check_pcg64(make_rng(0)).bit_generator.state["bit_generator"] == "PCG64"
    for bad in (np.random.Generator(np.random.MT19937(0)), np.random.RandomState(0), 5):
        with pytest.raises(InvalidParameterError, match="PCG64"):
            check_pcg64(bad)
    game = IrisState.new(seed=0)
    with pytest.raises(InvalidParameterError, match="PCG64"):
        game.rng = np.random.default_rng(np.random.MT19937(1))  # type: ignore[arg-type]


def test_a_bad_json_position_names_its_field() -> None:
    good = rng_state_to_json(seed_state(1))
    with pytest.raises(InvalidStateError, match=r"rng\.state\.inc"):
        rng_state_from_json({**good, "state": {"state": 1, "inc": 2}})
    with pytest.raises(InvalidStateError, match=r"rng\.bit_generator"):
        rng_state_from_json({**good, "bit_generator": "MT19937"})
    with pytest.raises(InvalidStateError, match=r"rng\.uinteger"):
        rng_state_from_json({**good, "uinteger": -1})


def test_a_new_state_keeps_a_position_and_builds_the_generator_on_first_use() -> None:
    game = IsisOsirisState.new(seed=4)  # set-up draws (the shuffle)
    assert game._rng is None, "the Generator of set-up is kept after it"
    expected = make_rng(4)
    expected.permutation(NUM_TILES)  # what set-up drew (the tile shuffle)
    assert game._rng_position() == rng_state(expected)
    rng = game.rng
    assert game.rng is rng, "a second read builds a second Generator"
    assert rng.integers(2**62) == expected.integers(2**62)


def test_clones_copy_the_position_and_draw_independently() -> None:
    game = IrisState.new(seed=9)  # Iris draws nothing at set-up: the position is the seed
    a, b = game.clone(), game.clone()
    assert a._rng is None and b._rng is None, "a clone of a lazy state built a Generator"
    draws_a = a.rng.integers(2**62, size=3).tolist()
    assert b.rng.integers(2**62, size=3).tolist() == draws_a
    assert game.rng.integers(2**62, size=3).tolist() == draws_a
    c = game.clone()  # the original's Generator is built and has drawn
    assert c._rng is None and c._rng_position() == game._rng_position()
    assert c.rng.integers(2**62) == game.rng.integers(2**62)


def test_reseed_is_the_stream_of_make_rng_without_building_it() -> None:
    game = IrisState.new(seed=1)
    game.reseed(12345)
    assert game._rng is None
    twin = IrisState.new(seed=1)
    twin.rng = make_rng(12345)
    assert game == twin and game.to_json() == twin.to_json()
    assert game.rng.integers(2**62, size=4).tolist() == twin.rng.integers(2**62, size=4).tolist()
    for bad in (-1, 2**128, 1.5, True, "3"):
        with pytest.raises(InvalidParameterError, match="seed"):
            game.reseed(bad)  # type: ignore[arg-type]
    game.reseed(np.int64(5))  # numpy integers are integers
    assert game._rng_position() == seed_state(5)


def test_the_stream_survives_json_and_pickle_in_every_form() -> None:
    lazy_seed = IrisState.new(seed=2)  # position kept as the seed
    lazy_state = IsisOsirisState.new(seed=2)  # position kept as a state tuple
    built = IsisOsirisState.new(seed=3)
    built.rng.integers(100, size=7)  # a built Generator that has drawn ...
    built.seed = None  # ... outside the rules: the log no longer rebuilds the position
    for game in (lazy_seed, lazy_state, built):
        cls = type(game)
        for copy in (cls.from_json(game.to_json()), pickle.loads(pickle.dumps(game))):
            assert copy == game
            assert copy.rng.integers(2**62, size=3).tolist() == (
                game.clone().rng.integers(2**62, size=3).tolist()
            )


def test_equality_sees_the_stream_position() -> None:
    a = IrisState.new(seed=6)
    b = IrisState.new(seed=6)
    assert a == b
    b.rng.integers(2)
    assert a != b
    a.rng.integers(2)
    assert a == b
    a.reseed(1)
    b.rng = make_rng(1)
    assert a == b
