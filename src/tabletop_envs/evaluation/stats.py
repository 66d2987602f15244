"""The statistics of evaluations: Wilson intervals, Bradley-Terry Elo and its bootstrap.

Used by the arena (:func:`~tabletop_envs.evaluation.arena.run_arena`: rates with 95% Wilson
intervals, Elo for three or more agents) and the ladder (``benchmarks/ladder.py``: every pair
of agents plays a match, all matches are rated at once, with intervals from a parametric
bootstrap). Nothing here plays a game: the inputs are counts.

* :func:`wilson`: the Wilson score interval of a binomial proportion.
* :func:`bradley_terry`: strengths fitted by maximum likelihood (Hunter's MM algorithm).
* :func:`fit_elo`: the same as Elo ratings, P(i beats j) = 1 / (1 + 10^((R_j - R_i) / 400)),
  with :data:`PRIOR_DRAWS` virtual draws between every pair of agents (keeps the rating of an
  agent that never lost, or never won, finite), anchored at one agent or at mean 0.
* :func:`bootstrap_elo` and :func:`basic_interval`: 95% intervals of the ratings of two-agent
  :class:`Match` counts, as Ordo rates engine lists.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

#: The 97.5% quantile of the standard normal distribution (two-sided 95% intervals).
Z95 = 1.959963984540054
#: Virtual draws added between every pair of agents before fitting Bradley-Terry (keeps an
#: unbeaten or winless agent's rating finite).
PRIOR_DRAWS = 1.0
#: Elo per factor of 10 in the odds of winning.
ELO_SCALE = 400.0
#: Bootstrap resamples of :func:`bootstrap_elo` unless told.
DEFAULT_RESAMPLES = 1000


def wilson(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Return the Wilson score interval of a binomial proportion (``(0, 1)`` for no trials)."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    # at no successes (all successes) the bound is exactly 0 (1); rounding would miss it
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= trials else min(1.0, centre + half)
    return low, high


def bradley_terry(
    wins: np.ndarray, games: np.ndarray, iterations: int = 10_000, tol: float = 1e-10
) -> np.ndarray:
    """Return Bradley-Terry strengths (geometric mean 1) by Hunter's MM algorithm.

    ``wins[i, j]`` is how often ``i`` beat ``j`` (draws count half to each), ``games[i, j]``
    how often they met. Every agent must have a win and a loss somewhere (add a prior).
    """
    k = len(wins)
    gamma = np.ones(k)
    total_wins = wins.sum(axis=1)
    for _ in range(iterations):
        denom = (games / (gamma[:, None] + gamma[None, :])).sum(axis=1)
        new = np.where(denom > 0, total_wins / np.where(denom > 0, denom, 1), 1.0)
        new /= math.exp(np.log(new).mean())
        if np.max(np.abs(new - gamma)) < tol:
            return new
        gamma = new
    return gamma


def fit_elo(
    wins: np.ndarray,
    games: np.ndarray,
    anchor: int | None = 0,
    prior_draws: float = PRIOR_DRAWS,
) -> np.ndarray:
    """Return Bradley-Terry Elo ratings fitted by maximum likelihood.

    ``wins[i, j]`` is i's score against j (a draw is half a win), ``games[i, j]`` how often
    they met. ``prior_draws`` virtual draws are added between every pair; with 0 every agent
    needs a win and a loss, else its rating is infinite. The ratings are shifted so that agent
    ``anchor`` is rated 0, or (``anchor=None``) so that their mean is 0.
    """
    k = len(wins)
    if wins.shape != (k, k) or games.shape != (k, k):
        raise ValueError(f"need k x k matrices, got {wins.shape} and {games.shape}")
    if anchor is not None and not 0 <= anchor < k:
        raise ValueError(f"need 0 <= anchor < {k}, got {anchor}")
    off = prior_draws * (1 - np.eye(k))
    gamma = bradley_terry(wins + off / 2, games + off)
    elo = ELO_SCALE * np.log10(gamma)
    return elo - (elo.mean() if anchor is None else elo[anchor])


def expected_score(elo_i: np.ndarray | float, elo_j: np.ndarray | float) -> Any:
    """Return the Bradley-Terry probability that a player rated ``elo_i`` beats ``elo_j``."""
    return 1 / (1 + 10 ** ((np.asarray(elo_j) - np.asarray(elo_i)) / ELO_SCALE))


class Match(NamedTuple):
    """The counts of a match between agents ``i`` and ``j`` (indices into a list of agents)."""

    i: int
    j: int
    wins_i: int
    draws: int
    wins_j: int

    @property
    def games(self) -> int:
        """Return the number of games of the match."""
        return self.wins_i + self.draws + self.wins_j


def score_matrices(num_agents: int, matches: Sequence[Match]) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(wins, games)``: ``wins[i, j]`` is i's score against j (draws half), k x k."""
    k = num_agents
    wins, games = np.zeros((k, k)), np.zeros((k, k))
    for m in matches:
        wins[m.i, m.j] += m.wins_i + m.draws / 2
        wins[m.j, m.i] += m.wins_j + m.draws / 2
        games[m.i, m.j] += m.games
        games[m.j, m.i] += m.games
    return wins, games


def bootstrap_elo(
    num_agents: int,
    matches: Sequence[Match],
    anchor: int,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> np.ndarray:
    """Return ``resamples`` x k Elo ratings refitted on games replayed from the fitted model.

    A parametric bootstrap (as Ordo's simulations): every match's games are drawn again, in
    the order of ``matches``, from the fitted Bradley-Terry probability ``p`` of its agent
    ``i``, with the match's observed draw rate capped at ``2 min(p, 1 - p)`` so the expected
    score stays ``p``; each resample is refitted and anchored like the estimate.
    """
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    wins, games = score_matrices(num_agents, matches)
    elo = fit_elo(wins, games, anchor)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0x1AD,)))
    k = num_agents
    win_samples = np.zeros((resamples, k, k))
    for m in matches:
        prob = float(expected_score(elo[m.i], elo[m.j]))
        draw = min(m.draws / m.games, 2 * min(prob, 1 - prob)) if m.games else 0.0
        probs = np.clip([prob - draw / 2, draw, 1 - prob - draw / 2], 0, None)
        counts = rng.multinomial(m.games, probs / probs.sum(), size=resamples)
        win_samples[:, m.i, m.j] += counts[:, 0] + counts[:, 1] / 2
        win_samples[:, m.j, m.i] += counts[:, 2] + counts[:, 1] / 2
    return np.array([fit_elo(win_samples[r], games, anchor) for r in range(resamples)])


def basic_interval(estimate: np.ndarray, samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return the 95% basic bootstrap interval ``[2 e - q97.5, 2 e - q2.5]`` of ``estimate``.

    Reflecting the resamples' percentiles about the estimate undoes the pull towards 0 that
    the virtual draws exert on every refit once more (plain percentiles would count it twice).
    """
    q_low, q_high = np.percentile(samples, [2.5, 97.5], axis=0)
    return 2 * estimate - q_high, 2 * estimate - q_low


__all__ = [
    "DEFAULT_RESAMPLES",
    "ELO_SCALE",
    "PRIOR_DRAWS",
    "Z95",
    "Match",
    "basic_interval",
    "bootstrap_elo",
    "bradley_terry",
    "expected_score",
    "fit_elo",
    "score_matrices",
    "wilson",
]
