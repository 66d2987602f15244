"""Self-play PPO with RLlib on any registered env: train, checkpoint, resume, evaluate.

    python examples/train_rllib.py --env iris_v0 --iterations 20 --num-env-runners 2
    python examples/train_rllib.py --env iris_v0 --iterations 40 --resume runs/rllib/checkpoint
    RAY_ADDRESS=ray://head:10001 python examples/train_rllib.py --env irk_v0 --num-env-runners 16

Without ``--address`` (or ``RAY_ADDRESS``) it starts a local Ray instance; with it, it joins that
cluster unchanged. Writes ``checkpoint/`` (an RLlib algorithm checkpoint: pass it to
``--resume``, or to the arena as ``rllib:PATH/checkpoint``), ``train_log.jsonl`` (one line per
iteration: env steps, steps/s, seconds) and ``results.json`` (the config and the final arena
evaluation: seats alternated, win rates with 95% intervals) into ``--out``. With
``--select-against SPEC`` it scores the learners against that agent every ``--select-every``
iterations (the same deals each time, other deals than the final evaluation's), keeps the
best-scored checkpoint as ``best/`` and evaluates that one. Needs the ``rllib`` extra:
``pip install torch==2.13.0`` then ``pip install -e ".[rllib]"``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path
from typing import Any

from tabletop_envs.core.config import CommandParser, add_options, from_args
from tabletop_envs.evaluation import run_arena
from tabletop_envs.evaluation.paths import absolute, prepare_out
from tabletop_envs.training.rllib import (
    RLlibAgent,
    arena_yardstick,
    init_ray,
    self_play_config,
    train_iterations,
)
from tabletop_envs.training.rllib_config import RUN_FILES, RLlibConfig, SelfPlaySettings


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of this script, generated from :class:`RLlibConfig`."""
    p = CommandParser(prog="train_rllib.py", description=__doc__.split("\n\n")[0])
    self_play = {f.name for f in dataclasses.fields(SelfPlaySettings)}
    run_options = {f.name for f in dataclasses.fields(RLlibConfig)} - self_play
    add_options(p, RLlibConfig, skip=self_play)  # the run's options, then PPO's and the league's
    add_options(p, RLlibConfig, skip=run_options)
    return p


def main(argv: list[str] | None = None) -> int:
    """Train, checkpoint and evaluate as the command line says; return the exit code."""
    parser = build_parser()
    try:
        config = from_args(RLlibConfig, parser.parse_args(argv))
    except ValueError as err:  # a setting outside its valid values
        parser.error(str(err))
    return run(config)


def run(config: RLlibConfig) -> int:
    """Train, checkpoint and evaluate one run as ``config`` says; return the exit code."""
    import ray

    if config.torch_threads:
        import torch

        torch.set_num_threads(config.torch_threads)
    out = absolute(config.out)  # relative to where the command runs; RLlib needs it absolute
    prepare_out(out, RUN_FILES, overwrite=config.overwrite, resumed_from=config.run_folder())
    init_ray(config.address, num_cpus=config.num_cpus)
    try:
        algo = self_play_config(config.env, config.env_kwargs, settings=config).build_algo()
        if config.resume:
            algo.restore_from_path(str(absolute(config.resume)))
            print(f"resumed from {config.resume} at iteration {algo.iteration}", flush=True)
        t0 = time.perf_counter()
        records = _train(config, algo, out)
        train_seconds = time.perf_counter() - t0
        algo.stop()
        results = _results(config, records, train_seconds, out)
        evaluated = _selected(config, records, results, out)
        _evaluate(config, evaluated, results)
        (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
        print(f"wrote {out / 'results.json'}")
    finally:
        ray.shutdown()
    return 0


def _train(config: RLlibConfig, algo: Any, out: Path) -> list[dict[str, float]]:
    """Run the iterations, logging each to ``train_log.jsonl`` and the terminal."""
    log_file = (out / "train_log.jsonl").open("a")

    def log(record: dict[str, float], result: dict[str, Any]) -> None:
        returns = result["env_runners"].get("module_episode_returns_mean", {})
        line = dict(record, returns=returns)
        log_file.write(json.dumps(line) + "\n")
        log_file.flush()
        score = f", score {record['score']:.3f}" if "score" in record else ""
        print(
            f"iter {record['iteration']:.0f}: {record['env_steps']:.0f} env steps, "
            f"{record['steps_per_s']:.0f} steps/s, {record['seconds']:.0f} s{score}",
            flush=True,
        )

    select = None
    if config.select_against:
        select = arena_yardstick(
            config.env,
            config.env_kwargs,
            config.select_against,
            config.select_games,
            seed=config.seed + 1_000_003,  # other deals than the final evaluation's
            workdir=out / "candidate",
            deterministic=not config.sample,
        )
    try:
        return train_iterations(
            algo,
            config.iterations,
            checkpoint_dir=out / "checkpoint",
            checkpoint_every=config.checkpoint_every,
            time_budget=None if config.time_budget is None else 60 * config.time_budget,
            log=log,
            select=select,
            select_every=config.select_every,
            best_dir=out / "best",
        )
    finally:
        log_file.close()


def _results(
    config: RLlibConfig, records: list[dict[str, float]], train_seconds: float, out: Path
) -> dict[str, Any]:
    """Return the results of the training part (the evaluation is added to them)."""
    return {
        "env": config.env,
        "env_kwargs": config.env_kwargs,
        "args": {k: v for k, v in config.to_dict().items() if k != "env_kwargs"},
        "iteration": records[-1]["iteration"] if records else None,
        "env_steps": records[-1]["env_steps"] if records else None,
        "train_seconds": train_seconds,
        "checkpoint": str(out / "checkpoint"),
        "evaluation": [],
    }


def _selected(
    config: RLlibConfig, records: list[dict[str, float]], results: dict[str, Any], out: Path
) -> Path:
    """Return the checkpoint to evaluate: ``best/`` with selection (noted in results), else last."""
    if not config.select_against:
        return out / "checkpoint"
    scored = [r for r in records if "score" in r]
    chosen = max(scored, key=lambda r: r["score"])  # the first of equal scores
    results["selected"] = {
        "against": config.select_against,
        "games": config.select_games,
        "iteration": chosen["iteration"],
        "env_steps": chosen["env_steps"],
        "score": chosen["score"],
        "checkpoint": str(out / "best"),
    }
    print(
        f"evaluating best/: iteration {chosen['iteration']:.0f}, score "
        f"{chosen['score']:.3f} against {config.select_against}",
        flush=True,
    )
    return out / "best"


def _evaluate(config: RLlibConfig, checkpoint: Path, results: dict[str, Any]) -> None:
    """Play the checkpoint against every evaluation opponent in the arena; add the figures."""
    agent = RLlibAgent.load(checkpoint, deterministic=not config.sample)
    for opponent in config.eval_opponents or ():
        arena = run_arena(
            config.env,
            [agent, opponent],
            config.eval_games,
            seed=config.seed + 1,
            env_kwargs=config.env_kwargs,
            ray_workers=config.num_env_runners if config.eval_ray else 0,
        )
        print(arena.table(), flush=True)
        stats = arena.to_dict(timing=False)["agents"][0]
        results["evaluation"].append(
            {"opponent": opponent, "games": config.eval_games}
            | {k: stats[k] for k in ("wins", "draws", "losses", "win_rate", "win_ci95")}
        )


if __name__ == "__main__":
    sys.exit(main())
