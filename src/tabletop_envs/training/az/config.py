"""The configuration of an AlphaZero-style run: every setting, its default and its check."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

from tabletop_envs.agents.az import ROLLOUT_POLICIES
from tabletop_envs.agents.registry import make_agent
from tabletop_envs.envs.registry import env_spec, registered_envs, score_key

#: What the value head learns: the game's result (win +1, shared win 0, loss -1, from the
#: seat's view) or ``tanh(score margin / score_scale)`` for games with scores.
VALUE_TARGETS = ("result", "score")
#: Iterations of a run given neither ``iterations`` nor a time budget.
DEFAULT_ITERATIONS = 10


@dataclass
class AZConfig:
    """Everything an AlphaZero-style run depends on (saved with its results); checked on init."""

    env: str = "iris_v0"
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    hidden: tuple[int, ...] = (256, 256)
    games: int = 64  # games played in lockstep per iteration (one batched search per move)
    simulations: int = 64  # PUCT simulations per move
    c_puct: float = 1.5
    dirichlet_alpha: float | None = None  # None: 10 / mean legal moves (random playouts)
    dirichlet_fraction: float = 0.25
    temperature_moves: int = 10  # moves of a game sampled from the visits; argmax after
    target_temperature: float = 1.0  # policy target visits ** (1 / T), normalized
    value_target: str = "result"  # result | score
    score_scale: float = 10.0  # points: value target tanh(margin / score_scale)
    iterations: int | None = None  # in all, resumed ones included; None: 10, or 0 with a
    # time budget; 0: until the time budget
    time_budget: float | None = None  # minutes of this run; no iteration starts past it
    buffer_size: int = 0  # positions; 0: min(100_000, what fits in 512 MB)
    batch_size: int = 256
    sample_reuse: float = 4.0  # minibatch rows drawn per new position (sets the steps)
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    eval_every: int = 5  # iterations between arena evaluations; 0: none
    eval_games: int = 40
    eval_opponents: tuple[str, ...] = ("greedy", "random")
    eval_simulations: int | None = None  # None: simulations
    rollout_weight: float = 0.0  # weight of random playouts in self-play's leaf values
    eval_rollout_weight: float | None = None  # None: rollout_weight
    rollout_policy: str = "random"  # how playouts move: random | greedy
    eval_rollout_policy: str | None = None  # None: rollout_policy
    final_eval_games: int = 200
    keep_best: bool = False  # keep best.npz, the periodic evaluations' best; it is what ships
    save_buffer: bool = True
    resume: str | None = None  # a run directory or its checkpoint.pt
    opponent: str | None = None  # agent spec seated in a share of the games (e.g. "greedy")
    opponent_share: float = 0.5  # share of each iteration's games with the opponent in them
    model_dtype: str = "float32"  # of model.npz's weights: float32 | float16 (half the size)
    warm_start: str | None = None  # agent spec imitated before self-play (e.g. "greedy")
    warm_games: int = 2000  # games the warm-start agent plays against itself
    warm_epochs: float = 4.0  # passes over the warm-start rows
    warm_epsilon: float = 0.15  # share of random moves in those games
    warm_temperature: float | None = None  # None: uniform over the tied-best actions
    warm_learning_rate: float | None = None  # None: learning_rate
    seed: int = 0
    threads: int = 1  # torch threads (0: torch's default); 1 is fastest for these small nets
    out: str = "runs/az"
    progress_bar: bool = True

    def __post_init__(self) -> None:
        self.env_kwargs = dict(self.env_kwargs)
        self.hidden = tuple(self.hidden)
        self.eval_opponents = tuple(self.eval_opponents)
        if self.iterations is None:
            self.iterations = 0 if self.time_budget is not None else DEFAULT_ITERATIONS
        game_class = env_spec(self.env).load_game()  # ValueError naming the registered envs
        try:
            game_class.params_class(**self.env_kwargs)
        except TypeError as err:
            names = [f.name for f in dataclasses.fields(game_class.params_class)]
            raise ValueError(
                f"{self.env} has no such game parameter ({err}); its parameters are "
                f"{', '.join(names)}"
            ) from None
        if not self.hidden or any(type(h) is not int or h < 1 for h in self.hidden):
            raise ValueError(f"hidden must be one or more layer widths >= 1, got {self.hidden}")
        for name, low in (
            ("games", 1),
            ("simulations", 1),
            ("temperature_moves", 0),
            ("iterations", 0),
            ("buffer_size", 0),
            ("batch_size", 1),
            ("eval_every", 0),
            ("eval_games", 1),
            ("final_eval_games", 0),
            ("threads", 0),
            ("warm_games", 1),
        ):
            value = getattr(self, name)
            if type(value) is not int or value < low:
                raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
        if self.eval_simulations is not None and (
            type(self.eval_simulations) is not int or self.eval_simulations < 0
        ):
            raise ValueError(
                f"eval_simulations must be an integer >= 0, got {self.eval_simulations}"
            )
        for name in ("rollout_weight", "eval_rollout_weight"):
            value = getattr(self, name)
            if value is not None and (not _number(value) or not 0 <= value <= 1):
                raise ValueError(f"{name} must be in [0, 1], got {value!r}")
        for name in ("rollout_policy", "eval_rollout_policy"):
            value = getattr(self, name)
            if value is not None and value not in ROLLOUT_POLICIES:
                raise ValueError(
                    f"{name} must be one of {', '.join(ROLLOUT_POLICIES)}, got {value!r}"
                )
        for name in (
            "c_puct",
            "score_scale",
            "sample_reuse",
            "learning_rate",
            "target_temperature",
        ):
            if not _number(getattr(self, name)) or not getattr(self, name) > 0:
                raise ValueError(f"{name} must be a number > 0, got {getattr(self, name)!r}")
        if not _number(self.weight_decay) or self.weight_decay < 0:
            raise ValueError(f"weight_decay must be a number >= 0, got {self.weight_decay!r}")
        if not _number(self.dirichlet_fraction) or not 0 <= self.dirichlet_fraction <= 1:
            raise ValueError(
                f"dirichlet_fraction must be in [0, 1], got {self.dirichlet_fraction!r}"
            )
        if self.dirichlet_alpha is not None and (
            not _number(self.dirichlet_alpha) or not self.dirichlet_alpha > 0
        ):
            raise ValueError(
                f"dirichlet_alpha must be a number > 0 (or None: automatic), got "
                f"{self.dirichlet_alpha!r}"
            )
        if self.value_target not in VALUE_TARGETS:
            raise ValueError(
                f"value_target must be one of {', '.join(VALUE_TARGETS)}, got {self.value_target!r}"
            )
        if self.value_target == "score" and score_key(game_class.game_name) is None:
            with_scores = [n for n in registered_envs() if env_spec(n).score_key is not None]
            raise ValueError(
                f"value_target 'score' needs a game with final scores ({', '.join(with_scores)}); "
                f"{self.env} has none: use value_target 'result'"
            )
        if self.time_budget is not None and (
            not _number(self.time_budget) or not self.time_budget > 0
        ):
            raise ValueError(
                f"time_budget must be a number of minutes > 0, got {self.time_budget!r}"
            )
        if self.iterations == 0 and self.time_budget is None:
            raise ValueError("iterations 0 runs until the time budget: give a time_budget too")
        if self.keep_best and not self.eval_every:
            raise ValueError("keep_best chooses by the periodic evaluations: give eval_every > 0")
        if self.eval_every and not self.eval_opponents:
            raise ValueError(
                "periodic evaluations need at least one eval opponent (or eval_every 0)"
            )
        for spec in self.eval_opponents:
            make_agent(spec, self.env)  # ValueError naming the registered agents
        if self.opponent is not None:
            make_agent(self.opponent, self.env)
        if not _number(self.opponent_share) or not 0 <= self.opponent_share <= 1:
            raise ValueError(f"opponent_share must be in [0, 1], got {self.opponent_share!r}")
        if self.model_dtype not in ("float32", "float16"):
            raise ValueError(f"model_dtype must be float32 or float16, got {self.model_dtype!r}")
        if self.warm_start is not None:
            make_agent(self.warm_start, self.env)
        if not _number(self.warm_epochs) or not self.warm_epochs > 0:
            raise ValueError(f"warm_epochs must be a number > 0, got {self.warm_epochs!r}")
        if not _number(self.warm_epsilon) or not 0 <= self.warm_epsilon <= 1:
            raise ValueError(f"warm_epsilon must be in [0, 1], got {self.warm_epsilon!r}")
        if self.warm_learning_rate is not None and (
            not _number(self.warm_learning_rate) or not self.warm_learning_rate > 0
        ):
            raise ValueError(
                f"warm_learning_rate must be a number > 0 (or None: learning_rate), got "
                f"{self.warm_learning_rate!r}"
            )
        if self.warm_temperature is not None and (
            not _number(self.warm_temperature) or not self.warm_temperature > 0
        ):
            raise ValueError(
                f"warm_temperature must be a number > 0 (or None: the tied-best actions), got "
                f"{self.warm_temperature!r}"
            )


def _number(value: object) -> bool:
    """Return whether ``value`` is a finite real number (bools are not numbers here)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
