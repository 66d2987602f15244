"""Train a MaskablePPO agent on any registered env against an opponent, or by self-play.

Command line (also ``tabletop-envs train``)::

    python -m tabletop_envs.training.train --env iris_v0 --timesteps 200000 --opponent random

writes ``model.zip``, ``results.json`` and ``winrate.png`` into ``--out`` and prints the
final win rate (seat-alternated, with a 95% Wilson interval). Needs the ``train`` extra
(torch, stable-baselines3, sb3-contrib, tqdm, rich, matplotlib); torch and SB3 are imported
only when training runs, so :func:`evaluate` and :func:`parse_env_args` work without them.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_envs.agents.base import Agent
from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import env_spec, registered_envs
from tabletop_envs.training.arena import wilson
from tabletop_envs.training.sb3 import OpponentPool, PolicyAgent, SingleAgentEnv

#: Training algorithms of :func:`main`'s ``--algo``.
ALGOS = ("ppo", "az")

# ---- opponents and evaluation (no torch needed) ---------------------------------------------


def parse_env_args(items: Sequence[str] | None) -> dict[str, Any]:
    """Turn ``["board_size=7", "auto_forced=true"]`` into game keyword arguments."""
    out: dict[str, Any] = {}
    for item in items or ():
        key, sep, text = item.partition("=")
        if not sep or not key:
            raise ValueError(f"env argument {item!r} is not of the form key=value")
        low = text.strip().lower()
        if low in ("true", "false"):
            out[key] = low == "true"
            continue
        try:
            out[key] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            out[key] = text
    return out


def make_opponent(spec: str, env_name: str, seed: int | None = None) -> Agent | OpponentPool:
    """Build an opponent from a :func:`tabletop_envs.agents.make_agent` spec or a model .zip.

    ``a+b+…`` builds a pool of several, one drawn per episode (e.g. ``random+greedy``).
    """
    if "+" in spec:
        parts = [p for p in spec.split("+") if p]
        return OpponentPool(
            [_single(p, env_name, None if seed is None else seed + i) for i, p in enumerate(parts)]
        )
    return _single(spec, env_name, seed)


def _single(spec: str, env_name: str, seed: int | None) -> Agent:
    from tabletop_envs.agents import make_agent

    if spec.endswith(".zip") and not spec.startswith("sb3:"):
        spec = f"sb3:{spec}"
    return make_agent(spec, env_name, seed)


def evaluate(
    agent: Agent,
    opponent: Agent,
    env_name: str,
    *,
    games: int = 400,
    seed: int = 0,
    env_kwargs: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Play ``agent`` against ``opponent`` (in every other seat), seats alternated per game.

    A game is a win when the agent's return is strictly the highest, a draw when it ties the
    highest. Returns counts, ``win_rate`` (wins / games), ``score`` (wins + draws/2, per game)
    and the 95% Wilson interval of the win rate.
    """
    game_class = env_spec(env_name).load_game()
    params = game_class.params_class(**(env_kwargs or {}))
    seeds = np.random.default_rng(seed)
    n = game_class(params, 0).spec.num_players
    wins = draws = losses = 0
    by_seat = [[0, 0] for _ in range(n)]  # [wins, games] per learner seat
    for g in range(games):
        seat = g % n
        game = game_class(params, int(seeds.integers(2**63)))
        agent.reset(int(seeds.integers(2**63)))
        opponent.reset(int(seeds.integers(2**63)))
        while not game.is_terminal:
            mover = game.current_player
            player = agent if mover == seat else opponent
            game.apply(player.act(game, mover))
        returns = game.returns()
        best_other = max(float(r) for s, r in enumerate(returns) if s != seat)
        by_seat[seat][1] += 1
        if returns[seat] > best_other:
            wins += 1
            by_seat[seat][0] += 1
        elif returns[seat] == best_other:
            draws += 1
        else:
            losses += 1
    low, high = wilson(wins, games)
    return {
        "games": games,
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "win_rate": wins / games if games else 0.0,
        "score": (wins + draws / 2) / games if games else 0.0,
        "ci95": [low, high],
        "win_rate_by_seat": [w / t if t else None for w, t in by_seat],
    }


def format_result(result: dict[str, Any], opponent: str) -> str:
    """Return a one-line summary of an :func:`evaluate` result."""
    low, high = result["ci95"]
    return (
        f"win rate vs {opponent}: {result['win_rate']:.3f} (95% CI {low:.3f}-{high:.3f}; "
        f"{result['wins']}W {result['draws']}D {result['losses']}L over {result['games']} games)"
    )


# ---- training -------------------------------------------------------------------------------


@dataclass
class TrainConfig:
    """Everything a training run depends on (saved with its results)."""

    env: str = "iris_v0"
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    timesteps: int = 100_000
    opponent: str = "random"
    eval_opponent: str | None = None  # default: ``opponent`` (the last one of a ``a+b`` pool)
    self_play_every: int = 0  # >0: add a frozen snapshot of the learner every K steps
    pool_size: int = 10  # most snapshots kept in the self-play pool (plus the base opponent)
    learner_seat: str = "alternate"
    reward: str = "own"  # own | margin (see SingleAgentEnv)
    reward_scale: float = 1.0
    n_envs: int = 4
    vec: str = "dummy"  # dummy | subproc
    policy: str = "mlp"  # mlp | cnn (PlanesCNN over (H, W, C) planes, then net_arch) | cells
    cnn_channels: int = 32
    cnn_layers: int = 3
    footprint_head: bool = False  # cells policy: score placements by every cell they cover
    value_mixtures: int = 4  # cells policy, with a game's per-action values section (Irk's
    # action_values): weightings of those values the head takes the best of
    net_arch: tuple[int, ...] = (256, 256)
    n_steps: int = 512
    batch_size: int = 256
    n_epochs: int = 4
    learning_rate: float = 3e-4
    ent_coef: float = 0.01
    gamma: float = 1.0
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    eval_every: int = 20_000
    eval_games: int = 100
    final_eval_games: int = 400
    final_eval_opponents: tuple[str, ...] = ()  # more opponents for the final evaluation
    init_model: str | None = None  # start from this saved model's weights (same network)
    imitate: str | None = None  # expert agent spec: behaviour-clone it before PPO (imitation.py)
    imitate_episodes: int = 1000  # per round
    imitate_rounds: int = 1  # >1: DAgger, later rounds played by the cloned policy itself
    imitate_epochs: int = 10
    imitate_epsilon: float = 0.1  # share of random moves while recording (labels stay expert's)
    imitate_workers: int = 1  # processes recording the expert's episodes (first round)
    imitate_lr: float = 1e-3
    imitate_temperature: float | None = None  # soft targets: softmax(expert score / T)
    eval_deterministic: bool = True  # evaluate the policy's most likely action (SB3's default)
    seed: int = 0
    threads: int = 1  # torch threads (0: torch's default); 1 is fastest for these small nets
    out: str = "runs/latest"
    progress_bar: bool = True
    verbose: int = 0


def _env_factory(config: TrainConfig, rank: int) -> Callable[[], SingleAgentEnv]:
    def build() -> SingleAgentEnv:
        opponent = make_opponent(config.opponent, config.env, config.seed * 1000 + rank)
        return SingleAgentEnv(
            config.env,
            opponent=opponent,
            learner_seat=config.learner_seat,
            reward=config.reward,
            reward_scale=config.reward_scale,
            env_kwargs=config.env_kwargs,
        )

    return build


def _initial_state(env_name: str, env_kwargs: dict[str, Any] | None) -> GameState:
    """Return the initial core state of ``env_name`` with these game parameters (seed 0)."""
    return env_spec(env_name).load_game().new(seed=0, **(env_kwargs or {}))


def planes_section(env_name: str, env_kwargs: dict[str, Any] | None = None) -> tuple[int, Any]:
    """Return ``(start, (H, W, C))`` of the board planes in an env's flat observation.

    A game whose observation is ``(H, W, C)`` planes gives the whole of it; a flat one (Irk)
    gives the ``table`` section of its ``layout`` (``observation_layout``).
    """
    game = _initial_state(env_name, env_kwargs)
    shape = tuple(int(x) for x in game.spec.observation_shape)
    if len(shape) == 3:
        return 0, shape
    layout = getattr(game, "layout", None)
    if layout is None or "table" not in getattr(layout, "start", {}):
        raise ValueError(
            f"{env_name}: observation {shape} has neither (H, W, C) planes nor a 'table' "
            "section in a layout; use --policy mlp"
        )
    part = layout.slice("table")
    t = int(layout.table_size)
    return int(part.start), (t, t, (part.stop - part.start) // (t * t))


def action_values_section(
    env_name: str, env_kwargs: dict[str, Any] | None = None
) -> tuple[int, int] | None:
    """Return ``(start, length)`` of the game's per-action values section, or None.

    A game names that section in ``action_values_section`` (Irk: ``"action_values"``, present
    with the game argument ``action_values=True``); None when this configuration has none.
    """
    game = _initial_state(env_name, env_kwargs)
    name = getattr(game, "action_values_section", None)
    layout = getattr(game, "layout", None)
    if name is None or layout is None or name not in layout.start:
        return None
    part = layout.slice(name)
    return int(part.start), int(part.stop - part.start)


def cell_footprint(env_name: str) -> Any:
    """Return the game's ``cell_action_footprint`` (the cells each per-cell action covers).

    ValueError for a game that declares none (only Irk does: its placements cover 3 cells).
    """
    game_class = env_spec(env_name).load_game()
    footprint = getattr(game_class, "cell_action_footprint", None)
    if footprint is None:
        raise ValueError(
            f"{env_name}: the game declares no cell_action_footprint; drop --footprint-head"
        )
    return footprint


def train(config: TrainConfig, *, log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run one training; save model, results JSON and plot in ``config.out``; return results."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    if log is None:
        log = _print
    if config.env not in registered_envs():
        raise ValueError(f"unknown env {config.env!r}; registered: {registered_envs()}")
    if config.timesteps < 0 or (config.timesteps == 0 and not config.imitate):
        raise ValueError(
            f"timesteps must be positive (or 0 with imitate: imitation only), got "
            f"{config.timesteps}"
        )
    if config.imitate and (config.imitate_rounds < 1 or config.imitate_episodes < 1):
        raise ValueError(
            f"imitation needs at least 1 round of at least 1 episode, got "
            f"{config.imitate_rounds} rounds of {config.imitate_episodes}"
        )
    if config.imitate_workers < 1:
        raise ValueError(f"imitate_workers must be at least 1, got {config.imitate_workers}")
    if config.value_mixtures < 1:
        raise ValueError(f"value_mixtures must be at least 1, got {config.value_mixtures}")
    if config.footprint_head and config.policy != "cells":
        raise ValueError(f"footprint_head needs policy 'cells', got {config.policy!r}")
    if config.threads:
        torch.set_num_threads(config.threads)
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    eval_opponent_spec = config.eval_opponent or config.opponent.split("+")[-1]
    # evaluation needs one agent (a+b pools are for training): _single rejects a pool spec
    eval_opponent = _single(eval_opponent_spec, config.env, config.seed + 77)
    factories = [_env_factory(config, rank) for rank in range(config.n_envs)]
    vec_env = SubprocVecEnv(factories) if config.vec == "subproc" else DummyVecEnv(factories)
    vec_env.seed(config.seed)
    policy_kwargs: dict[str, Any] = {"net_arch": list(config.net_arch)}
    policy_class: Any = "MlpPolicy"
    if config.policy == "cnn":
        from tabletop_envs.training.cnn import PlanesCNN

        policy_kwargs["features_extractor_class"] = PlanesCNN
        policy_kwargs["features_extractor_kwargs"] = {
            "planes_shape": vec_env.get_attr("planes_shape", indices=[0])[0],
            "channels": config.cnn_channels,
            "layers": config.cnn_layers,
        }
    elif config.policy == "cells":
        from tabletop_envs.training.cnn import CellsPolicy, SectionsCNN

        policy_class = CellsPolicy
        table_start, table_shape = planes_section(config.env, config.env_kwargs)
        policy_kwargs = {
            "net_arch": [],
            "features_extractor_class": SectionsCNN,
            "features_extractor_kwargs": {
                "table_start": table_start,
                "table_shape": table_shape,
                "channels": config.cnn_channels,
                "layers": config.cnn_layers,
                "global_dim": config.net_arch[0] if config.net_arch else 128,
            },
        }
        if config.footprint_head:
            policy_kwargs["footprint"] = cell_footprint(config.env)
        values = action_values_section(config.env, config.env_kwargs)
        if values is not None:
            kwargs = policy_kwargs["features_extractor_kwargs"]
            kwargs["values_start"], kwargs["values_length"] = values
            policy_kwargs["value_mixtures"] = config.value_mixtures
    elif config.policy != "mlp":
        raise ValueError(f"policy must be 'mlp', 'cnn' or 'cells', got {config.policy!r}")
    model = MaskablePPO(
        policy_class,
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
        previous = MaskablePPO.load(config.init_model, device="cpu")
        model.policy.load_state_dict(previous.policy.state_dict())
    history: list[dict[str, Any]] = []
    start = time.perf_counter()
    cpu_start = time.process_time()
    imitation = None
    if config.imitate:
        imitation = _imitate(config, model, log)

    def run_eval(games: int, seed: int, opponent: Agent | None = None) -> dict[str, Any]:
        agent = PolicyAgent(model.policy, deterministic=config.eval_deterministic, name="learner")
        return evaluate(
            agent,
            opponent or eval_opponent,
            config.env,
            games=games,
            seed=seed,
            env_kwargs=config.env_kwargs,
        )

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
                agent = PolicyAgent.snapshot(model, name=f"snapshot@{steps}")
                vec_env.env_method("add_opponent", agent)
            if config.eval_every and steps >= self.next_eval:
                self.next_eval += config.eval_every
                result = run_eval(config.eval_games, seed=10_000 + steps)
                result["timesteps"] = steps
                result["seconds"] = time.perf_counter() - start
                history.append(result)
                model.save(out / "model.zip")  # a checkpoint, overwritten at the end
                if not config.progress_bar or config.verbose:
                    log(f"[{steps} steps] {format_result(result, eval_opponent_spec)}")
            return True

    if imitation is not None and config.eval_every:
        result = run_eval(config.eval_games, seed=10_000)
        result.update(timesteps=0, seconds=time.perf_counter() - start)
        history.append(result)
        log(f"[after imitation] {format_result(result, eval_opponent_spec)}")
    if config.self_play_every:
        for i in range(config.n_envs):
            vec_env.env_method("set_max_pool", config.pool_size + 1, indices=[i])
    timesteps = rollout_total(config.timesteps, config.n_steps * config.n_envs)
    if timesteps != config.timesteps:
        log(
            f"training {timesteps} steps: {config.timesteps} rounded up to whole rollouts of "
            f"{config.n_steps} steps x {config.n_envs} envs"
        )
    if timesteps > 0:  # 0 with --imitate: imitation only
        model.learn(
            total_timesteps=timesteps,
            callback=Periodic(),
            progress_bar=config.progress_bar,
        )
    train_seconds = time.perf_counter() - start
    train_cpu_seconds = time.process_time() - cpu_start
    vec_env.close()
    model.save(out / "model.zip")
    final = run_eval(config.final_eval_games, seed=config.seed + 1_000_003)
    final["timesteps"] = model.num_timesteps
    finals = {eval_opponent_spec: final}
    for k, spec in enumerate(config.final_eval_opponents):
        if spec not in finals:
            other = _single(spec, config.env, config.seed + 99 + k)
            finals[spec] = run_eval(config.final_eval_games, config.seed + 2_000_003, other)
            finals[spec]["timesteps"] = model.num_timesteps
    results = {
        "config": asdict(config),
        "env": config.env,
        "opponent": eval_opponent_spec,
        "train_seconds": train_seconds,
        "train_cpu_seconds": train_cpu_seconds,  # main process (all of it with --vec dummy)
        "timesteps": model.num_timesteps,
        "history": history,
        "imitation": imitation,
        "final": final,
        "finals": finals,
        "model": str(out / "model.zip"),
    }
    (out / "results.json").write_text(json.dumps(results, indent=2, default=str))
    plot_history(results, out / "winrate.png")
    log(f"trained {model.num_timesteps} steps in {train_seconds:.0f} s")
    for spec, result in finals.items():
        log(format_result(result, spec))
    return results


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


def _imitate(config: TrainConfig, model: Any, log: Callable[[str], None]) -> dict[str, Any]:
    """Behaviour-clone ``config.imitate`` into ``model.policy`` (see :mod:`.imitation`)."""
    from tabletop_envs.training.imitation import collect_demonstrations, pretrain_policy

    env = _env_factory(config, rank=config.n_envs)()
    expert = _single(config.imitate, config.env, config.seed + 55)
    data = None
    rounds = []
    record_seconds = 0.0
    scores = config.imitate_temperature is not None
    for k in range(config.imitate_rounds):
        start = time.perf_counter()
        if k == 0 and config.imitate_workers > 1:
            # the expert's episodes split between processes; worker 0 plays what this process
            # would have (the same seeds)
            share, extra = divmod(config.imitate_episodes, config.imitate_workers)
            jobs = [(config, w, share + (w < extra), scores) for w in range(config.imitate_workers)]
            jobs = [job for job in jobs if job[2]]
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            # spawn: the workers must not inherit the parent's torch thread pools
            spawn = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(len(jobs), mp_context=spawn) as pool:
                parts = list(pool.map(_record_expert, *zip(*jobs, strict=True)))
            more = parts[0]
            for part in parts[1:]:
                more = more + part
        else:
            # round 0: the expert plays; later rounds: the policy cloned so far (sampling)
            behaviour = (
                None
                if k == 0
                else PolicyAgent(model.policy, deterministic=False, name=f"clone@{k}")
            )
            more = collect_demonstrations(
                env,
                expert,
                config.imitate_episodes,
                behaviour=behaviour,
                epsilon=config.imitate_epsilon,
                gamma=config.gamma,
                seed=config.seed + 7 + k,
                scores=scores,
            )
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
    stats = dict(stats, rounds=rounds, collect_seconds=record_seconds)
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


def _record_expert(config: TrainConfig, worker: int, episodes: int, scores: bool) -> Any:
    """Record ``episodes`` of ``config.imitate`` playing in the learner's seat (one worker).

    Worker 0 builds the env and expert :func:`_imitate` builds for itself, with the same seeds;
    worker ``w`` gets its own env rank, expert seed and deal seeds (offset by ``1000 * w``).
    """
    from tabletop_envs.training.imitation import collect_demonstrations

    offset = 1000 * worker
    return collect_demonstrations(
        _env_factory(config, rank=config.n_envs + worker)(),
        _single(config.imitate, config.env, config.seed + 55 + offset),
        episodes,
        epsilon=config.imitate_epsilon,
        gamma=config.gamma,
        seed=config.seed + 7 + offset,
        scores=scores,
    )


def _print(text: str) -> None:
    print(text, flush=True)


def plot_history(results: dict[str, Any], path: str | Path) -> None:
    """Draw the win rate (with its 95% interval) over training steps into a PNG."""
    points = [*results["history"], results["final"]]
    plot_curves(
        {
            f"win rate vs {results['opponent']}": [
                (p["timesteps"], p["win_rate"], p["ci95"][0], p["ci95"][1]) for p in points
            ]
        },
        path,
        xlabel="training steps",
        title=f"{results['env']}: MaskablePPO vs {results['opponent']}",
    )


def plot_curves(
    curves: dict[str, Sequence[tuple[float, float, float, float]]],
    path: str | Path,
    *,
    xlabel: str,
    title: str,
) -> None:
    """Draw win-rate curves into a PNG: per label, points ``(x, rate, ci_low, ci_high)``.

    Each curve is a line with markers over its shaded 95% interval; the y axis is 0-1.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5), dpi=100)
    for label, points in curves.items():
        x = [p[0] for p in points]
        line = ax.plot(x, [p[1] for p in points], marker="o", label=label)[0]
        ax.fill_between(
            x, [p[2] for p in points], [p[3] for p in points], alpha=0.25, color=line.get_color()
        )
    ax.set_ylim(0, 1)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("win rate")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


# ---- command line -------------------------------------------------------------------------


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """Return the argument parser of :func:`main`."""
    d = TrainConfig()
    from tabletop_envs.cli import DefaultsHelpFormatter

    p = argparse.ArgumentParser(
        prog=prog, description=__doc__.splitlines()[0], formatter_class=DefaultsHelpFormatter
    )
    p.add_argument(
        "--algo",
        choices=ALGOS,
        default="ppo",
        help="ppo: MaskablePPO against opponents (the options below); az: AlphaZero-style "
        "self-play with PUCT search (its own options: --algo az --help)",
    )
    p.add_argument("--env", default=d.env, help="registered env name (default %(default)s)")
    p.add_argument(
        "--env-arg",
        "--param",
        dest="env_arg",
        action="append",
        default=[],
        metavar="K=V",
        help="game parameter, e.g. board_size=7; repeat",
    )
    p.add_argument(
        "--timesteps",
        type=int,
        default=d.timesteps,
        help="PPO steps (default %(default)s; 0 with --imitate: imitation only)",
    )
    p.add_argument(
        "--opponent",
        default=d.opponent,
        help="random | greedy | mcts | any agents.make_agent spec | a model .zip",
    )
    p.add_argument("--eval-opponent", default=None, help="evaluation opponent (default: opponent)")
    p.add_argument(
        "--self-play-every",
        "--snapshot-every",
        dest="self_play_every",
        type=int,
        default=d.self_play_every,
        metavar="K",
        help="add a frozen snapshot of the learner to the opponent pool every K steps",
    )
    p.add_argument(
        "--pool-size", type=int, default=d.pool_size, help="most snapshots kept in the pool"
    )
    p.add_argument("--learner-seat", default=d.learner_seat, help="alternate | random | a seat")
    p.add_argument("--reward", choices=("own", "margin"), default=d.reward, help="learner's reward")
    p.add_argument(
        "--reward-scale", type=float, default=d.reward_scale, help="rewards are multiplied by it"
    )
    p.add_argument("--n-envs", type=int, default=d.n_envs, help="parallel training envs")
    p.add_argument(
        "--vec", choices=("dummy", "subproc"), default=d.vec, help="SB3 vectorized env kind"
    )
    p.add_argument(
        "--policy",
        choices=("mlp", "cnn", "cells"),
        default=d.policy,
        help="mlp | cnn (PlanesCNN over (H, W, C) planes) | cells (SectionsCNN over the board "
        "planes + MLP over the rest, with a per-cell action head)",
    )
    p.add_argument(
        "--cnn-channels", type=int, default=d.cnn_channels, help="channels per conv layer"
    )
    p.add_argument("--cnn-layers", type=int, default=d.cnn_layers, help="conv layers")
    p.add_argument(
        "--footprint-head",
        action="store_true",
        help="with --policy cells: a placement's logit also reads every cell it covers, with "
        "queries from what is being placed (games that declare a cell_action_footprint: Irk)",
    )
    p.add_argument(
        "--value-mixtures",
        type=int,
        default=d.value_mixtures,
        help="with --policy cells and a game's per-action values (Irk: --env-arg "
        "action_values=true): the head scores an action by the best of this many learned "
        "weightings of its values",
    )
    p.add_argument("--net-arch", default=",".join(map(str, d.net_arch)), help="hidden layer sizes")
    p.add_argument("--n-steps", type=int, default=d.n_steps, help="rollout steps per env")
    p.add_argument("--batch-size", type=int, default=d.batch_size, help="PPO minibatch size")
    p.add_argument("--n-epochs", type=int, default=d.n_epochs, help="PPO epochs per rollout")
    p.add_argument("--lr", type=float, default=d.learning_rate, help="PPO learning rate")
    p.add_argument("--ent-coef", type=float, default=d.ent_coef, help="entropy bonus")
    p.add_argument("--gamma", type=float, default=d.gamma, help="discount factor")
    p.add_argument("--gae-lambda", type=float, default=d.gae_lambda, help="GAE lambda")
    p.add_argument("--clip-range", type=float, default=d.clip_range, help="PPO clip range")
    p.add_argument(
        "--eval-every", type=int, default=d.eval_every, help="steps between evaluations; 0: none"
    )
    p.add_argument(
        "--eval-games", type=int, default=d.eval_games, help="games per periodic evaluation"
    )
    p.add_argument(
        "--final-eval-games",
        type=int,
        default=d.final_eval_games,
        help="games of the final evaluation",
    )
    p.add_argument(
        "--final-eval-opponents",
        nargs="*",
        default=[],
        metavar="SPEC",
        help="also evaluate the final model against these opponents",
    )
    p.add_argument("--init-model", help="start from the weights of this saved model (.zip)")
    p.add_argument(
        "--imitate",
        metavar="AGENT",
        help="behaviour-clone this agent (e.g. greedy; planner for Irk) before PPO "
        "(docs/training.md)",
    )
    p.add_argument(
        "--imitate-episodes", type=int, default=d.imitate_episodes, help="episodes per round"
    )
    p.add_argument(
        "--imitate-rounds",
        type=int,
        default=d.imitate_rounds,
        help="DAgger rounds: after the first, the cloned policy plays and the expert labels",
    )
    p.add_argument(
        "--imitate-epochs", type=int, default=d.imitate_epochs, help="epochs per imitation round"
    )
    p.add_argument(
        "--imitate-epsilon",
        type=float,
        default=d.imitate_epsilon,
        help="share of random moves while recording the expert (default %(default)s)",
    )
    p.add_argument(
        "--imitate-workers",
        type=int,
        default=d.imitate_workers,
        help="processes recording the expert's episodes (first round; default %(default)s)",
    )
    p.add_argument("--imitate-lr", type=float, default=d.imitate_lr, help="imitation learning rate")
    p.add_argument(
        "--imitate-temperature",
        type=float,
        default=d.imitate_temperature,
        metavar="T",
        help="fit softmax(expert score / T) over the legal actions instead of the expert's best "
        "actions (an expert that scores every action: greedy); see docs/training.md",
    )
    p.add_argument(
        "--eval-stochastic",
        dest="eval_deterministic",
        action="store_false",
        help="sample the policy's actions in evaluations (default: its most likely action)",
    )
    p.add_argument(
        "--eval-deterministic", dest="eval_deterministic", action="store_true", help="the default"
    )
    p.add_argument("--seed", type=int, default=d.seed, help="seed of the run")
    p.add_argument(
        "--threads",
        type=int,
        default=d.threads,
        help="torch threads (default 1; 0: torch's default)",
    )
    p.add_argument("--out", default=d.out, help="output directory (default %(default)s)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--verbose", type=int, default=d.verbose, help="SB3 verbosity")
    return p


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    """Build a :class:`TrainConfig` from parsed arguments."""
    seat: Any = args.learner_seat
    if seat.isdigit():
        seat = int(seat)
    return TrainConfig(
        env=args.env,
        env_kwargs=parse_env_args(args.env_arg),
        timesteps=args.timesteps,
        opponent=args.opponent,
        eval_opponent=args.eval_opponent,
        self_play_every=args.self_play_every,
        pool_size=args.pool_size,
        learner_seat=seat,
        reward=args.reward,
        reward_scale=args.reward_scale,
        n_envs=args.n_envs,
        vec=args.vec,
        policy=args.policy,
        cnn_channels=args.cnn_channels,
        cnn_layers=args.cnn_layers,
        footprint_head=args.footprint_head,
        value_mixtures=args.value_mixtures,
        net_arch=tuple(int(x) for x in args.net_arch.split(",") if x),
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        learning_rate=args.lr,
        ent_coef=args.ent_coef,
        gamma=args.gamma,
        gae_lambda=args.gae_lambda,
        clip_range=args.clip_range,
        eval_every=args.eval_every,
        eval_games=args.eval_games,
        final_eval_games=args.final_eval_games,
        final_eval_opponents=tuple(args.final_eval_opponents),
        init_model=args.init_model,
        imitate=args.imitate,
        imitate_episodes=args.imitate_episodes,
        imitate_rounds=args.imitate_rounds,
        imitate_epochs=args.imitate_epochs,
        imitate_epsilon=args.imitate_epsilon,
        imitate_workers=args.imitate_workers,
        imitate_lr=args.imitate_lr,
        imitate_temperature=args.imitate_temperature,
        eval_deterministic=args.eval_deterministic,
        seed=args.seed,
        threads=args.threads,
        out=args.out,
        progress_bar=not args.no_progress,
        verbose=args.verbose,
    )


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """Command-line entry point: parse ``argv``, train, print the final win rate.

    ``--algo az`` hands the other arguments to :func:`tabletop_envs.training.az.main`.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    algo = argparse.ArgumentParser(add_help=False, prog=prog)
    algo.add_argument("--algo", choices=ALGOS, default="ppo")
    known, rest = algo.parse_known_args(argv)
    if known.algo == "az":
        from tabletop_envs.training import az

        return az.main(rest, prog=f"{prog or 'train.py'} --algo az")
    args = build_parser(prog).parse_args(argv)
    try:
        import sb3_contrib  # noqa: F401
        import torch  # noqa: F401
    except ImportError as err:
        print(
            f"training needs the train extra ({err}): pip install torch==2.13.0 "
            "&& pip install -e '.[train]' (in a clone)",
            file=sys.stderr,
        )
        return 2
    train(config_from_args(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
