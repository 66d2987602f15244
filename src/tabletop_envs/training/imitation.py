"""Imitation pre-training: fit a MaskablePPO policy to an expert agent's moves before PPO.

Reinforcement learning from scratch never beats a strong opponent if it never wins against it:
the terminal reward then carries no signal. Behaviour cloning gives PPO a starting point that
already plays like the expert (e.g. the ``greedy`` baseline); PPO then improves on it against
the real opponents. Two steps:

- :func:`collect_demonstrations` plays episodes of a :class:`SingleAgentEnv` (its opponents,
  its seat rotation, its reward) with the expert in the learner's seat, and records the
  learner's observation, legal mask, the expert's best actions
  (:meth:`~tabletop_envs.agents.Agent.best_actions`: every action a heuristic ties at the top)
  and the return that followed. With ``epsilon > 0`` the move actually played is, that often,
  a uniformly random legal one (the record still holds the expert's choice), so the data also
  covers positions the expert alone would not reach.
- :func:`pretrain_policy` maximises the probability the masked policy gives to the expert's
  best actions (for a single best action, the usual cross-entropy; for tied ones, their total,
  so the tie-breaks are not taught as if they mattered) and fits the value head to the returns
  by squared error.

The demonstration arrays use the game's own integer dtype, so a few thousand Irk episodes fit
in a few hundred megabytes. Imports torch only inside :func:`pretrain_policy`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from tabletop_envs.agents.base import Agent
from tabletop_envs.training.sb3 import SingleAgentEnv


@dataclass
class Demonstrations:
    """Recorded learner-seat decisions: one row per step of the expert."""

    observations: np.ndarray  # (N, obs_dim), the env's observation in a compact dtype
    masks: np.ndarray  # (N, num_actions) bool
    targets: np.ndarray  # (N, num_actions) bool, the expert's equally best actions
    actions: np.ndarray  # (N,) int64, one of the expert's best actions (its move, unless
    # a behaviour agent or epsilon played another)
    returns: np.ndarray  # (N,) float32, the discounted return from this step on
    episodes: int
    seconds: float

    def __len__(self) -> int:
        return int(self.actions.shape[0])

    def __add__(self, other: Demonstrations) -> Demonstrations:
        """Return both sets of demonstrations in one (``other``'s rows last)."""
        return Demonstrations(
            observations=np.concatenate([self.observations, other.observations]),
            masks=np.concatenate([self.masks, other.masks]),
            targets=np.concatenate([self.targets, other.targets]),
            actions=np.concatenate([self.actions, other.actions]),
            returns=np.concatenate([self.returns, other.returns]),
            episodes=self.episodes + other.episodes,
            seconds=self.seconds + other.seconds,
        )


def collect_demonstrations(
    env: SingleAgentEnv,
    expert: Agent,
    episodes: int,
    *,
    behaviour: Agent | None = None,
    epsilon: float = 0.0,
    gamma: float = 1.0,
    seed: int = 0,
) -> Demonstrations:
    """Play ``episodes`` games of ``env`` in the learner's seat; record the expert's choices.

    The moves played are the expert's own, or with ``behaviour`` that agent's (DAgger: the
    learner's current policy plays, so the data covers the positions *it* reaches, and the
    expert labels them). ``epsilon``: probability of playing a uniformly random legal action
    instead. The recorded labels are always the expert's best actions.
    """
    if episodes < 1:
        raise ValueError(f"episodes must be at least 1, got {episodes}")
    if not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"epsilon must be in [0, 1], got {epsilon}")
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    expert.reset(int(rng.integers(2**63)))
    if behaviour is not None:
        behaviour.reset(int(rng.integers(2**63)))
    space = env.observation_space
    compact = np.int8 if space.low.min() >= -128 and space.high.max() <= 127 else np.float32
    observations: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    targets: list[np.ndarray] = []
    actions: list[int] = []
    returns: list[float] = []
    obs, _ = env.reset(seed=int(rng.integers(2**31)))
    for _ in range(episodes):
        rewards: list[float] = []
        done = False
        while not done:
            mask = env.action_masks()
            best = expert.best_actions(env.game, env.learner_seat)
            label = best[int(rng.integers(len(best)))] if len(best) > 1 else best[0]
            move = label if behaviour is None else behaviour.act(env.game, env.learner_seat)
            target = np.zeros_like(mask)
            target[best] = True
            observations.append(obs.astype(compact))
            masks.append(mask)
            targets.append(target)
            actions.append(label)
            if epsilon and rng.random() < epsilon:
                move = int(rng.choice(np.flatnonzero(mask)))
            obs, reward, done, _, _ = env.step(move)
            rewards.append(float(reward))
        running = 0.0
        tail: list[float] = []
        for reward in reversed(rewards):
            running = reward + gamma * running
            tail.append(running)
        returns.extend(reversed(tail))
        obs, _ = env.reset()
    return Demonstrations(
        observations=np.stack(observations),
        masks=np.stack(masks),
        targets=np.stack(targets),
        actions=np.asarray(actions, dtype=np.int64),
        returns=np.asarray(returns, dtype=np.float32),
        episodes=episodes,
        seconds=time.perf_counter() - start,
    )


def pretrain_policy(
    policy: Any,
    data: Demonstrations,
    *,
    epochs: int = 10,
    batch_size: int = 256,
    learning_rate: float = 1e-3,
    value_coef: float = 0.5,
    validation: float = 0.1,
    seed: int = 0,
) -> dict[str, Any]:
    """Fit ``policy`` (a MaskablePPO policy) to the demonstrations; return training stats.

    Loss: minus the log of the probability the masked policy gives to the expert's best
    actions, plus ``value_coef`` times the squared error of the value at the return.
    ``validation`` is the fraction of rows held out (the last ones, i.e. the last episodes) to
    report the *agreement* on unseen positions: how often the policy's most likely action is
    one of the expert's best.
    """
    import torch

    if len(data) < 2:
        raise ValueError(f"need at least 2 demonstration steps, got {len(data)}")
    n = len(data)
    n_val = int(n * validation) if 0 < validation < 1 else 0
    n_train = n - n_val
    gen = np.random.default_rng(seed)
    device = policy.device

    def batch(rows: np.ndarray) -> tuple[Any, ...]:
        obs = torch.as_tensor(data.observations[rows], dtype=torch.float32, device=device)
        masks = torch.as_tensor(data.masks[rows], device=device)
        best = torch.as_tensor(data.targets[rows], device=device)
        rets = torch.as_tensor(data.returns[rows], device=device)
        return obs, masks, best, rets

    def agreement(rows: np.ndarray) -> float:
        hits = 0
        with torch.no_grad():
            for i in range(0, len(rows), 1024):
                obs, masks, best, _ = batch(rows[i : i + 1024])
                dist = policy.get_distribution(obs, action_masks=masks)
                top = dist.distribution.logits.argmax(dim=1, keepdim=True)
                hits += int(best.gather(1, top).sum())
        return hits / max(1, len(rows))

    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    policy.set_training_mode(True)
    start = time.perf_counter()
    history = []
    for epoch in range(epochs):
        order = gen.permutation(n_train)
        total = policy_loss_sum = value_loss_sum = 0.0
        for i in range(0, n_train, batch_size):
            obs, masks, best, rets = batch(order[i : i + batch_size])
            logits, values = _logits_and_values(policy, obs)
            logits = logits.masked_fill(~masks, -1e8)
            best_mass = logits.masked_fill(~best, -1e8).logsumexp(dim=1)
            policy_loss = (logits.logsumexp(dim=1) - best_mass).mean()
            value_loss = torch.nn.functional.mse_loss(values, rets)
            loss = policy_loss + value_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            k = len(rets)
            total += k
            policy_loss_sum += policy_loss.item() * k
            value_loss_sum += value_loss.item() * k
        history.append(
            {
                "epoch": epoch + 1,
                "policy_loss": policy_loss_sum / total,
                "value_loss": value_loss_sum / total,
            }
        )
    policy.set_training_mode(False)
    val_rows = np.arange(n_train, n)
    train_rows = gen.choice(n_train, size=min(n_train, 5000), replace=False)
    return {
        "steps": n,
        "episodes": data.episodes,
        "collect_seconds": data.seconds,
        "fit_seconds": time.perf_counter() - start,
        "epochs": history,
        "train_agreement": agreement(train_rows),
        "validation_agreement": agreement(val_rows) if n_val else None,
    }


def _logits_and_values(policy: Any, obs: Any) -> tuple[Any, Any]:
    """Return the unmasked action logits and the values of an SB3 actor-critic policy."""
    features = policy.extract_features(obs)
    if policy.share_features_extractor:
        latent_pi, latent_vf = policy.mlp_extractor(features)
    else:
        latent_pi = policy.mlp_extractor.forward_actor(features[0])
        latent_vf = policy.mlp_extractor.forward_critic(features[1])
    return policy.action_net(latent_pi), policy.value_net(latent_vf).flatten()
