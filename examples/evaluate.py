"""Evaluate a saved MaskablePPO model in the arena against baseline agents.

    python examples/evaluate.py runs/latest/model.zip --env iris_v0 --opponents random greedy \
        --games 400 [--sample] [--threads 1] [--json eval.json]

For each opponent the model plays ``--games`` games with seats alternated (the arena rotates
seats), and the win rate is printed with its 95% Wilson interval. The model plays its most
likely action, as training's evaluations do (``--sample`` samples from the policy instead), with
torch pinned to ``--threads`` threads (1: the fastest for these small networks). The model
is loaded as an ``sb3:PATH`` agent (:class:`tabletop_envs.training.PolicyAgent`), so any arena
or CLI command takes it too:
``tabletop-envs evaluate --env iris_v0 --agents sb3:runs/latest/model.zip greedy``.
"""

from __future__ import annotations

import argparse
import json
import sys

from tabletop_envs.core.config import parse_assignment
from tabletop_envs.evaluation.arena import run_arena


def evaluate_model(
    model: str,
    env: str,
    opponents: list[str],
    games: int,
    seed: int = 0,
    deterministic: bool = True,
    env_kwargs: dict | None = None,
    threads: int = 1,
) -> dict[str, dict]:
    """Play the model against each opponent in the arena; return each opponent's summary."""
    spec = f"sb3:{model}" + ("" if deterministic else ",sample")
    spec += "" if threads == 1 else f",threads={threads}"  # 1 is the sb3 agents' default
    out = {}
    for opponent in opponents:
        result = run_arena(env, [spec, opponent], games, seed=seed, env_kwargs=env_kwargs)
        print(result.table(), "\n", flush=True)
        out[opponent] = result.to_dict(timing=False)["agents"][0]
    return out


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, evaluate, print a one-line summary per opponent."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model", help="a MaskablePPO .zip saved by train_maskable_ppo.py")
    p.add_argument("--env", required=True)
    p.add_argument("--env-arg", action="append", default=[], metavar="K=V")
    p.add_argument("--opponents", nargs="+", default=["random"], help="agent specs")
    p.add_argument("--games", type=int, default=400)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--sample", action="store_true", help="sample moves (default: the most likely action)"
    )
    p.add_argument(
        "--deterministic", action="store_true", help="play the most likely action (the default)"
    )
    p.add_argument("--threads", type=int, default=1, help="torch threads (default 1; 0: torch's)")
    p.add_argument("--json", help="write the summaries to this file")
    args = p.parse_args(argv)
    if args.sample and args.deterministic:
        p.error("--sample and --deterministic exclude each other")
    summaries = evaluate_model(
        args.model,
        args.env,
        args.opponents,
        args.games,
        seed=args.seed,
        deterministic=not args.sample,
        env_kwargs=dict(parse_assignment(item) for item in args.env_arg),
        threads=args.threads,
    )
    for opponent, s in summaries.items():
        low, high = s["win_ci95"]
        print(
            f"win rate vs {opponent}: {s['win_rate']:.3f} (95% CI {low:.3f}-{high:.3f}; "
            f"{s['wins']}W {s['draws']}D {s['losses']}L over {s['results']} games)"
        )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(summaries, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
