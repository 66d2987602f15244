"""The shortcuts of Irk's hot paths give exactly what the plain numpy calls they replace give.

``resample_hidden`` draws as ``rng.permutation`` + ``rng.integers(2**63)`` always drew (the RNG
stream contract), through cheaper calls: these tests fail if a numpy release changes either.
"""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_envs.games.irk.facts import draw_seed
from tabletop_envs.games.irk.rules import CHOOSE, IrkState


@pytest.mark.parametrize("seed", [0, 1, 2**40 + 3])
def test_draw_seed_is_integers_2_63_and_leaves_the_stream_where_it_leaves_it(seed):
    a, b = np.random.default_rng(seed), np.random.default_rng(seed)
    for k in range(2000):
        if k % 7 == 0:  # interleave other draws (a 32-bit one buffers half a word)
            assert a.integers(10) == b.integers(10)
            assert a.random() == b.random()
        assert draw_seed(a) == int(b.integers(2**63))
        assert a.bit_generator.state == b.bit_generator.state


def test_draw_seed_of_another_bit_generator_falls_back_to_integers():
    a = np.random.Generator(np.random.MT19937(5))
    b = np.random.Generator(np.random.MT19937(5))
    assert [draw_seed(a) for _ in range(50)] == [int(b.integers(2**63)) for _ in range(50)]


@pytest.mark.parametrize("size", [0, 1, 2, 7, 20, 33, 91])
def test_shuffling_the_pool_deals_what_the_permutation_dealt(size):
    a, b = np.random.default_rng(size), np.random.default_rng(size)
    pool = list(range(100, 100 + size))
    dealt = [pool[i] for i in a.permutation(len(pool))]
    b.shuffle(pool)
    assert pool == dealt
    assert a.bit_generator.state == b.bit_generator.state


@pytest.mark.parametrize("custom", [False, True])
def test_public_outcome_is_one_byte_per_tile_of_what_is_revealed(custom):
    """int8 observations hand out their revealed section's bytes as they are; an int16 one (a
    custom deck's) is narrowed first: the same bytes either way."""
    big_green = ("G3 G3 G3",) * 15 + ("B1 . .",) * 4  # group planes of 15 * 9: int16
    params = {"deck": big_green, "group_planes": True} if custom else {}
    game = IrkState.new(seed=3, **params)
    assert game.spec.observation_dtype == (np.int16 if custom else np.int8)
    rng = np.random.default_rng(0)
    seen = 0
    while not game.is_terminal:
        outcome = game.public_outcome()
        if game.phase == CHOOSE and max(game.chosen) >= 0:
            assert outcome is None
        else:
            assert outcome == bytes(game._revealed.astype(np.uint8))
            assert len(outcome) == game.deck_size and set(outcome) <= {0, 1}
            seen += 1
        actions = game.legal_actions()
        game.apply(actions[rng.integers(len(actions))])
    assert seen > 5
