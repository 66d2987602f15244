"""One MaskablePPO run: build the envs and the model, imitate, learn, evaluate, save.

:func:`train` reads like the run: each step is a named function or a method of :class:`_Run`
(the run's state: model, envs, evaluation opponent, history and clocks). torch and SB3 are
imported only when a run starts.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tabletop_envs.agents.base import Agent
from tabletop_envs.core.config import one_line, quote_path
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.evaluation.paths import prepare_out
from tabletop_envs.training.ppo.config import RUN_FILES, TrainConfig
from tabletop_envs.training.ppo.evaluation import evaluate, format_result, plot_history
from tabletop_envs.training.ppo.opponents import env_factory, single_opponent
from tabletop_envs.training.ppo.policies import policy_spec
from tabletop_envs.training.ppo.pretrain import imitate
from tabletop_envs.training.sb3 import PolicyAgent


def train(config: TrainConfig, *, log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run one training; save model, results JSON and plot in ``config.out``; return results."""
    import torch

    if log is None:
        log = _print
    if config.threads:
        torch.set_num_threads(config.threads)
    eval_spec = config.eval_opponent_spec()
    # evaluation needs one agent (a+b pools are for training): single_opponent refuses a pool
    eval_opponent = single_opponent(eval_spec, config.env, config.seed + 77)
    vec_env = training_envs(config)
    model = build_model(config, vec_env)
    out = Path(config.out).expanduser()  # made once the run can start: a refusal leaves nothing
    prepare_out(out, RUN_FILES, overwrite=config.overwrite)
    run = _Run(config, model, vec_env, eval_opponent, eval_spec, out, log)
    imitation = imitate(config, model, log) if config.imitate else None
    if imitation is not None and config.eval_every:
        run.evaluate_now(0, label="after imitation")
    run.learn()
    return run.finish(imitation)


def training_envs(config: TrainConfig) -> Any:
    """Return the SB3 vectorized training envs (``config.vec``), seeded with ``config.seed``."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    factories = [env_factory(config, rank) for rank in range(config.n_envs)]
    vec_env = SubprocVecEnv(factories) if config.vec == "subproc" else DummyVecEnv(factories)
    vec_env.seed(config.seed)
    return vec_env


def build_model(config: TrainConfig, vec_env: Any) -> Any:
    """Return the ``MaskablePPO`` model of the run (from ``config.init_model``'s weights if set)."""
    from sb3_contrib import MaskablePPO

    policy, policy_kwargs = policy_spec(config, vec_env)
    model = MaskablePPO(
        policy,
        vec_env,
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        learning_rate=config.learning_rate,
        ent_coef=config.ent_coef,
        gamma=config.gamma,
        gae_lambda=config.gae_lambda,
        clip_range=config.clip_range,
        policy_kwargs=policy_kwargs,
        seed=config.seed,
        device="cpu",
        verbose=config.verbose,
    )
    model.set_logger(sb3_logger(config.verbose))
    if config.init_model:
        load_weights(model, config.init_model)
    return model


def load_weights(model: Any, path: str) -> None:
    """Give ``model`` the policy weights of the saved model at ``path`` (``--init-model``).

    InvalidParameterError if that model was made for other observations, actions or another
    network (another env or its parameters, ``--policy``, ``--net-arch``...).
    """
    from sb3_contrib import MaskablePPO

    try:
        previous = MaskablePPO.load(Path(path).expanduser(), device="cpu")
    except (ValueError, KeyError, AssertionError, OSError) as err:
        raise InvalidParameterError(
            f"init_model {quote_path(path)} is no saved MaskablePPO model ({one_line(err)})"
        ) from None
    for what in ("observation_space", "action_space"):
        theirs, ours = getattr(previous, what), getattr(model, what)
        if theirs != ours:
            raise InvalidParameterError(
                f"init_model {quote_path(path)} was trained with the {what} {theirs}, this run has "
                f"{ours}: train from it with the env and parameters it was trained with"
            )
    try:
        model.policy.load_state_dict(previous.policy.state_dict())
    except RuntimeError as err:  # torch: missing, unexpected or differently shaped weights
        lines = [line.strip() for line in str(err).splitlines() if line.strip()]
        raise InvalidParameterError(
            f"init_model {quote_path(path)} holds another network than this run's --policy and "
            f"--net-arch make ({one_line(lines[-1] if lines else err, 160)})"
        ) from None


@dataclass
class _Run:
    """A run under way: what evaluations, snapshots and the final report need."""

    config: TrainConfig
    model: Any
    vec_env: Any
    eval_opponent: Agent
    eval_spec: str
    out: Path
    log: Callable[[str], None]
    history: list[dict[str, Any]] = field(default_factory=list)
    start: float = field(default_factory=time.perf_counter)
    cpu_start: float = field(default_factory=time.process_time)

    def evaluate(self, games: int, seed: int, opponent: Agent | None = None) -> dict[str, Any]:
        """Play the current policy against ``opponent`` (default: the evaluation opponent)."""
        agent = PolicyAgent(
            self.model.policy, deterministic=self.config.eval_deterministic, name="learner"
        )
        return evaluate(
            agent,
            opponent or self.eval_opponent,
            self.config.env,
            games=games,
            seed=seed,
            env_kwargs=self.config.env_kwargs,
        )

    def evaluate_now(self, steps: int, *, label: str | None = None) -> None:
        """Record a periodic evaluation at ``steps``; a checkpoint is saved during learning."""
        result = self.evaluate(self.config.eval_games, seed=10_000 + steps)
        result.update(timesteps=steps, seconds=time.perf_counter() - self.start)
        self.history.append(result)
        if label is not None:
            self.log(f"[{label}] {format_result(result, self.eval_spec)}")
            return
        self.model.save(self.out / "model.zip")  # a checkpoint, overwritten at the end
        if not self.config.progress_bar or self.config.verbose:
            self.log(f"[{steps} steps] {format_result(result, self.eval_spec)}")

    def snapshot(self, steps: int) -> None:
        """Add a frozen copy of the learner to every env's opponent pool (self-play)."""
        agent = PolicyAgent.snapshot(self.model, name=f"snapshot@{steps}")
        self.vec_env.env_method("add_opponent", agent)

    def learn(self) -> None:
        """Run PPO for ``config.timesteps`` rounded up to whole rollouts (none if 0)."""
        config = self.config
        if config.self_play_every:
            for i in range(config.n_envs):
                self.vec_env.env_method("set_max_pool", config.pool_size + 1, indices=[i])
        timesteps = rollout_total(config.timesteps, config.n_steps * config.n_envs)
        if timesteps != config.timesteps:
            self.log(
                f"training {timesteps} steps: {config.timesteps} rounded up to whole rollouts "
                f"of {config.n_steps} steps x {config.n_envs} envs"
            )
        if timesteps > 0:  # 0 with --imitate: imitation only
            self.model.learn(
                total_timesteps=timesteps,
                callback=_periodic(self),
                progress_bar=config.progress_bar,
            )

    def finish(self, imitation: dict[str, Any] | None) -> dict[str, Any]:
        """Save the model, run the final evaluations, write results and plot; return results."""
        config, model = self.config, self.model
        train_seconds = time.perf_counter() - self.start
        train_cpu_seconds = time.process_time() - self.cpu_start
        self.vec_env.close()
        model.save(self.out / "model.zip")
        finals = self.final_evaluations()
        results = {
            "config": asdict(config),
            "env": config.env,
            "opponent": self.eval_spec,
            "train_seconds": train_seconds,
            "train_cpu_seconds": train_cpu_seconds,  # main process (all of it with --vec dummy)
            "timesteps": model.num_timesteps,
            "history": self.history,
            "imitation": imitation,
            "final": finals[self.eval_spec],
            "finals": finals,
            "model": str(self.out / "model.zip"),
        }
        (self.out / "results.json").write_text(json.dumps(results, indent=2, default=str))
        plot_history(results, self.out / "winrate.png")
        self.log(f"trained {model.num_timesteps} steps in {train_seconds:.0f} s")
        for spec, result in finals.items():
            self.log(format_result(result, spec))
        return results

    def final_evaluations(self) -> dict[str, dict[str, Any]]:
        """Evaluate the final policy against the evaluation opponent, then the extra ones."""
        config = self.config
        final = self.evaluate(config.final_eval_games, seed=config.seed + 1_000_003)
        final["timesteps"] = self.model.num_timesteps
        finals = {self.eval_spec: final}
        for k, spec in enumerate(config.final_eval_opponents or ()):
            if spec not in finals:
                other = single_opponent(spec, config.env, config.seed + 99 + k)
                games, seed = config.final_eval_games, config.seed + 2_000_003
                finals[spec] = self.evaluate(games, seed, other)
                finals[spec]["timesteps"] = self.model.num_timesteps
        return finals


def _periodic(run: _Run) -> Any:
    """Return the SB3 callback evaluating every ``eval_every`` steps and adding snapshots."""
    from stable_baselines3.common.callbacks import BaseCallback

    config = run.config

    class Periodic(BaseCallback):
        """Evaluates every ``eval_every`` steps; adds self-play snapshots."""

        def __init__(self) -> None:
            super().__init__()
            self.next_eval = config.eval_every
            self.next_snapshot = config.self_play_every

        def _on_step(self) -> bool:
            steps = self.num_timesteps
            if config.self_play_every and steps >= self.next_snapshot:
                self.next_snapshot += config.self_play_every
                run.snapshot(steps)
            if config.eval_every and steps >= self.next_eval:
                self.next_eval += config.eval_every
                run.evaluate_now(steps)
            return True

    return Periodic()


def sb3_logger(verbose: int = 0) -> Any:
    """Return an SB3 logger printing to stdout when ``verbose`` and writing no files.

    SB3's default logger makes an empty ``/tmp/SB3-<time>`` folder per model; set this one
    with ``model.set_logger`` before ``learn``.
    """
    from stable_baselines3.common.logger import HumanOutputFormat, Logger

    formats = [HumanOutputFormat(sys.stdout)] if verbose else []
    return Logger(folder=None, output_formats=formats)


def rollout_total(timesteps: int, rollout: int) -> int:
    """Return ``timesteps`` rounded up to whole rollouts of ``rollout`` steps (what SB3 trains).

    PPO collects whole rollouts of ``n_steps * n_envs`` steps, so ``learn(100_000)`` with 1024
    steps per rollout trains 100,352; asking for that total keeps its progress bar honest.
    """
    if rollout < 1:
        raise ValueError(f"a rollout has at least 1 step, got {rollout}")
    return -(-timesteps // rollout) * rollout


def _print(text: str) -> None:
    print(text, flush=True)
