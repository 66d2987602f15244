"""The run: build the learner, resume or warm-start, iterate self-play and training, evaluate.

One iteration (:func:`run_iteration`) plays ``games`` self-play games, adds their rows to the
replay buffer and trains on it; after each, the network is exported to ``model.npz``, the buffer
and a checkpoint are saved and, every ``eval_every`` iterations, the file is evaluated.
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_envs.agents.registry import make_agent
from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import new_game
from tabletop_envs.evaluation.paths import prepare_out
from tabletop_envs.search.network import conv_meta
from tabletop_envs.training.az.buffer import ReplayBuffer, buffer_capacity, storage_dtype
from tabletop_envs.training.az.checkpoint import RunState, resume, save_buffer, save_checkpoint
from tabletop_envs.training.az.config import RUN_FILES, AZConfig
from tabletop_envs.training.az.evaluation import (
    final_evaluation,
    format_eval,
    periodic_evaluation,
    play_settings,
    plot_az,
)
from tabletop_envs.training.az.model import (
    build_optimizer,
    build_torch_net,
    export_npz,
    torch_evaluator,
    train_steps,
)
from tabletop_envs.training.az.self_play import auto_dirichlet_alpha, self_play
from tabletop_envs.training.az.warm_start import warm_start


@dataclass
class Learner:
    """What a run learns with: its game, the torch net, the net's optimizer, the replay buffer."""

    game_class: type[GameState]
    params: Any
    proto: GameState  # a game of the run's parameters (the exported file is made for it)
    net: Any
    optimizer: Any
    buffer: ReplayBuffer


def train_az(
    config: AZConfig,
    *,
    log: Callable[[str], None] | None = None,
    command: str | None = None,
) -> dict[str, Any]:
    """Run AlphaZero-style training; write model, checkpoint, results JSON and plot; return results.

    Stops after ``config.iterations`` iterations in all (a resumed run counts on from its
    checkpoint) or before an iteration that would end past ``config.time_budget`` minutes (the
    last iteration's duration is the estimate), then plays the final evaluations.
    """
    say = log or _print
    _pin_threads(config.threads)
    start = time.perf_counter()
    learner = build_learner(config)
    run = RunState()
    if config.resume:
        run = resume(config, learner.net, learner.optimizer, learner.buffer, say)
    out = Path(str(config.out)).expanduser()  # made once the run can start
    prepare_out(out, RUN_FILES, overwrite=config.overwrite, resumed_from=config.run_folder())
    alpha = config.dirichlet_alpha
    if alpha is None:
        alpha = auto_dirichlet_alpha(learner.game_class, learner.params, seed=config.seed)
    if config.warm_start is not None and not config.resume:
        run.warm_start = warm_start(
            config,
            learner.net,
            learner.optimizer,
            learner.buffer,
            learner.game_class,
            learner.params,
            say,
        )
    model_path = out / "model.npz"
    if not model_path.exists() or not config.resume:
        export_model(config, learner, model_path, run.iteration, command)
    iterate(config, learner, run, alpha, model_path, command, start, say)
    wall = time.perf_counter() - start
    shipped = out / "best.npz" if config.keep_best and run.best else model_path
    finals = final_evaluation(config, shipped)
    results = run_results(config, run, alpha, wall, finals, model_path, shipped)
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    if run.history or finals:
        plot_az(results, out / "winrate.png")
    say(
        f"{run.iteration} iterations: {run.positions} self-play positions from {run.games} games "
        f"({results['selfplay_positions_per_s']:.0f} positions/s in self-play, "
        f"{results['selfplay_positions_per_cpu_s']:.0f} per CPU second); model {model_path}"
    )
    for result in finals.values():
        say(f"final {format_eval(result)} over {result['games']} games")
    return results


def build_learner(config: AZConfig) -> Learner:
    """Return the game, a fresh seeded net, its optimizer and an empty buffer for ``config``."""
    proto = new_game(config.env, config.env_kwargs)
    game_class, params = type(proto), proto.params
    spec = proto.spec
    obs_dim, num_actions = int(np.prod(spec.observation_shape)), int(spec.num_actions)
    conv = None
    if config.arch == "conv":
        conv = conv_meta(proto, config.conv_channels, config.conv_blocks, config.conv_head_channels)
    net = build_torch_net(obs_dim, num_actions, config.hidden, seed=config.seed, conv=conv)
    net.eval()
    optimizer = build_optimizer(net, config.learning_rate, config.weight_decay)
    dtype = storage_dtype(proto)
    capacity = buffer_capacity(config, obs_dim, num_actions, dtype)
    buffer = ReplayBuffer(capacity, obs_dim, num_actions, dtype)
    return Learner(game_class, params, proto, net, optimizer, buffer)


def export_model(
    config: AZConfig, learner: Learner, path: Path, iteration: int, command: str | None
) -> None:
    """Write the net to ``path`` with the settings it plays at and how it was made."""
    simulations, weight, playout = play_settings(config)  # what its evaluations play with
    made = {"command": command} if command else {}
    export_npz(
        learner.net,
        path,
        learner.proto,
        config.model_dtype,
        env=config.env,
        simulations=simulations,
        rollout_weight=weight,  # the file format's names (v1)
        rollout_policy=playout,
        value_target=config.value_target,  # the scale its searches back values up on
        score_scale=config.score_scale,
        trained={"iteration": iteration, **made},
    )


def iterate(
    config: AZConfig,
    learner: Learner,
    run: RunState,
    alpha: float,
    model_path: Path,
    command: str | None,
    start: float,
    say: Callable[[str], None],
) -> None:
    """Run iterations until ``config.iterations`` or the time budget; export and save each."""
    budget = None if config.time_budget is None else 60.0 * config.time_budget
    bar = _progress(config, run.iteration)
    tell = say if bar is None else bar.write
    last_seconds = 0.0
    try:
        while not config.iterations or run.iteration < config.iterations:
            elapsed = time.perf_counter() - start
            if budget is not None and elapsed + last_seconds > budget:
                say(
                    f"time budget: stopping after {elapsed / 60:.1f} of {config.time_budget:g} "
                    f"minutes (an iteration takes {last_seconds:.0f} s)"
                )
                break
            t0 = time.perf_counter()
            record = run_iteration(config, run, learner, alpha, bar)
            export_model(config, learner, model_path, run.iteration, command)
            if config.save_buffer:
                save_buffer(model_path.parent, learner.buffer)
            if config.eval_every and run.iteration % config.eval_every == 0:
                periodic_evaluation(config, run, record, model_path, start, tell)
            save_checkpoint(model_path.parent, learner.net, learner.optimizer, config, run)
            last_seconds = time.perf_counter() - t0
            if bar is not None:
                bar.update(1)
                bar.set_postfix_str(_postfix(record))
            else:
                say(f"[iteration {run.iteration}] {_postfix(record)}")
    finally:
        if bar is not None:
            bar.close()


def run_iteration(
    config: AZConfig, run: RunState, learner: Learner, alpha: float, bar: Any
) -> dict[str, Any]:
    """Play one round of self-play games, add them to the buffer, train; return its record."""
    k = run.iteration
    rng = np.random.default_rng([config.seed, k, 0])  # resumed runs draw as uninterrupted ones

    def on_move(step: int, active: int) -> None:
        if bar is not None:
            bar.set_description_str(f"iteration {k + 1}: move {step + 1}, {active} games")

    opponent = None if config.opponent is None else make_agent(config.opponent, config.env)
    batch = self_play(
        torch_evaluator(learner.net),
        learner.game_class,
        learner.params,
        config,
        rng,
        alpha,
        on_move,
        opponent=opponent,
        opponent_games=round(config.opponent_share * config.games),
    )
    learner.buffer.add(batch.obs, batch.mask, batch.pi, batch.z)
    steps = max(1, math.ceil(config.sample_reuse * batch.moves / config.batch_size))
    t0 = time.perf_counter()
    losses = train_steps(
        learner.net,
        learner.optimizer,
        learner.buffer,
        steps,
        config.batch_size,
        np.random.default_rng([config.seed, k, 1]),
    )
    train_seconds = time.perf_counter() - t0
    run.iteration += 1
    run.positions += batch.moves
    run.games += batch.games
    run.train_steps += steps
    run.selfplay_seconds += batch.seconds
    run.selfplay_cpu_seconds += batch.cpu_seconds
    run.train_seconds += train_seconds
    record = {
        "iteration": run.iteration,
        "positions": run.positions,
        "games": run.games,
        "new_positions": batch.moves,
        "searched_positions": batch.searches,
        "mean_game_length": batch.mean_length,
        "selfplay_seconds": batch.seconds,
        "selfplay_cpu_seconds": batch.cpu_seconds,
        "positions_per_s": batch.moves / batch.seconds if batch.seconds else 0.0,
        "positions_per_cpu_s": batch.moves / batch.cpu_seconds if batch.cpu_seconds else 0.0,
        "train_steps": steps,
        "train_seconds": train_seconds,
        "buffer": len(learner.buffer),
        **losses,
    }
    run.iterations.append(record)
    return record


def run_results(
    config: AZConfig,
    run: RunState,
    alpha: float,
    wall: float,
    finals: dict[str, Any],
    model_path: Path,
    shipped: Path,
) -> dict[str, Any]:
    """Return the run's ``results.json``: config, counters, iterations and evaluations."""
    out = model_path.parent
    return {
        "algo": "az",
        "config": config.to_dict(),
        "env": config.env,
        "dirichlet_alpha": alpha,
        "iterations_done": run.iteration,
        "positions": run.positions,
        "games": run.games,
        "train_steps": run.train_steps,
        "wall_seconds": wall,  # this invocation, before the final evaluations
        "selfplay_seconds": run.selfplay_seconds,  # every iteration so far, resumed ones too
        "train_seconds": run.train_seconds,
        "eval_seconds": run.eval_seconds,
        "warm_start": run.warm_start,
        "selfplay_cpu_seconds": run.selfplay_cpu_seconds,
        "selfplay_positions_per_s": _rate(run.positions, run.selfplay_seconds),
        "selfplay_positions_per_cpu_s": _rate(run.positions, run.selfplay_cpu_seconds),
        "iterations": run.iterations,
        "history": run.history,
        "final": finals,
        "model": str(model_path),
        "best": {**run.best, "model": str(shipped)} if run.best else {},
        "checkpoint": str(out / "checkpoint.pt"),
    }


def _rate(count: float, seconds: float) -> float:
    return count / seconds if seconds else 0.0


def _pin_threads(threads: int) -> None:
    """Set torch's intra-op thread count for the process (``0`` leaves torch's default)."""
    if threads:
        import torch

        torch.set_num_threads(threads)


def _postfix(record: dict[str, Any]) -> str:
    text = (
        f"{record['positions_per_s']:.0f} pos/s, loss {record['loss']:.3f} "
        f"(pi {record['policy_loss']:.3f}, kl {record['policy_kl']:.3f}, "
        f"v {record['value_loss']:.3f})"
    )
    for opp, rate in record.get("vs", {}).items():
        text += f", vs {opp} {rate:.2f}"
    return text


def _progress(config: AZConfig, done: int) -> Any:
    if not config.progress_bar:
        return None
    from tqdm.auto import tqdm

    total = config.iterations or None
    return tqdm(total=total, initial=done, unit="it", dynamic_ncols=True, file=sys.stderr)


def _print(text: str) -> None:
    print(text, flush=True)
