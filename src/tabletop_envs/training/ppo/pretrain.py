"""Imitation before PPO: record ``config.imitate`` playing, fit the policy to it, round by round.

The glue between a :class:`TrainConfig` and :mod:`tabletop_envs.training.imitation` (which
records and fits); rounds after the first are DAgger rounds (the policy cloned so far plays, the
expert labels). Imports torch through the policy it fits.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tabletop_envs.agents.base import Agent
from tabletop_envs.agents.single_agent import SingleAgentEnv
from tabletop_envs.training.imitation import (
    Demonstrations,
    collect_demonstrations,
    pretrain_policy,
)
from tabletop_envs.training.ppo.config import TrainConfig
from tabletop_envs.training.ppo.opponents import env_factory, single_opponent
from tabletop_envs.training.sb3 import PolicyAgent


def imitate(config: TrainConfig, model: Any, log: Callable[[str], None]) -> dict[str, Any]:
    """Behaviour-clone ``config.imitate`` into ``model.policy``; return the fitting stats."""
    if config.imitate is None:
        raise ValueError("imitation needs an expert: set imitate")
    env = env_factory(config, rank=config.n_envs)()
    expert = single_opponent(config.imitate, config.env, config.seed + 55)
    data: Demonstrations | None = None
    rounds: list[dict[str, Any]] = []
    record_seconds = 0.0
    scores = config.imitate_temperature is not None
    for k in range(config.imitate_rounds):
        start = time.perf_counter()
        more = _record_round(config, k, env, expert, model, scores)
        record_seconds += time.perf_counter() - start
        data = more if data is None else data + more
        stats = pretrain_policy(
            model.policy,
            data,
            epochs=config.imitate_epochs,
            batch_size=config.batch_size,
            learning_rate=config.imitate_lr,
            seed=config.seed + k,
            temperature=config.imitate_temperature,
        )
        rounds.append(stats)
        if config.imitate_rounds > 1:
            log(
                f"imitation round {k + 1}: {len(data)} steps, agreement "
                f"{stats['train_agreement']:.3f} (train)"
            )
    return _summary(config, rounds, record_seconds, log)


def _record_round(
    config: TrainConfig, k: int, env: SingleAgentEnv, expert: Agent, model: Any, scores: bool
) -> Demonstrations:
    """Record round ``k``: the expert plays round 0, the policy cloned so far the later ones."""
    if k == 0 and config.imitate_workers > 1:
        return _record_in_workers(config, scores)
    behaviour = (
        None if k == 0 else PolicyAgent(model.policy, deterministic=False, name=f"clone@{k}")
    )
    return collect_demonstrations(
        env,
        expert,
        config.imitate_episodes,
        behaviour=behaviour,
        epsilon=config.imitate_epsilon,
        gamma=config.gamma,
        seed=config.seed + 7 + k,
        scores=scores,
    )


def _record_in_workers(config: TrainConfig, scores: bool) -> Demonstrations:
    """The expert's first-round episodes split between processes, joined in worker order.

    Worker 0 plays what this process would have (the same seeds).
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    share, extra = divmod(config.imitate_episodes, config.imitate_workers)
    jobs = [(config, w, share + (w < extra), scores) for w in range(config.imitate_workers)]
    jobs = [job for job in jobs if job[2]]
    # spawn: the workers must not inherit the parent's torch thread pools
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(len(jobs), mp_context=spawn) as pool:
        parts = list(pool.map(record_expert, *zip(*jobs, strict=True)))
    data = parts[0]
    for part in parts[1:]:
        data = data + part
    return data


def record_expert(config: TrainConfig, worker: int, episodes: int, scores: bool) -> Demonstrations:
    """Record ``episodes`` of ``config.imitate`` playing in the learner's seat (one worker).

    Worker 0 builds the env and expert :func:`imitate` builds for itself, with the same seeds;
    worker ``w`` gets its own env rank, expert seed and deal seeds (offset by ``1000 * w``).
    """
    if config.imitate is None:
        raise ValueError("recording needs an expert: set imitate")
    offset = 1000 * worker
    return collect_demonstrations(
        env_factory(config, rank=config.n_envs + worker)(),
        single_opponent(config.imitate, config.env, config.seed + 55 + offset),
        episodes,
        epsilon=config.imitate_epsilon,
        gamma=config.gamma,
        seed=config.seed + 7 + offset,
        scores=scores,
    )


def _summary(
    config: TrainConfig,
    rounds: list[dict[str, Any]],
    record_seconds: float,
    log: Callable[[str], None],
) -> dict[str, Any]:
    """Return the last round's stats with every round's, the timings and the expert; log them."""
    stats = dict(rounds[-1], rounds=rounds, collect_seconds=record_seconds)
    stats["collect_workers"] = config.imitate_workers
    stats["fit_seconds"] = sum(r["fit_seconds"] for r in rounds)
    stats["expert"] = config.imitate
    agree = stats["validation_agreement"]
    log(
        f"imitated {config.imitate}: {stats['steps']} steps from {stats['episodes']} episodes "
        f"({stats['collect_seconds']:.0f} s to record, {stats['fit_seconds']:.0f} s to fit); "
        f"agreement {stats['train_agreement']:.3f} (train)"
        + ("" if agree is None else f", {agree:.3f} (held out)")
    )
    return stats
