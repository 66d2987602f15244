"""Untrusted keywords of the single-agent view: refused at construction, naming the keyword."""

from __future__ import annotations

import math

import gymnasium
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tabletop_envs  # noqa: F401 - registers the gymnasium ids
from tabletop_envs import InvalidParameterError
from tabletop_envs.agents import RandomAgent

GYM_ID = "tabletop_envs/Iris-v0"

JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
    st.sampled_from(["greedy", "random", "alternate", "own", "margin", "nope", "mcts:c=nan"]),
    st.lists(st.sampled_from([None, 1, "greedy", "x"]), max_size=3),
    st.dictionaries(st.sampled_from(["greedy", "render_mode", "board_size"]), st.integers(0, 9)),
    st.just(int),
    st.just(lambda game: 0),
)
KEYWORDS = ["opponent", "learner_seat", "flatten", "reward", "reward_scale", "env_kwargs"]


@pytest.mark.parametrize(
    ("kwargs", "keyword"),
    [
        ({"opponent": 5}, "opponent"),
        ({"opponent": int}, "opponent"),
        ({"opponent": [None]}, "opponent"),
        ({"opponent": {"greedy": 1}}, "opponent"),
        ({"opponent": []}, "opponent"),
        ({"opponent": "nope"}, "opponent"),
        ({"opponent": "mcts:c=nan"}, "opponent"),
        ({"reward_scale": None}, "reward_scale"),
        ({"reward_scale": math.nan}, "reward_scale"),
        ({"reward_scale": math.inf}, "reward_scale"),
        ({"reward_scale": "2"}, "reward_scale"),
        ({"reward_scale": True}, "reward_scale"),
        ({"env_kwargs": {"render_mode": "ansi"}}, "render_mode"),
        ({"env_kwargs": [1]}, "env_kwargs"),
        ({"learner_seat": True}, "learner_seat"),
        ({"learner_seat": 2}, "learner_seat"),
        ({"flatten": "no"}, "flatten"),
        ({"flatten": None}, "flatten"),
        ({"flatten": 0}, "flatten"),
        ({"flatten": []}, "flatten"),
        ({"reward": "score"}, "reward"),
    ],
)
def test_bad_keywords_are_refused_naming_them(kwargs: dict, keyword: str) -> None:
    with pytest.raises(InvalidParameterError, match=keyword):
        gymnasium.make(GYM_ID, **kwargs)


def test_good_keywords_still_build() -> None:
    env = gymnasium.make(
        GYM_ID,
        opponent=[RandomAgent(1), "greedy"],
        learner_seat=np.int64(1),
        flatten=False,
        reward_scale=np.float32(0.5),
        env_kwargs={"board_size": 3},
    )
    obs, info = env.reset(seed=3)
    assert info["learner_seat"] == 1 and obs.ndim == 3


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(KEYWORDS), JUNK, max_size=3), st.integers(0, 2**31))
def test_any_keywords_build_a_working_env_or_are_refused(kwargs: dict, seed: int) -> None:
    """Either InvalidParameterError naming one of the keywords given, or an env that plays."""
    try:
        env = gymnasium.make(GYM_ID, **kwargs)
    except InvalidParameterError as err:
        assert any(k in str(err) for k in [*kwargs, "render_mode", "board_size"]), err
        return
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    done = False
    while not done:
        legal = np.flatnonzero(env.unwrapped.action_masks())
        _, reward, terminated, truncated, _ = env.step(int(rng.choice(legal)))
        assert math.isfinite(reward)
        done = terminated or truncated


@pytest.mark.slow
@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(KEYWORDS), JUNK, max_size=4), st.integers(0, 2**31))
def test_any_keywords_slow(kwargs: dict, seed: int) -> None:
    """The same property over thousands of keyword sets (``-m slow``)."""
    test_any_keywords_build_a_working_env_or_are_refused.hypothesis.inner_test(kwargs, seed)
