"""The configuration of an AlphaZero-style run, declared once: every setting, its check and help.

:class:`AZConfig` is a :class:`~tabletop_envs.core.config.Config`: each field's type, default,
bounds and help are declared here, and from that one declaration come the checks (a wrong value
raises :class:`~tabletop_envs.core.errors.InvalidParameterError` naming the field and what is
valid), the command line (:mod:`tabletop_envs.training.az.cli`) and ``--help``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import InitVar, dataclass
from pathlib import Path
from typing import Any, ClassVar

from tabletop_envs.core.config import Config, check_field, quote, setting, setting_types
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.envs.registry import env_spec, registered_envs, score_key
from tabletop_envs.evaluation.paths import check_new_run, folder_problem
from tabletop_envs.search.gumbel import DEFAULT_CONSIDERED, MAX_CONSIDERED
from tabletop_envs.search.network import ROLLOUT_POLICIES
from tabletop_envs.search.network_file import ROOTS
from tabletop_envs.search.network_layout import ARCHS, DEFAULT_CONV
from tabletop_envs.search.values import VALUE_TARGETS
from tabletop_envs.training.checks import TORCH_SEED_HIGH, check_agent_specs, probe_game

#: Weights of ``model.npz``: float16 halves the file.
MODEL_DTYPES = ("float32", "float16")
#: Iterations of a run given neither ``iterations`` nor a time budget.
DEFAULT_ITERATIONS = 10
#: Output folder of a run that is not resumed (a resumed run writes into its own folder).
DEFAULT_OUT = "runs/az"
#: What a run writes into its ``out`` folder: a new run refuses a folder holding any of them.
RUN_FILES = ("model.npz", "best.npz", "checkpoint.pt", "buffer.npz", "results.json", "winrate.png")
#: Settings renamed in 0.2 (one word for one thing: a playout policy is a ``playout``, its
#: share of the leaf values the ``playout_weight``): old name -> new name. ``AZConfig`` takes
#: the old names as keywords (with a DeprecationWarning) and in ``from_dict`` (old files);
#: the command line keeps the old flags (``--rollout-weight`` ...) as aliases.
OLD_NAMES = {
    "rollout_weight": "playout_weight",
    "eval_rollout_weight": "eval_playout_weight",
    "rollout_policy": "playout",
    "eval_rollout_policy": "eval_playout",
}


def resumed_folder(resume: str) -> str:
    """Return the folder of the run ``resume`` names (its folder, or its ``checkpoint.pt``)."""
    path = Path(resume).expanduser()
    return str(path.parent if path.suffix == ".pt" else path)


def new_names(data: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``data`` with the keys of :data:`OLD_NAMES` renamed (records written before 0.2).

    InvalidParameterError if a key is given under both names with different values.
    """
    out = {k: v for k, v in data.items() if k not in OLD_NAMES}
    for old, new in OLD_NAMES.items():
        if old in data:
            if new in data and data[new] != data[old]:
                raise InvalidParameterError(
                    f"{old} is the old name of {new}: give only {new} (got both, "
                    f"{quote(data[old])} and {quote(data[new])})"
                )
            out[new] = data[old]
    return out


# ---- checks of one value (each returns the problem, or None) ---------------------------------
def _positive(value: float) -> str | None:
    return None if value > 0 else "must be a number > 0"


def _share(value: float) -> str | None:
    return None if 0 <= value <= 1 else "must be in [0, 1]"


def _one_of(names: tuple[str, ...], joined: str) -> Callable[[str], str | None]:
    def check(value: str) -> str | None:
        return None if value in names else f"must be {joined}"

    return check


def _layers(widths: tuple[int, ...]) -> str | None:
    return None if widths else "must be one or more layer widths >= 1"


def _minutes(value: float) -> str | None:
    return None if value > 0 else "must be a number of minutes > 0"


def _choices(names: tuple[str, ...]) -> str:
    return "{" + ",".join(names) + "}"


#: Widest hidden layer a run may ask for (a typo of 10**8 would otherwise exhaust memory).
MAX_WIDTH = 8192


@dataclass
class AZConfig(Config):
    """Everything an AlphaZero-style run depends on (saved with its results); checked on init."""

    about: ClassVar[str] = (
        "AlphaZero-style self-play training of a policy-value network (torch), shipped as a "
        "numpy file."
    )

    env: str = setting("iris_v0", help=f"registered env ({', '.join(registered_envs())})")
    env_kwargs: dict[str, Any] = setting(
        default_factory=dict,
        flags=("--param", "--env-arg"),
        metavar="K=V",
        help="game parameter, e.g. num_players=3; repeat (default: the game's defaults)",
    )
    hidden: tuple[int, ...] = setting(
        (256, 256),
        low=1,
        high=MAX_WIDTH,
        check=_layers,
        cli=False,  # the command line takes widths comma-separated: see cli.py
        help="hidden layer widths of the MLP (with --arch conv: the dense layers after the "
        "conv trunk), comma-separated",
    )
    arch: str = setting(
        "mlp",
        choices=ARCHS,
        help="the network: mlp (dense layers over the flat observation) or conv (3x3 "
        "convolutions and residual blocks over the game's board planes, a 1x1 reduction, then "
        "the --hidden layers over that map and the other observation entries)",
    )
    conv_channels: int = setting(
        DEFAULT_CONV["channels"],
        low=1,
        high=256,
        help="--arch conv: channels of every 3x3 convolution (each doubling is about 4 times the "
        "trunk's work; above 16, Iris's convolutions are large enough for OpenBLAS to start "
        "threads in the numpy agent, slow on a busy machine: play with OPENBLAS_NUM_THREADS=1)",
    )
    conv_blocks: int = setting(
        DEFAULT_CONV["blocks"],
        low=0,
        high=16,
        help="--arch conv: residual blocks after the first convolution",
    )
    conv_head_channels: int = setting(
        DEFAULT_CONV["head_channels"],
        low=1,
        high=64,
        help="--arch conv: channels of the 1x1 reduction the dense layers read",
    )
    games: int = setting(
        64,
        low=1,
        help="self-play games per iteration, played in lockstep (one batched search per move)",
    )
    simulations: int = setting(64, low=1, help="PUCT simulations per move")
    c_puct: float = setting(1.5, check=_positive, help="PUCT exploration")
    root: str = setting(
        "puct",
        choices=ROOTS,
        help="self-play's root rule: puct (visit counts as targets, Dirichlet noise, "
        "--temperature-moves, --target-temperature) or gumbel (Gumbel top-k candidates and "
        "sequential halving; the Gumbel draws choose the moves, the targets are "
        "softmax(logits + sigma(completed Q)); no root noise)",
    )
    considered: int = setting(
        DEFAULT_CONSIDERED,
        low=1,
        high=MAX_CONSIDERED,
        help="--root gumbel: candidate actions at the root",
    )
    dirichlet_alpha: float | None = setting(
        None,
        check=lambda v: None if v > 0 else "must be a number > 0 (or None: automatic)",
        help="root noise concentration (default: 10 / the mean number of legal moves in "
        "random playouts, clipped to [0.03, 1])",
    )
    dirichlet_fraction: float = setting(
        0.1,
        check=_share,
        help="share of root noise in the priors, 0-1 (0.25 moved a quarter of 64-simulation "
        "moves in Iris: the noise outweighed what the search learnt)",
    )
    temperature_moves: int = setting(
        10, low=0, help="moves of each game sampled from the visit counts; the most visited after"
    )
    target_temperature: float = setting(
        1.0,
        check=_positive,
        help="policy target: the root visits raised to 1/T, normalized (T < 1 sharpens: with "
        "few simulations the visits are flatter than the play they lead to)",
    )
    value_target: str = setting(
        "result",
        check=_one_of(VALUE_TARGETS, "one of " + ", ".join(VALUE_TARGETS)),
        metavar=_choices(VALUE_TARGETS),
        help="result: +1 win, 0 shared win, -1 loss; score: tanh(score margin / --score-scale) "
        "(isis_osiris_v0, irk_v0)",
    )
    score_scale: float = setting(
        10.0, check=_positive, help="points of margin for --value-target score"
    )
    iterations: int | None = setting(
        None,
        low=0,
        help=f"iterations in all, a resumed run's included (default: {DEFAULT_ITERATIONS}, or "
        "until --time-budget when one is given; 0: until --time-budget)",
    )
    time_budget: float | None = setting(
        None,
        check=_minutes,
        metavar="MINUTES",
        help="wall clock of this run: no iteration starts that would end past it (default: none)",
    )
    buffer_size: int = setting(
        0, low=0, help="replay buffer positions (0: up to 100000, at most 512 MB)"
    )
    batch_size: int = setting(256, low=1, help="minibatch rows")
    sample_reuse: float = setting(
        4.0,
        check=_positive,
        help="minibatch rows drawn per new position: steps = ceil(reuse * new / batch size)",
    )
    learning_rate: float = setting(
        1e-3, check=_positive, flags=("--lr",), help="AdamW learning rate"
    )
    weight_decay: float = setting(
        1e-4, low=0, help="AdamW's decoupled weight decay (per step: lr * this * weight)"
    )
    eval_every: int = setting(
        5, low=0, help="iterations between arena evaluations of model.npz (0: none)"
    )
    eval_games: int = setting(40, low=1, help="games per periodic evaluation")
    eval_opponents: tuple[str, ...] = setting(
        ("greedy", "random"),
        metavar="SPEC",
        help="agent specs the network is evaluated against, seats rotated",
    )
    eval_simulations: int | None = setting(
        None,
        low=0,
        help="simulations per move of the evaluated AZAgent (default: --simulations)",
    )
    playout_weight: float = setting(
        0.0,
        check=_share,
        flags=("--playout-weight", "--rollout-weight"),
        help="weight of a playout's result in self-play's leaf values, 0-1 (0: network only)",
    )
    eval_playout_weight: float | None = setting(
        None,
        check=_share,
        flags=("--eval-playout-weight", "--eval-rollout-weight"),
        help="the same for the evaluated agent and the file's default (default: --playout-weight)",
    )
    playout: str = setting(
        "random",
        choices=ROLLOUT_POLICIES,
        flags=("--playout", "--rollout-policy"),
        help="how self-play's playouts move: random, or greedy for every seat",
    )
    eval_playout: str | None = setting(
        None,
        choices=ROLLOUT_POLICIES,
        flags=("--eval-playout", "--eval-rollout-policy"),
        help="the same for the evaluated agent and the file's default (default: --playout)",
    )
    final_eval_games: int = setting(
        200, low=0, help="games per opponent in the final evaluation (0: none)"
    )
    keep_best: bool = setting(
        False,
        help="keep best.npz, the model the periodic evaluations score highest (mean of wins + "
        "draws/2 over --eval-opponents; later iterations win ties); the final evaluation plays it",
    )
    save_buffer: bool = setting(
        True,
        help="write buffer.npz (--no-save-buffer: a resumed run then starts with an empty buffer)",
    )
    resume: str | None = setting(
        None, metavar="PATH", help="continue a run: its directory or checkpoint.pt"
    )
    opponent: str | None = setting(
        None,
        metavar="SPEC",
        help="an agent seated in --opponent-share of the games (seats rotated), e.g. greedy; "
        "the network learns from its own moves there (default: none, pure self-play)",
    )
    opponent_share: float = setting(
        0.5, check=_share, help="share of each iteration's games with --opponent in them, 0-1"
    )
    model_dtype: str = setting(
        "float32",
        check=_one_of(MODEL_DTYPES, " or ".join(MODEL_DTYPES)),
        metavar=_choices(MODEL_DTYPES),
        help="weights of model.npz; float16 halves the file (outputs move by about 1e-3)",
    )
    warm_start: str | None = setting(
        None,
        metavar="SPEC",
        help="before self-play, fit the net to this agent's games against itself, e.g. greedy "
        "(default: none, self-play from random weights)",
    )
    warm_games: int = setting(2000, low=1, help="games the --warm-start agent plays")
    warm_epochs: float = setting(4.0, check=_positive, help="passes over the warm-start positions")
    warm_epsilon: float = setting(
        0.15,
        check=_share,
        help="share of uniformly random moves in the warm-start games, 0-1 (the targets stay "
        "the agent's)",
    )
    warm_temperature: float | None = setting(
        None,
        check=lambda v: None if v > 0 else "must be a number > 0 (or None: the tied-best actions)",
        help="policy target softmax(score / T) of the agent's action scores (default: uniform "
        "over its tied-best actions)",
    )
    warm_learning_rate: float | None = setting(
        None,
        check=lambda v: None if v > 0 else "must be a number > 0 (or None: learning_rate)",
        flags=("--warm-lr",),
        help="Adam learning rate of the warm start (default: --lr)",
    )
    seed: int = setting(0, low=0, high=TORCH_SEED_HIGH, help="seed of the run")
    threads: int = setting(
        1,
        low=0,
        high=4096,
        help="torch threads (0: torch's default); 1 is fastest for these small nets",
    )
    out: str | None = setting(
        None,
        check=folder_problem,
        help="output folder (relative to the current folder, or absolute; made if missing; "
        "default: the run's folder with --resume, else runs/az)",
    )
    overwrite: bool = setting(
        False,
        help="replace an earlier run in --out (refused otherwise: nothing is lost; a resumed run "
        "goes on in its folder)",
    )
    progress_bar: bool = setting(
        True, flags=("--progress",), help="a progress bar (--no-progress: a line per iteration)"
    )
    # the old names of four fields (see OLD_NAMES), accepted with a DeprecationWarning
    rollout_weight: InitVar[float | None] = None
    eval_rollout_weight: InitVar[float | None] = None
    rollout_policy: InitVar[str | None] = None
    eval_rollout_policy: InitVar[str | None] = None

    def __post_init__(
        self,
        rollout_weight: float | None,
        eval_rollout_weight: float | None,
        rollout_policy: str | None,
        eval_rollout_policy: str | None,
    ) -> None:
        self._take_old_names(
            rollout_weight=rollout_weight,
            eval_rollout_weight=eval_rollout_weight,
            rollout_policy=rollout_policy,
            eval_rollout_policy=eval_rollout_policy,
        )
        if self.out is None:  # a resumed run goes on where it was, a new one in runs/az
            self.out = resumed_folder(self.resume) if self.resume else DEFAULT_OUT
        if self.iterations is None:  # the default depends on whether a budget is given
            self.iterations = 0 if self.time_budget is not None else DEFAULT_ITERATIONS
        if isinstance(self.time_budget, float) and not math.isfinite(self.time_budget):
            # the generic check calls infinity "not a number"; say what is valid instead
            raise InvalidParameterError(
                f"time_budget must be a number of minutes > 0, got {quote(self.time_budget)}"
            )
        super().__post_init__()

    def _take_old_names(self, **old: Any) -> None:
        """Set the fields given by their old names, checked under the name the caller used."""
        hints = setting_types(type(self))
        for name, value in old.items():
            if value is None:
                continue
            new = OLD_NAMES[name]
            f = self.__dataclass_fields__[new]
            value = check_field(name, value, hints[new], f.metadata["setting"])
            if getattr(self, new) not in (f.default, value):
                raise InvalidParameterError(f"{name} is the old name of {new}: give only {new}")
            warnings.warn(
                f"AZConfig's {name} is now {new}; the old name will be removed in 0.3",
                DeprecationWarning,
                stacklevel=4,
            )
            setattr(self, new, value)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AZConfig:
        """Build from a mapping of field names; the old names (:data:`OLD_NAMES`) are read too.

        So the ``config`` of a checkpoint or ``results.json`` written before the rename loads.
        """
        return super().from_dict(new_names(data) if isinstance(data, Mapping) else data)

    def run_folder(self) -> str | None:
        """Return the folder of the run this one resumes (None: a new run)."""
        return resumed_folder(self.resume) if self.resume else None

    def check(self) -> None:
        """Checks across fields and against the registries (envs, their parameters, agents); an
        earlier run in ``out`` is kept unless ``overwrite``."""
        check_new_run(self.out, RUN_FILES, overwrite=self.overwrite, resumed_from=self.run_folder())
        probe = probe_game(self.env, self.env_kwargs)
        if self.arch == "conv" and probe.board_planes() is None:
            raise InvalidParameterError(
                f"arch 'conv' reads the game's board planes; {self.env} declares none: use arch "
                "'mlp'"
            )
        if self.value_target == "score" and score_key(probe.game_name) is None:
            with_scores = [n for n in registered_envs() if env_spec(n).score_key is not None]
            raise InvalidParameterError(
                f"value_target 'score' needs a game with final scores ({', '.join(with_scores)}); "
                f"{self.env} has none: use value_target 'result'"
            )
        if self.root == "gumbel" and self.target_temperature != 1.0:
            raise InvalidParameterError(
                "target_temperature sharpens visit counts (root 'puct'); a gumbel root's targets "
                "are its improved policy: leave target_temperature at 1 with root 'gumbel'"
            )
        if self.iterations == 0 and self.time_budget is None:
            raise InvalidParameterError(
                "iterations 0 runs until the time budget: give a time_budget too"
            )
        if self.keep_best and not self.eval_every:
            raise InvalidParameterError(
                "keep_best chooses by the periodic evaluations: give eval_every > 0"
            )
        if self.eval_every and not self.eval_opponents:
            raise InvalidParameterError(
                "periodic evaluations need at least one eval opponent (or eval_every 0)"
            )
        agents = [("eval_opponents", spec) for spec in self.eval_opponents]
        agents += [(name, getattr(self, name)) for name in ("opponent", "warm_start")]
        check_agent_specs(self.env, probe, agents)
