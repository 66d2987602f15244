"""How often do the ladder's 95% intervals hold the true rating? Synthetic ladders, known Elo.

Run from the repository root (about 2.5 CPU minutes with the defaults)::

    python benchmarks/ladder_coverage.py
    python benchmarks/ladder_coverage.py --trials 20 --resamples 100   # a quick look

For each case, ``--trials`` ladders are drawn from a Bradley-Terry model with the case's true
ratings (every pair plays ``--games`` games, ``--draws`` of them drawn where the model allows),
rated as ``benchmarks/ladder.py`` rates (:mod:`tabletop_envs.evaluation.stats`; anchor: the first
agent, rated 0 in truth too) and bootstrapped;
the script prints, per agent other than the anchor, the share of trials whose interval holds the
truth: the ladder's basic intervals, and plain percentile intervals of the same resamples for
comparison. ``sweeps`` is the case where most pairs with the first agent end 100-0.
A count out of range, or a draw rate outside 0 to 1, is one line
``ladder_coverage.py: error: ...`` naming the option, before any ladder is drawn.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from tabletop_envs.core.config import Config, parse_command, setting
from tabletop_envs.evaluation.stats import (
    Match,
    basic_interval,
    bootstrap_elo,
    expected_score,
    fit_elo,
    score_matrices,
)

CASES = {
    "moderate": [0.0, 200.0, 350.0],
    "wide": [0.0, 400.0, 700.0, 900.0],
    "sweeps": [0.0, 900.0, 1300.0],
}


@dataclass
class CoverageConfig(Config):
    """The command line of this script."""

    trials: int = setting(100, low=1, help="synthetic ladders per case")
    resamples: int = setting(200, low=1, help="bootstrap resamples per ladder")
    games: int = setting(100, low=1, help="games per pair")
    draws: float = setting(
        0.1, low=0, high=1, help="draw rate: the share of a pair's games drawn (at most)"
    )
    seed: int = setting(1, low=0, help="seed of the synthetic ladders")


def main(argv: list[str] | None = None) -> int:
    """Print the coverage of every case; return 0."""
    # before any ladder
    args, _ = parse_command(
        CoverageConfig, argv, prog="ladder_coverage.py", description=__doc__.splitlines()[0]
    )
    for name, truth in CASES.items():
        k = len(truth)
        rng = np.random.default_rng(args.seed)
        basic, plain = np.zeros(len(truth)), np.zeros(len(truth))
        for trial in range(args.trials):
            matches = []
            for i in range(k):
                for j in range(i + 1, k):
                    prob = float(expected_score(truth[i], truth[j]))
                    d = min(args.draws, 2 * min(prob, 1 - prob))
                    w, dr, lo = rng.multinomial(args.games, [prob - d / 2, d, 1 - prob - d / 2])
                    matches.append(Match(i, j, int(w), int(dr), int(lo)))
            elo = fit_elo(*score_matrices(k, matches), anchor=0)
            samples = bootstrap_elo(k, matches, 0, args.resamples, trial)
            low, high = basic_interval(elo, samples)
            basic += (low <= truth) & (truth <= high)
            q_low, q_high = np.percentile(samples, [2.5, 97.5], axis=0)
            plain += (q_low <= truth) & (truth <= q_high)
        print(
            f"{name:<9} truth {truth}: basic {np.round(basic[1:] / args.trials, 2).tolist()}, "
            f"percentile {np.round(plain[1:] / args.trials, 2).tolist()}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
