"""RLlib sampling throughput (env steps/s) of the self-play setup with R env runners.

Run from the repository root (needs the ``rllib`` extra)::

    python benchmarks/rllib_sampling.py --env iris_v0 --num-env-runners 1 2 --num-cpus 2

For each R it builds ``self_play_config(env, num_env_runners=R)`` on a local Ray instance, lets
every runner sample ``--steps`` env steps once to warm up, then times ``--rounds`` rounds in
which all runners sample ``--steps`` env steps each at the same time (masked module, exploring,
no learning) and reports the env steps of all runners per wall-clock second: the median round
and the mean. ``--address`` joins a cluster instead. An unknown env or a count out of range is
one line ``rllib_sampling.py: error: ...`` naming the option, before Ray is imported or started.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from dataclasses import dataclass

from tabletop_envs.core.config import Config, parse_command, setting
from tabletop_envs.envs.registry import registered_env
from tabletop_envs.training.rllib import self_play_config


@dataclass
class SamplingConfig(Config):
    """The command line of this script."""

    env: str = setting("iris_v0", check=registered_env, help="registered env")
    num_env_runners: tuple[int, ...] = setting((1, 2), low=1, help="env runners, each measured")
    envs_per_env_runner: int = setting(4, low=1, help="envs each runner steps")
    steps: int = setting(4000, low=1, help="env steps per runner per round")
    rounds: int = setting(3, low=1, help="timed rounds")
    num_cpus: int | None = setting(None, low=1, help="CPUs of the local Ray instance")
    address: str | None = setting(None, help="Ray cluster to join (default: a local instance)")


def measure(env: str, runners: int, envs_per_runner: int, steps: int, rounds: int) -> dict:
    """Return the sampling throughput of ``runners`` env runners (steps/s per round)."""
    config = self_play_config(
        env, num_env_runners=runners, envs_per_env_runner=envs_per_runner, hidden=(128, 128)
    )
    algo = config.build_algo()
    try:
        group = algo.env_runner_group

        def sample_all() -> int:
            episodes = group.foreach_env_runner(
                lambda r: r.sample(num_timesteps=steps, explore=True), local_env_runner=False
            )
            return sum(e.env_steps() for batch in episodes for e in batch)

        sample_all()  # warm-up
        rates = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            done = sample_all()
            rates.append(done / (time.perf_counter() - t0))
    finally:
        algo.stop()
    return {
        "env": env,
        "num_env_runners": runners,
        "envs_per_env_runner": envs_per_runner,
        "steps_per_round_per_runner": steps,
        "rounds": rounds,
        "median_steps_per_s": statistics.median(rates),
        "mean_steps_per_s": statistics.fmean(rates),
    }


def main(argv: list[str] | None = None) -> int:
    """Measure every requested number of env runners; print one JSON line each."""
    # before Ray is imported or started
    args, _ = parse_command(
        SamplingConfig, argv, prog="rllib_sampling.py", description=__doc__.split("\n\n")[0]
    )
    import ray

    init: dict = {"address": args.address or "local", "include_dashboard": False}
    if args.num_cpus and not args.address:
        init["num_cpus"] = args.num_cpus
    ray.init(log_to_driver=False, **init)
    try:
        for runners in args.num_env_runners:
            result = measure(args.env, runners, args.envs_per_env_runner, args.steps, args.rounds)
            print(json.dumps(result), flush=True)
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
