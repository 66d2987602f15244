"""Evaluating a run: the exported file, played as an ``AZAgent`` in the arena, and its plot."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_envs.agents.az import AZAgent
from tabletop_envs.envs.registry import new_game
from tabletop_envs.evaluation.arena import run_arena
from tabletop_envs.search.network import PolicyValueNet
from tabletop_envs.training.az.checkpoint import RunState
from tabletop_envs.training.az.config import AZConfig
from tabletop_envs.training.plots import plot_curves


def play_settings(config: AZConfig) -> tuple[int, float, str]:
    """Return the simulations, playout weight and playout the evaluations (and the file) use."""
    simulations = config.simulations if config.eval_simulations is None else config.eval_simulations
    weight = (
        config.playout_weight if config.eval_playout_weight is None else config.eval_playout_weight
    )
    playout = config.playout if config.eval_playout is None else config.eval_playout
    return simulations, float(weight), playout


def evaluate_file(
    path: str | Path,
    config: AZConfig,
    opponent: str,
    games: int,
    seed: int,
) -> dict[str, Any]:
    """Play the network file ``path`` (an ``AZAgent``) against ``opponent`` in the arena.

    The agent takes one seat and ``opponent`` every other, seats rotated game by game
    (:func:`~tabletop_envs.evaluation.arena.run_arena`). Returns its wins, draws, losses, win
    rate with 95% Wilson interval, score and the arena's seconds.
    """
    simulations, playout_weight, playout = play_settings(config)
    agent = AZAgent(
        PolicyValueNet.load(path),
        simulations=simulations,
        c_puct=config.c_puct,
        playout_weight=playout_weight,
        playout=playout,
    )
    n = new_game(config.env, config.env_kwargs).num_players
    start = time.perf_counter()
    result = run_arena(config.env, [agent] + [opponent] * (n - 1), games, seed, config.env_kwargs)
    stats = result.stats[0]
    return {
        "opponent": opponent,
        "games": games,
        "results": stats.results,
        "wins": stats.wins,
        "draws": stats.draws,
        "losses": stats.losses,
        "win_rate": stats.rate("wins"),
        "ci95": list(stats.interval("wins")),
        "score": stats.score,
        "simulations": simulations,
        "playout_weight": playout_weight,
        "playout": playout,
        "seconds": time.perf_counter() - start,
    }


def selection_score(vs: dict[str, dict[str, Any]]) -> float:
    """Return the mean over opponents of (wins + draws / 2) / games: what ``keep_best`` ranks."""
    return float(np.mean([(r["wins"] + r["draws"] / 2) / r["games"] for r in vs.values()]))


def format_eval(result: dict[str, Any]) -> str:
    """Return a one-line summary of an :func:`evaluate_file` result."""
    low, high = result["ci95"]
    return (
        f"vs {result['opponent']}: win rate {result['win_rate']:.3f} (95% CI {low:.3f}-"
        f"{high:.3f}; {result['wins']}W {result['draws']}D {result['losses']}L)"
    )


def periodic_evaluation(
    config: AZConfig,
    run: RunState,
    record: dict[str, Any],
    model_path: Path,
    started: float,
    tell: Callable[[str], None],
) -> None:
    """Evaluate ``model_path`` against every eval opponent; record it in ``run`` and ``record``.

    With ``keep_best``, a score at least the best so far copies the file to ``best.npz``
    beside it (later iterations win ties). ``started`` is the run's ``perf_counter`` start.
    """
    t_eval = time.perf_counter()
    point = {k: record[k] for k in ("iteration", "positions", "games")}
    point["vs"] = {
        opp: evaluate_file(model_path, config, opp, config.eval_games, 10_000 + run.iteration)
        for opp in config.eval_opponents
    }
    run.eval_seconds += time.perf_counter() - t_eval
    point["seconds"] = time.perf_counter() - started
    run.history.append(point)
    for result in point["vs"].values():
        tell(f"[iteration {run.iteration}] {format_eval(result)}")
    if config.keep_best:
        score = selection_score(point["vs"])
        if not run.best or score >= run.best["score"]:
            shutil.copyfile(model_path, model_path.parent / "best.npz")
            run.best = {"iteration": run.iteration, "score": score}
            tell(f"[iteration {run.iteration}] best so far: {score:.3f}")
    record["vs"] = {k: v["win_rate"] for k, v in point["vs"].items()}


def final_evaluation(config: AZConfig, shipped: Path) -> dict[str, dict[str, Any]]:
    """Play the shipped file ``final_eval_games`` games against each eval opponent."""
    finals = {}
    if config.final_eval_games:
        for k, opp in enumerate(config.eval_opponents):
            finals[opp] = evaluate_file(
                shipped, config, opp, config.final_eval_games, config.seed + 1_000_003 + k
            )
    return finals


# ---- the plot -------------------------------------------------------------------------------
def plot_az(results: dict[str, Any], path: str | Path) -> None:
    """Draw the win rates (95% intervals) against each eval opponent over the iterations."""
    curves: dict[str, list[tuple[float, float, float, float]]] = {}
    for point in results["history"]:
        for opp, r in point["vs"].items():
            curves.setdefault(opp, []).append((point["iteration"], r["win_rate"], *r["ci95"]))
    for opp, r in results["final"].items():
        curves.setdefault(opp, []).append((results["iterations_done"], r["win_rate"], *r["ci95"]))
    plot_curves(
        {f"vs {opp}": points for opp, points in curves.items()},
        path,
        xlabel="iteration",
        title=f"{results['env']}: AlphaZero-style self-play",
    )
