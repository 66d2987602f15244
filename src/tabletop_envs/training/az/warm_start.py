"""The warm start: fit the network to a heuristic agent's games before self-play begins."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from tabletop_envs.agents.base import Agent
from tabletop_envs.agents.registry import make_agent
from tabletop_envs.core.game import GameState
from tabletop_envs.search.evaluator import encode
from tabletop_envs.training.az.buffer import ReplayBuffer
from tabletop_envs.training.az.config import AZConfig
from tabletop_envs.training.az.model import set_learning_rate, train_steps
from tabletop_envs.training.az.self_play import Row, SelfPlayBatch, make_batch
from tabletop_envs.training.imitation import expert_view


def expert_games(
    expert: Agent,
    game_class: type[GameState],
    params: Any,
    games: int,
    rng: np.random.Generator,
    epsilon: float = 0.1,
    temperature: float | None = None,
    value_target: str = "result",
    score_scale: float = 10.0,
) -> SelfPlayBatch:
    """Play ``games`` games with ``expert`` in every seat and return its decisions as rows.

    The warm start of a run: the network first learns to play like a heuristic (the policy
    target) and how such games end (the value target), then self-play improves on it. A row's
    policy target is uniform over the expert's tied-best actions
    (:meth:`~tabletop_envs.agents.Agent.best_actions`), or with ``temperature`` the softmax of
    its :meth:`~tabletop_envs.agents.Agent.action_scores` over the legal actions divided by
    ``temperature`` (so near-best moves keep some weight). With ``epsilon``, that share of the
    moves actually played is a uniformly random legal one (the row still holds the expert's
    target), so the games also cover positions the expert alone would not reach.
    """
    clocks = time.perf_counter(), time.process_time()
    expert.reset(int(rng.integers(2**63)))
    played: list[GameState] = []
    rows: list[list[Row]] = []
    lengths: list[int] = []
    for _ in range(games):
        game = game_class(params, int(rng.integers(2**63)))
        game_rows: list[Row] = []
        while not game.is_terminal:
            seat = game.current_player
            mask = game.legal_mask().astype(bool)
            pi, action = _expert_move(expert, game, seat, mask, rng, epsilon, temperature)
            game_rows.append((encode(game, seat), mask, pi, seat))
            game.apply(action)
        played.append(game)
        rows.append(game_rows)
        lengths.append(len(game_rows))
    return make_batch(
        played, rows, lengths, clocks, value_target=value_target, score_scale=score_scale
    )


def _expert_move(
    expert: Agent,
    game: GameState,
    seat: int,
    mask: np.ndarray,
    rng: np.random.Generator,
    epsilon: float,
    temperature: float | None,
) -> tuple[np.ndarray, int]:
    """Return the expert's policy target at ``game`` (float32) and the move to play."""
    legal = np.flatnonzero(mask)
    pi = np.zeros(mask.shape, dtype=np.float32)
    if len(legal) == 1:
        pi[legal[0]] = 1.0
        return pi, int(legal[0])
    tied, rated = expert_view(expert, game, seat, scores=temperature is not None)
    if rated is not None:
        actions, scores = rated
        values = np.asarray(scores, dtype=np.float64) / float(temperature)
        weights = np.exp(values - values.max())
        pi[actions] = weights / weights.sum()
        best = np.flatnonzero(pi == pi.max())  # the moves the target ranks first
    else:
        best = np.asarray(tied)
        pi[best] = 1.0 / len(best)
    if epsilon and rng.random() < epsilon:
        return pi, int(legal[rng.integers(len(legal))])
    return pi, int(best[rng.integers(len(best))])


def warm_start(
    config: AZConfig,
    net: Any,
    optimizer: Any,
    buffer: ReplayBuffer,
    game_class: type[GameState],
    params: Any,
    say: Callable[[str], None],
) -> dict[str, Any]:
    """Fit the net to ``config.warm_start``'s games (:func:`expert_games`); return the record.

    The rows train the net for ``warm_epochs`` passes, then join the replay buffer, where
    self-play's rows replace them as it goes.
    """
    if config.warm_start is None:
        raise ValueError("warm_start needs config.warm_start, an agent spec")
    expert = make_agent(config.warm_start, config.env)
    batch = expert_games(
        expert,
        game_class,
        params,
        config.warm_games,
        np.random.default_rng([config.seed, 2**32 - 1]),
        epsilon=config.warm_epsilon,
        temperature=config.warm_temperature,
        value_target=config.value_target,
        score_scale=config.score_scale,
    )
    rows = ReplayBuffer(batch.moves, buffer.obs.shape[1], buffer.num_actions, buffer.obs.dtype)
    rows.add(batch.obs, batch.mask, batch.pi, batch.z)
    steps = max(1, math.ceil(config.warm_epochs * batch.moves / config.batch_size))
    t0 = time.perf_counter()
    if config.warm_learning_rate is not None:
        set_learning_rate(optimizer, config.warm_learning_rate)
    losses = train_steps(
        net, optimizer, rows, steps, config.batch_size, np.random.default_rng([config.seed, 2])
    )
    set_learning_rate(optimizer, config.learning_rate)
    train_seconds = time.perf_counter() - t0
    buffer.add(batch.obs, batch.mask, batch.pi, batch.z)
    say(
        f"warm start: {batch.games} games of {config.warm_start} ({batch.moves} positions, "
        f"{batch.seconds:.0f} s), {steps} training steps ({train_seconds:.0f} s), loss "
        f"{losses['loss']:.3f} (policy {losses['policy_loss']:.3f}, kl "
        f"{losses['policy_kl']:.3f}, value {losses['value_loss']:.3f})"
    )
    return {
        "agent": config.warm_start,
        "games": batch.games,
        "positions": batch.moves,
        "play_seconds": batch.seconds,
        "train_steps": steps,
        "train_seconds": train_seconds,
        **losses,
    }
