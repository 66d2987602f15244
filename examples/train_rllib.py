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
import json
import sys
import time
from pathlib import Path

from tabletop_envs.cli import parse_param
from tabletop_envs.envs.registry import registered_envs
from tabletop_envs.training.arena import run_arena
from tabletop_envs.training.rllib import (
    DEFAULT_HIDDEN,
    POLICY_MODES,
    RLlibAgent,
    arena_yardstick,
    init_ray,
    self_play_config,
    train_iterations,
)


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of this script."""
    p = argparse.ArgumentParser(prog="train_rllib.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--env", default="iris_v0", help=f"one of {', '.join(registered_envs())}")
    p.add_argument(
        "--param", action="append", type=parse_param, metavar="KEY=VALUE", help="game parameter"
    )
    p.add_argument("--iterations", type=int, default=20, help="train up to this iteration")
    p.add_argument("--num-env-runners", type=int, default=2, help="sampling processes")
    p.add_argument("--envs-per-env-runner", type=int, default=1)
    p.add_argument("--address", help="Ray cluster to join (default: RAY_ADDRESS, else local)")
    p.add_argument("--num-cpus", type=int, help="CPUs of a local Ray instance (default: all)")
    p.add_argument("--out", default="runs/rllib", help="output folder (default runs/rllib)")
    p.add_argument("--resume", metavar="CHECKPOINT", help="continue from an algorithm checkpoint")
    p.add_argument("--time-budget", type=float, metavar="MINUTES", help="stop training after")
    p.add_argument("--checkpoint-every", type=int, default=10, help="iterations (default 10)")
    p.add_argument("--policies", choices=POLICY_MODES, default="shared")
    p.add_argument("--league-size", type=int, default=0, help="frozen snapshots (default 0)")
    p.add_argument("--snapshot-every", type=int, default=5, help="iterations (default 5)")
    p.add_argument("--self-play-prob", type=float, default=0.5)
    p.add_argument("--hidden", type=int, nargs="+", default=list(DEFAULT_HIDDEN))
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--train-batch-size", type=int, default=4000)
    p.add_argument("--minibatch-size", type=int, default=256)
    p.add_argument("--num-epochs", type=int, default=10)
    p.add_argument("--entropy-coeff", type=float, default=0.01)
    p.add_argument("--gamma", type=float, default=1.0, help="discount (default 1.0)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--torch-threads", type=int, help="torch threads of the driver's learner (default: torch's)"
    )
    p.add_argument("--eval-games", type=int, default=100, help="arena games per opponent")
    p.add_argument("--eval-opponents", nargs="*", default=["random", "greedy"])
    p.add_argument(
        "--sample", action="store_true", help="evaluate sampled moves (default: the most likely)"
    )
    p.add_argument(
        "--deterministic", action="store_true", help="evaluate the most likely move (the default)"
    )
    p.add_argument("--eval-ray", action="store_true", help="spread the arena over Ray workers")
    p.add_argument(
        "--select-against",
        metavar="SPEC",
        help="checkpoint selection: score the learners against this agent every --select-every "
        "iterations (same deals each time, not the evaluation's) and evaluate the best-scored "
        "checkpoint, saved as best/ (default: no selection, evaluate the last)",
    )
    p.add_argument("--select-every", type=int, default=10, help="iterations (default 10)")
    p.add_argument("--select-games", type=int, default=100, help="games per score (default 100)")
    return p


def main(argv: list[str] | None = None) -> int:
    """Train, checkpoint and evaluate as the command line says; return the exit code."""
    import ray

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.sample and args.deterministic:
        parser.error("--sample and --deterministic exclude each other")
    if args.torch_threads:
        import torch

        torch.set_num_threads(args.torch_threads)
    env_kwargs = dict(args.param or [])
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    init_ray(args.address, num_cpus=args.num_cpus)
    try:
        config = self_play_config(
            args.env,
            env_kwargs,
            policies=args.policies,
            league_size=args.league_size,
            snapshot_every=args.snapshot_every,
            self_play_prob=args.self_play_prob,
            num_env_runners=args.num_env_runners,
            envs_per_env_runner=args.envs_per_env_runner,
            hidden=args.hidden,
            lr=args.lr,
            train_batch_size=args.train_batch_size,
            minibatch_size=args.minibatch_size,
            num_epochs=args.num_epochs,
            entropy_coeff=args.entropy_coeff,
            gamma=args.gamma,
            seed=args.seed,
        )
        algo = config.build_algo()
        if args.resume:
            algo.restore_from_path(str(Path(args.resume).resolve()))
            print(f"resumed from {args.resume} at iteration {algo.iteration}", flush=True)
        log_file = (out / "train_log.jsonl").open("a")

        def log(record: dict, result: dict) -> None:
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

        checkpoint = out / "checkpoint"
        select = None
        if args.select_against:
            select = arena_yardstick(
                args.env,
                env_kwargs,
                args.select_against,
                args.select_games,
                seed=args.seed + 1_000_003,  # other deals than the final evaluation's
                workdir=out / "candidate",
                deterministic=not args.sample,
            )
        t0 = time.perf_counter()
        records = train_iterations(
            algo,
            args.iterations,
            checkpoint_dir=checkpoint,
            checkpoint_every=args.checkpoint_every,
            time_budget=None if args.time_budget is None else 60 * args.time_budget,
            log=log,
            select=select,
            select_every=args.select_every,
            best_dir=out / "best",
        )
        train_seconds = time.perf_counter() - t0
        log_file.close()
        algo.stop()
        results: dict = {
            "env": args.env,
            "env_kwargs": env_kwargs,
            "args": {k: v for k, v in vars(args).items() if k != "param"},
            "iteration": records[-1]["iteration"] if records else None,
            "env_steps": records[-1]["env_steps"] if records else None,
            "train_seconds": train_seconds,
            "checkpoint": str(checkpoint),
            "evaluation": [],
        }
        evaluated = checkpoint
        if select is not None:
            scored = [r for r in records if "score" in r]
            chosen = max(scored, key=lambda r: r["score"])  # the first of equal scores
            results["selected"] = {
                "against": args.select_against,
                "games": args.select_games,
                "iteration": chosen["iteration"],
                "env_steps": chosen["env_steps"],
                "score": chosen["score"],
                "checkpoint": str(out / "best"),
            }
            evaluated = out / "best"
            print(
                f"evaluating best/: iteration {chosen['iteration']:.0f}, score "
                f"{chosen['score']:.3f} against {args.select_against}",
                flush=True,
            )
        agent = RLlibAgent.load(evaluated, deterministic=not args.sample)
        for opponent in args.eval_opponents:
            arena = run_arena(
                args.env,
                [agent, opponent],
                args.eval_games,
                seed=args.seed + 1,
                env_kwargs=env_kwargs,
                ray_workers=args.num_env_runners if args.eval_ray else 0,
            )
            print(arena.table(), flush=True)
            stats = arena.to_dict(timing=False)["agents"][0]
            results["evaluation"].append(
                {"opponent": opponent, "games": args.eval_games}
                | {k: stats[k] for k in ("wins", "draws", "losses", "win_rate", "win_ci95")}
            )
        (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
        print(f"wrote {out / 'results.json'}")
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
