"""RLlib self-play settings, declared once: the PPO/league settings and a whole run's.

:class:`SelfPlaySettings` is what :func:`tabletop_envs.training.rllib.self_play_config` builds a
``PPOConfig`` from; :class:`RLlibConfig` adds what ``examples/train_rllib.py`` does around it
(Ray, iterations, checkpoints, selection, the final arena) and is that script's command line.
Every field is checked when built (InvalidParameterError naming it). Imports neither ray nor
torch.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tabletop_envs.core.config import Config, setting
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.envs.registry import registered_env
from tabletop_envs.evaluation.paths import check_new_run, folder_problem
from tabletop_envs.training.checks import SEED_HIGH

#: ``"shared"``: one module ``"main"`` plays every seat; ``"per_seat"``: ``"seat_<i>"`` per seat.
POLICY_MODES = ("shared", "per_seat")
#: What a run writes into its ``out`` folder: a new run refuses a folder holding any of them.
RUN_FILES = ("checkpoint", "best", "candidate", "train_log.jsonl", "results.json")
#: Default hidden layers of the masked PPO module's MLP (policy and value function).
DEFAULT_HIDDEN = (256, 256)


def _layer_sizes(sizes: tuple[int, ...]) -> str | None:
    return None if all(size >= 1 for size in sizes) else "must be layer sizes >= 1"


@dataclass(frozen=True)
class SelfPlaySettings(Config):
    """Self-play PPO with RLlib: modules, league, sampling and PPO's own settings."""

    policies: str = setting(
        "shared",
        choices=POLICY_MODES,
        help="shared: one module 'main' plays every seat; per_seat: one module per seat",
    )
    league_size: int = setting(0, low=0, help="frozen snapshots per learner (0: pure self-play)")
    snapshot_every: int = setting(5, low=1, help="iterations between league refreshes")
    self_play_prob: float = setting(
        0.5,
        low=0.0,
        high=1.0,
        help="with a league: chance an opponent seat is the learner itself, else a snapshot",
    )
    num_env_runners: int = setting(2, low=0, help="sampling processes (0: sample in the driver)")
    envs_per_env_runner: int = setting(1, low=1, help="envs each sampling process steps")
    hidden: tuple[int, ...] = setting(
        DEFAULT_HIDDEN, check=_layer_sizes, help="hidden layer sizes of the masked module's MLP"
    )
    lr: float = setting(3e-4, low=0.0, help="PPO learning rate")
    train_batch_size: int = setting(4000, low=1, help="env steps per training batch (per learner)")
    minibatch_size: int = setting(256, low=1, help="PPO minibatch size")
    num_epochs: int = setting(10, low=1, help="PPO epochs per batch")
    entropy_coeff: float = setting(0.01, low=0.0, help="entropy bonus")
    gamma: float = setting(
        1.0,
        low=0.0,
        high=1.0,
        help="discount (1.0: the only reward is the result at the end, which a discount would "
        "shrink for early moves)",
    )
    seed: int | None = setting(
        None, low=0, high=SEED_HIGH, help="seed of RLlib's RNGs (none: unseeded)"
    )

    def self_play(self) -> SelfPlaySettings:
        """Return these settings alone (a subclass's other fields dropped)."""
        names = [f.name for f in dataclasses.fields(SelfPlaySettings)]
        return SelfPlaySettings(**{name: getattr(self, name) for name in names})


@dataclass(frozen=True)
class RLlibConfig(SelfPlaySettings):
    """A self-play run of ``examples/train_rllib.py``: train, checkpoint, select, evaluate."""

    about = "Self-play PPO with RLlib on any registered env: train, checkpoint, resume, evaluate."

    env: str = setting("iris_v0", check=registered_env, help="registered env name")
    env_kwargs: dict[str, Any] = setting(
        default_factory=dict, flags=("--param",), help="game parameter; repeat"
    )
    iterations: int = setting(20, low=1, help="train up to this iteration")
    address: str | None = setting(
        None, help="Ray cluster to join (default: RAY_ADDRESS, else a local instance)"
    )
    num_cpus: int | None = setting(None, low=1, help="CPUs of a local Ray instance (default: all)")
    out: str = setting(
        "runs/rllib",
        check=folder_problem,
        help="output folder (relative to the current folder, or absolute; made if missing)",
    )
    overwrite: bool = setting(
        False,
        help="replace an earlier run in --out (refused otherwise: nothing is lost; a resumed run "
        "goes on in its folder)",
    )
    resume: str | None = setting(
        None,
        metavar="CHECKPOINT",
        help="continue from an algorithm checkpoint (a relative or absolute path)",
    )
    time_budget: float | None = setting(
        None, low=0.0, metavar="MINUTES", help="stop training after this many minutes"
    )
    checkpoint_every: int = setting(10, low=1, help="iterations between checkpoints")
    seed: int = setting(
        0, low=0, high=SEED_HIGH, help="seed of RLlib's RNGs and of the arena's deals"
    )
    torch_threads: int | None = setting(
        None, low=0, help="torch threads of the driver's learner (0 or none: torch's default)"
    )
    eval_games: int = setting(100, low=1, help="arena games per opponent")
    eval_opponents: tuple[str, ...] | None = setting(
        ("random", "greedy"),
        metavar="SPEC",
        help="agents the final checkpoint plays in the arena (none: no evaluation)",
    )
    sample: bool = setting(False, help="evaluate sampled moves instead of the most likely")
    deterministic: bool = setting(
        False, help="evaluate the most likely move (what is evaluated without --sample)"
    )
    eval_ray: bool = setting(False, help="spread the arena over Ray workers")
    select_against: str | None = setting(
        None,
        metavar="SPEC",
        help="checkpoint selection: score the learners against this agent every --select-every "
        "iterations (same deals each time, not the evaluation's) and evaluate the best-scored "
        "checkpoint, saved as best/ (default: no selection, evaluate the last)",
    )
    select_every: int = setting(10, low=1, help="iterations between selection scores")
    select_games: int = setting(100, low=1, help="games per selection score")

    def run_folder(self) -> str | None:
        """Return the folder of the run this one resumes: its checkpoint's (None: a new run)."""
        return str(Path(self.resume).expanduser().parent) if self.resume else None

    def check(self) -> None:
        """``sample`` and ``deterministic`` exclude each other; an earlier run in ``out`` stays."""
        check_new_run(self.out, RUN_FILES, overwrite=self.overwrite, resumed_from=self.run_folder())
        if self.sample and self.deterministic:
            raise InvalidParameterError(
                "sample and deterministic exclude each other (deterministic is the default)"
            )
