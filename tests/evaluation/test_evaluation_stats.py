"""evaluation.stats: the Elo fit both the arena and the ladder use, its bootstrap, the counts."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tabletop_envs.evaluation.arena import run_arena
from tabletop_envs.evaluation.stats import (
    PRIOR_DRAWS,
    Match,
    basic_interval,
    bootstrap_elo,
    bradley_terry,
    expected_score,
    fit_elo,
    score_matrices,
)


def test_a_match_counts_its_games_and_scores_draws_half() -> None:
    m = Match(0, 2, wins_i=3, draws=4, wins_j=1)
    assert m.games == 8
    wins, games = score_matrices(3, [m])
    assert (wins[0, 2], wins[2, 0]) == (5.0, 3.0)
    assert games[0, 2] == games[2, 0] == 8
    assert wins[1].sum() == games[1].sum() == 0


def test_anchors_shift_the_ratings_only() -> None:
    matches = [Match(0, 1, 7, 2, 1), Match(1, 2, 5, 0, 5), Match(0, 2, 9, 1, 0)]
    wins, games = score_matrices(3, matches)
    centred = fit_elo(wins, games, anchor=None)
    assert centred.mean() == pytest.approx(0.0, abs=1e-9)
    for anchor in range(3):
        elo = fit_elo(wins, games, anchor)
        assert elo[anchor] == 0.0
        assert elo - elo.mean() == pytest.approx(centred, abs=1e-9)
    with pytest.raises(ValueError, match="anchor"):
        fit_elo(wins, games, anchor=3)


def test_two_agents_fit_the_closed_form_with_the_prior() -> None:
    wins, games = score_matrices(2, [Match(0, 1, 15, 0, 5)])
    elo = fit_elo(wins, games, anchor=1)
    odds = (15 + PRIOR_DRAWS / 2) / (5 + PRIOR_DRAWS / 2)
    assert elo[0] == pytest.approx(400 * math.log10(odds), abs=1e-6)
    assert expected_score(elo[0], elo[1]) == pytest.approx(odds / (1 + odds))


def test_the_arena_elo_is_the_prior_fit_of_its_pairwise_results() -> None:
    agents = ["random", "greedy", "mcts:iterations=10"]
    result = run_arena("iris_v0", agents, 6, seed=2, env_kwargs={"board_size": 3})
    k = 3
    wins, games = np.zeros((k, k)), np.zeros((k, k))
    for seats, returns in zip(result.seating, result.outcomes, strict=True):
        a, b = seats
        games[a, b] += 1
        games[b, a] += 1
        if returns[0] == returns[1]:
            wins[a, b] += 0.5
            wins[b, a] += 0.5
        else:
            wins[(a, b) if returns[0] > returns[1] else (b, a)] += 1
    off = PRIOR_DRAWS * (1 - np.eye(k))
    gamma = bradley_terry(wins + off / 2, games + off)
    expected = 400 * np.log10(gamma)
    assert result.elo == (expected - expected.mean()).tolist()  # bit for bit
    assert result.elo == fit_elo(wins, games, anchor=None).tolist()


def test_the_bootstrap_is_seeded_and_anchored() -> None:
    matches = [Match(0, 1, 30, 5, 15), Match(2, 1, 20, 10, 20), Match(0, 2, 25, 0, 25)]
    samples = bootstrap_elo(3, matches, anchor=1, resamples=50, seed=4)
    assert samples.shape == (50, 3)
    assert (samples[:, 1] == 0).all()
    assert np.array_equal(samples, bootstrap_elo(3, matches, 1, 50, seed=4))
    assert not np.array_equal(samples, bootstrap_elo(3, matches, 1, 50, seed=5))
    elo = fit_elo(*score_matrices(3, matches), anchor=1)
    low, high = basic_interval(elo, samples)
    assert (low <= high).all() and low[1] == high[1] == 0
    with pytest.raises(ValueError, match="resamples must be >= 1"):
        bootstrap_elo(3, matches, 1, resamples=0)
