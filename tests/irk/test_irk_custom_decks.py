"""Custom decks: every deck the constructor accepts plays to the end, observations in the space."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop_envs import InvalidParameterError, InvalidStateError, irk_v0
from tabletop_envs.games.irk import deck as deck_module
from tabletop_envs.games.irk import rules
from tabletop_envs.games.irk.deck import COLOR_LETTERS, DECK_CACHE_SIZE, KIND_MARKS, STANDARD_DECK
from tabletop_envs.games.irk.rules import HAND_SIZE, IrkParams, IrkState, opening_count

#: The issue's deck: green totals far beyond int8 (15 tiles of three G3).
BIG_GREEN = ("G3 G3 G3",) * 15 + ("B1 . .",) * 4


def play_through_env(env, seed: int) -> int:
    """Play a random game through ``env``; assert every observation is in its space."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        space = env.observation_space(agent)
        assert space.contains(obs), f"step {steps}: {agent}'s observation leaves its space"
        for other in env.agents:
            assert space.contains(env.observe(other))
        if term or trunc:
            env.step(None)
        else:
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
    return steps


def test_the_issues_deck_plays_with_group_planes_and_action_values():
    for extra in ({"group_planes": True}, {"action_values": True, "table_size": 11}):
        env = irk_v0.env(deck=BIG_GREEN, **extra)
        spec = env.unwrapped.game_class.new(seed=0, deck=BIG_GREEN, **extra).spec
        assert spec.observation_dtype == np.int16 and spec.observation_high == 135  # 15 * 9
        assert env.observation_space("player_0")["observation"].dtype == np.int16
        assert play_through_env(env, seed=1) > 0


def test_the_standard_deck_keeps_int8_observations():
    for extra in ({}, {"group_planes": True}, {"action_values": True}):
        spec = IrkState.new(seed=0, **extra).spec
        assert spec.observation_dtype == np.int8
        assert IrkState.new(seed=0, **extra).observation(0).dtype == np.int8


def test_the_core_never_overflows_with_a_big_deck():
    """The bare core used to raise an int8 OverflowError mid-game, the state half applied."""
    game = IrkState.new(seed=4, deck=BIG_GREEN, group_planes=True, action_values=True)
    rng = np.random.default_rng(4)
    while not game.is_terminal:
        obs = game.observation(game.current_player)
        assert obs.max() <= game.spec.observation_high
        legal = np.flatnonzero(game.legal_mask())
        game.apply(int(legal[rng.integers(len(legal))]))
    assert IrkState.from_json(game.to_json()) == game


def tiles(letters: str) -> st.SearchStrategy[str]:
    """Return a strategy of tile strings whose flowers have colors among ``letters``."""
    square = st.one_of(
        st.just("."),
        st.builds(lambda c, k: c + k, st.sampled_from(letters), st.sampled_from(KIND_MARKS)),
    )
    return st.lists(square, min_size=3, max_size=3).map(" ".join)


@st.composite
def decks(draw: st.DrawFn) -> dict:
    """Draw valid parameters with a random deck (small tables keep the games quick).

    A deck of few colors and many tiles piles one color's value far beyond int8.
    """
    n = draw(st.integers(2, 4))
    need = HAND_SIZE * n + opening_count(n)
    size = draw(st.integers(need, need + 80))
    letters = draw(st.sampled_from(["G", "GB", COLOR_LETTERS]))
    return {
        "num_players": n,
        "table_size": draw(st.sampled_from([5, 7, 9])),
        "deck": tuple(draw(st.lists(tiles(letters), min_size=size, max_size=size))),
        "group_planes": draw(st.booleans()),
        "action_values": draw(st.booleans()),
        "reward": draw(st.sampled_from(["win_loss", "score"])),
    }


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(params=decks(), seed=st.integers(0, 1000))
def test_every_accepted_deck_plays_to_the_end_through_the_env(params, seed):
    env = irk_v0.env(**params)
    play_through_env(env, seed)
    game = env.unwrapped.game
    low, high = game.spec.reward_range
    assert game.is_terminal and np.all((low <= game.returns()) & (game.returns() <= high))


@pytest.mark.parametrize(
    ("deck", "match"),
    [
        (None, r"deck must be a sequence \(tuple or list\) of 3-square tile strings.*NoneType"),
        (30, "deck must be a sequence.*got int 30"),
        ({"G3 . .": 1}, "deck must be a sequence.*got dict"),
        ("G3 . .", "deck must be a sequence.*got str"),
        ((*STANDARD_DECK[:29], None), "deck tile 29: a tile is a string of 3 squares"),
    ],
)
def test_a_deck_that_is_no_sequence_of_tiles_says_what_a_deck_is(deck, match):
    with pytest.raises(InvalidParameterError, match=match):
        irk_v0.env(deck=deck)
    with pytest.raises(InvalidParameterError, match=match):
        IrkParams(deck=deck)


def test_the_per_deck_caches_are_bounded():
    for cached in (deck_module.deck_tiles, rules._spec):
        assert cached.cache_info().maxsize == DECK_CACHE_SIZE
    for k in range(DECK_CACHE_SIZE + 10):
        deck = (*STANDARD_DECK, *(["G1 . ."] * k))
        IrkState.new(seed=0, deck=deck)
    for cached in (deck_module.deck_tiles, rules._spec):
        assert cached.cache_info().currsize <= DECK_CACHE_SIZE
    # an evicted deck is rebuilt equal
    assert IrkState.new(seed=0, deck=(*STANDARD_DECK, "G1 . .")).spec.num_actions == 31 + 31**2 * 4


def test_a_saved_state_of_a_big_deck_loads_and_a_bad_one_is_refused():
    game = IrkState.new(seed=2, deck=BIG_GREEN, group_planes=True)
    assert IrkState.from_json(game.to_json()) == game
    text = game.to_json().replace('"round": 0', '"round": 7')
    with pytest.raises(InvalidStateError):
        IrkState.from_json(text)
