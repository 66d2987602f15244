"""Ray for evaluations: the one place the library starts Ray, and the arena's fan-out.

:func:`init_ray` joins a cluster or starts a local instance (training, the arena's ``--ray``
workers and the command line all go through it). :func:`play_on_ray` plays an arena's games
in Ray tasks; each game depends only on its own seeds (:func:`~.play.game_seeds`), so the
results equal the local arena's. Ray is imported only when these functions run (the
``rllib`` extra).
"""

from __future__ import annotations

import os
from typing import Any

from tabletop_envs.agents.base import Agent
from tabletop_envs.core.config import quote
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.evaluation.play import PlayedGame, Progress, play_games


class RayAddressError(InvalidParameterError):
    """An address Ray cannot read (its message names the ``address`` argument)."""


def init_ray(
    address: str | None = None, *, num_cpus: int | None = None, log_to_driver: bool = True
) -> None:
    """Join the Ray cluster at ``address`` (else ``RAY_ADDRESS``), or start a local instance.

    The one place the library starts Ray (training, the arena's ``--ray`` workers, the CLI).
    Does nothing if Ray is already initialized in this process. ``num_cpus`` caps a *local*
    instance (a cluster has its own resources); ValueError if ray is not installed.
    """
    try:
        import ray
    except ImportError as err:
        raise ValueError(f"this needs ray: pip install 'tabletop_envs[rllib]' ({err})") from None
    if ray.is_initialized():
        return
    address = address or os.environ.get("RAY_ADDRESS") or "local"
    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": log_to_driver}
    if address == "local" and num_cpus:
        kwargs["num_cpus"] = num_cpus
    try:
        ray.init(address=address, **kwargs)
    except ValueError as err:  # Ray's "Invalid address format: foo"
        raise RayAddressError(
            f"address {quote(address)} is no Ray address ({err}); give HOST:PORT of a running "
            "Ray cluster's head, 'auto' to find one, or 'local' (the default) to start one here"
        ) from None


def play_on_ray(
    env_name: str,
    env_kwargs: dict[str, Any],
    agents: list[str | Agent],
    games: int,
    seed: int,
    workers: int,
    progress: Progress | None = None,
) -> list[PlayedGame]:
    """Play the games in ``workers`` Ray tasks (interleaved game ids); return them in order.

    What a game raises (an agent's error) is raised here as the local arena raises it.
    """
    init_ray()  # joins RAY_ADDRESS or starts a local Ray, unless this process has one
    import ray
    from ray.exceptions import RayTaskError

    task = ray.remote(play_games)
    chunks = [list(range(w, games, workers)) for w in range(min(workers, games))]
    pending = {task.remote(env_name, env_kwargs, agents, ids, seed): ids for ids in chunks}
    by_id: dict[int, PlayedGame] = {}
    while pending:
        ready, _ = ray.wait(list(pending))
        for ref in ready:
            ids = pending.pop(ref)
            try:
                played = ray.get(ref)
            except RayTaskError as err:  # what a game raised, as the local arena raises it
                raise err.cause from None  # (an agent's error, not a task's traceback)
            by_id.update(zip(ids, played, strict=True))
            if progress is not None:
                progress(len(by_id), games)
    return [by_id[g] for g in range(games)]


def shutdown_ray() -> None:
    """Stop this process's Ray connection (a local instance it started ends with it)."""
    import ray

    ray.shutdown()


__all__ = ["RayAddressError", "init_ray", "play_on_ray", "shutdown_ray"]
