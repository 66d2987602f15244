"""Measuring a learner: seat-alternated games against one opponent, a summary line, a plot.

:func:`evaluate` needs neither torch nor SB3 (any :class:`~tabletop_envs.agents.Agent` plays);
:func:`plot_history` imports matplotlib when called.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tabletop_envs.agents.base import Agent
from tabletop_envs.envs.registry import new_game
from tabletop_envs.evaluation.stats import wilson
from tabletop_envs.training.plots import plot_curves


def evaluate(
    agent: Agent,
    opponent: Agent,
    env_name: str,
    *,
    games: int = 400,
    seed: int = 0,
    env_kwargs: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Play ``agent`` against ``opponent`` (in every other seat), seats alternated per game.

    A game is a win when the agent's return is strictly the highest, a draw when it ties the
    highest. Returns counts, ``win_rate`` (wins / games), ``score`` (wins + draws/2, per game)
    and the 95% Wilson interval of the win rate.
    """
    probe = new_game(env_name, env_kwargs or {})
    game_class, params = type(probe), probe.params
    seeds = np.random.default_rng(seed)
    n = probe.spec.num_players
    wins = draws = losses = 0
    by_seat = [[0, 0] for _ in range(n)]  # [wins, games] per learner seat
    for g in range(games):
        seat = g % n
        game = game_class(params, int(seeds.integers(2**63)))
        agent.reset(int(seeds.integers(2**63)))
        opponent.reset(int(seeds.integers(2**63)))
        while not game.is_terminal:
            mover = game.current_player
            player = agent if mover == seat else opponent
            game.apply(player.act(game, mover))
        returns = game.returns()
        best_other = max(float(r) for s, r in enumerate(returns) if s != seat)
        by_seat[seat][1] += 1
        if returns[seat] > best_other:
            wins += 1
            by_seat[seat][0] += 1
        elif returns[seat] == best_other:
            draws += 1
        else:
            losses += 1
    low, high = wilson(wins, games)
    return {
        "games": games,
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "win_rate": wins / games if games else 0.0,
        "score": (wins + draws / 2) / games if games else 0.0,
        "ci95": [low, high],
        "win_rate_by_seat": [w / t if t else None for w, t in by_seat],
    }


def format_result(result: dict[str, Any], opponent: str) -> str:
    """Return a one-line summary of an :func:`evaluate` result."""
    low, high = result["ci95"]
    return (
        f"win rate vs {opponent}: {result['win_rate']:.3f} (95% CI {low:.3f}-{high:.3f}; "
        f"{result['wins']}W {result['draws']}D {result['losses']}L over {result['games']} games)"
    )


def plot_history(results: dict[str, Any], path: str | Path) -> None:
    """Draw the win rate (with its 95% interval) over training steps into a PNG."""
    points = [*results["history"], results["final"]]
    plot_curves(
        {
            f"win rate vs {results['opponent']}": [
                (p["timesteps"], p["win_rate"], p["ci95"][0], p["ci95"][1]) for p in points
            ]
        },
        path,
        xlabel="training steps",
        title=f"{results['env']}: MaskablePPO vs {results['opponent']}",
    )
