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
- **Soft targets** (``collect_demonstrations(..., scores=True)``, then ``pretrain_policy(...,
  temperature=T)``): for an expert that rates every legal action
  (:meth:`~tabletop_envs.agents.Agent.action_scores`, e.g. ``greedy``), the policy is fitted
  to ``softmax(score / T)`` over the legal actions instead, so a position also teaches which
  moves are nearly as good and which are bad (distillation), not only which are best.

The demonstration arrays use the game's own integer dtype, so a few thousand Irk episodes fit
in a few hundred megabytes. Imports torch only inside :func:`pretrain_policy`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tabletop_envs.agents.base import Agent
from tabletop_envs.agents.greedy import top_actions
from tabletop_envs.agents.single_agent import SingleAgentEnv
from tabletop_envs.core.game import GameState


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
    # the expert's score of every legal action, row by row (``scores=True``): row ``i`` rated
    # ``score_actions[score_rows[i]:score_rows[i + 1]]`` with ``score_values[...]``
    score_rows: np.ndarray | None = None  # (N + 1,) int64 offsets
    score_actions: np.ndarray | None = None  # (M,) int32
    score_values: np.ndarray | None = None  # (M,) float32

    def __len__(self) -> int:
        return int(self.actions.shape[0])

    @property
    def has_scores(self) -> bool:
        """Whether the expert's scores of every legal action were recorded."""
        return self.score_rows is not None

    def __add__(self, other: Demonstrations) -> Demonstrations:
        """Return both sets of demonstrations in one (``other``'s rows last)."""
        if self.has_scores != other.has_scores:
            raise ValueError("cannot join demonstrations with and without the expert's scores")
        scored: dict[str, Any] = {}
        if self.has_scores:
            scored = {
                "score_rows": np.concatenate(
                    [self.score_rows, other.score_rows[1:] + self.score_rows[-1]]
                ),
                "score_actions": np.concatenate([self.score_actions, other.score_actions]),
                "score_values": np.concatenate([self.score_values, other.score_values]),
            }
        return Demonstrations(
            observations=np.concatenate([self.observations, other.observations]),
            masks=np.concatenate([self.masks, other.masks]),
            targets=np.concatenate([self.targets, other.targets]),
            actions=np.concatenate([self.actions, other.actions]),
            returns=np.concatenate([self.returns, other.returns]),
            episodes=self.episodes + other.episodes,
            seconds=self.seconds + other.seconds,
            **scored,
        )

    def soft_targets(self, rows: np.ndarray, num_actions: int, temperature: float) -> np.ndarray:
        """Return ``softmax(score / temperature)`` over each row's scored actions, dense."""
        if not self.has_scores:
            raise ValueError("these demonstrations hold no expert scores (record with scores=True)")
        out = np.zeros((len(rows), num_actions), dtype=np.float32)
        for i, row in enumerate(rows):
            part = slice(self.score_rows[row], self.score_rows[row + 1])
            z = self.score_values[part] / temperature
            p = np.exp(z - z.max())
            out[i, self.score_actions[part]] = p / p.sum()
        return out


def collect_demonstrations(
    env: SingleAgentEnv,
    expert: Agent,
    episodes: int,
    *,
    behaviour: Agent | None = None,
    epsilon: float = 0.0,
    gamma: float = 1.0,
    seed: int = 0,
    scores: bool = False,
) -> Demonstrations:
    """Play ``episodes`` games of ``env`` in the learner's seat; record the expert's choices.

    The moves played are the expert's own, or with ``behaviour`` that agent's (DAgger: the
    learner's current policy plays, so the data covers the positions *it* reaches, and the
    expert labels them). ``epsilon``: probability of playing a uniformly random legal action
    instead. The recorded labels are always the expert's best actions. ``scores``: also record
    the expert's score of every legal action (the expert must implement ``action_scores``),
    for soft targets.
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
    record = _Recording(compact, scores)
    obs, _ = env.reset(seed=int(rng.integers(2**31)))
    for _ in range(episodes):
        rewards: list[float] = []
        done = False
        while not done:
            mask = env.action_masks()
            best = record.best_actions(expert, env)
            label = best[int(rng.integers(len(best)))] if len(best) > 1 else best[0]
            move = label if behaviour is None else behaviour.act(env.game, env.learner_seat)
            record.add(obs, mask, best, label)
            if epsilon and rng.random() < epsilon:
                move = int(rng.choice(np.flatnonzero(mask)))
            obs, reward, done, _, _ = env.step(move)
            rewards.append(float(reward))
        record.returns.extend(discounted_returns(rewards, gamma))
        obs, _ = env.reset()
    return record.finish(episodes, time.perf_counter() - start)


def expert_view(
    expert: Agent, game: GameState, seat: int, *, scores: bool
) -> tuple[list[int], tuple[list[int], list[float]] | None]:
    """Return what ``expert`` says at ``game`` for ``seat``: its best actions, and its scores.

    The one way both collectors of heuristic games label a position: the PPO demonstrations
    (:func:`collect_demonstrations`) and the AlphaZero warm start
    (:func:`tabletop_envs.training.az.warm_start.expert_games`). With ``scores``, the expert's
    :meth:`~tabletop_envs.agents.Agent.action_scores` of every legal action come too and the
    best actions are those tied at the top; an expert that rates nothing gives its
    :meth:`~tabletop_envs.agents.Agent.best_actions` and None.
    """
    if scores:
        rated = expert.action_scores(game, seat)
        if rated is not None:
            return top_actions(*rated), rated
    return expert.best_actions(game, seat), None


def discounted_returns(rewards: list[float], gamma: float) -> list[float]:
    """Return, for each step of an episode, the discounted sum of its reward and those after."""
    running = 0.0
    tail: list[float] = []
    for reward in reversed(rewards):
        running = reward + gamma * running
        tail.append(running)
    return tail[::-1]


@dataclass
class _Recording:
    """The rows :func:`collect_demonstrations` records, as lists until :meth:`finish`."""

    compact: Any  # the observations' dtype
    scores: bool  # also record the expert's score of every legal action
    observations: list[np.ndarray] = field(default_factory=list)
    masks: list[np.ndarray] = field(default_factory=list)
    targets: list[np.ndarray] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    returns: list[float] = field(default_factory=list)
    score_rows: list[int] = field(default_factory=lambda: [0])
    score_actions: list[np.ndarray] = field(default_factory=list)
    score_values: list[np.ndarray] = field(default_factory=list)

    def best_actions(self, expert: Agent, env: SingleAgentEnv) -> Any:
        """Return the expert's best actions in the learner's seat (recording its scores)."""
        best, rated = expert_view(expert, env.game, env.learner_seat, scores=self.scores)
        if not self.scores:
            return best
        if rated is None:
            raise ValueError(
                f"expert {expert.name!r} rates no actions (no action_scores); record without scores"
            )
        self.score_actions.append(np.asarray(rated[0], dtype=np.int32))
        self.score_values.append(np.asarray(rated[1], dtype=np.float32))
        self.score_rows.append(self.score_rows[-1] + len(rated[0]))
        return best

    def add(self, obs: np.ndarray, mask: np.ndarray, best: Any, label: int) -> None:
        """Record one decision: the observation, the legal mask, the best actions, the label."""
        target = np.zeros_like(mask)
        target[best] = True
        self.observations.append(obs.astype(self.compact))
        self.masks.append(mask)
        self.targets.append(target)
        self.actions.append(label)

    def finish(self, episodes: int, seconds: float) -> Demonstrations:
        """Return the recorded rows as :class:`Demonstrations`."""
        scores = self.scores
        return Demonstrations(
            observations=np.stack(self.observations),
            masks=np.stack(self.masks),
            targets=np.stack(self.targets),
            actions=np.asarray(self.actions, dtype=np.int64),
            returns=np.asarray(self.returns, dtype=np.float32),
            episodes=episodes,
            seconds=seconds,
            score_rows=np.asarray(self.score_rows, dtype=np.int64) if scores else None,
            score_actions=np.concatenate(self.score_actions) if scores else None,
            score_values=np.concatenate(self.score_values) if scores else None,
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
    temperature: float | None = None,
) -> dict[str, Any]:
    """Fit ``policy`` (a MaskablePPO policy) to the demonstrations; return training stats.

    Loss: minus the log of the probability the masked policy gives to the expert's best
    actions, plus ``value_coef`` times the squared error of the value at the return. With a
    ``temperature`` (demonstrations recorded with ``scores=True``), the policy term is instead
    the cross-entropy of the policy to ``softmax(score / temperature)`` over the legal actions.
    ``validation`` is the fraction of rows held out (the last ones, i.e. the last episodes) to
    report the *agreement* on unseen positions: how often the policy's most likely action is
    one of the expert's best.
    """
    import torch

    if len(data) < 2:
        raise ValueError(f"need at least 2 demonstration steps, got {len(data)}")
    if temperature is not None:
        if not temperature > 0:
            raise ValueError(f"temperature must be positive, got {temperature}")
        if not data.has_scores:
            raise ValueError("a temperature needs demonstrations recorded with scores=True")
    n = len(data)
    n_val = int(n * validation) if 0 < validation < 1 else 0
    n_train = n - n_val
    gen = np.random.default_rng(seed)
    fit = _Fit(policy, data, temperature, value_coef)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    policy.set_training_mode(True)
    start = time.perf_counter()
    history = []
    for epoch in range(epochs):
        history.append(fit.epoch(epoch, gen.permutation(n_train), batch_size, optimizer))
    policy.set_training_mode(False)
    val_rows = np.arange(n_train, n)
    train_rows = gen.choice(n_train, size=min(n_train, 5000), replace=False)
    return {
        "steps": n,
        "episodes": data.episodes,
        "collect_seconds": data.seconds,
        "fit_seconds": time.perf_counter() - start,
        "temperature": temperature,
        "epochs": history,
        "train_agreement": fit.agreement(train_rows),
        "validation_agreement": fit.agreement(val_rows) if n_val else None,
    }


@dataclass
class _Fit:
    """One fitting of a policy to demonstrations: batches, the loss, an epoch, the agreement."""

    policy: Any
    data: Demonstrations
    temperature: float | None
    value_coef: float

    def batch(self, rows: np.ndarray) -> tuple[Any, ...]:
        """Return the rows' observations, masks, best actions and returns as tensors."""
        import torch

        data, device = self.data, self.policy.device
        obs = torch.as_tensor(data.observations[rows], dtype=torch.float32, device=device)
        masks = torch.as_tensor(data.masks[rows], device=device)
        best = torch.as_tensor(data.targets[rows], device=device)
        rets = torch.as_tensor(data.returns[rows], device=device)
        return obs, masks, best, rets

    def losses(self, rows: np.ndarray) -> tuple[Any, Any]:
        """Return the policy loss and the value loss of a minibatch."""
        import torch

        obs, masks, best, rets = self.batch(rows)
        logits, values = _logits_and_values(self.policy, obs)
        logits = logits.masked_fill(~masks, -1e8)
        if self.temperature is None:
            best_mass = logits.masked_fill(~best, -1e8).logsumexp(dim=1)
            policy_loss = (logits.logsumexp(dim=1) - best_mass).mean()
        else:
            soft = self.data.soft_targets(rows, self.data.masks.shape[1], self.temperature)
            log_probs = logits - logits.logsumexp(dim=1, keepdim=True)
            target = torch.as_tensor(soft, device=self.policy.device)
            policy_loss = -(target * log_probs).sum(dim=1).mean()
        return policy_loss, torch.nn.functional.mse_loss(values, rets)

    def epoch(
        self, epoch: int, order: np.ndarray, batch_size: int, optimizer: Any
    ) -> dict[str, Any]:
        """Take one optimizer step per minibatch of ``order``; return the epoch's mean losses."""
        import torch

        total = policy_loss_sum = value_loss_sum = 0.0
        for i in range(0, len(order), batch_size):
            rows = order[i : i + batch_size]
            policy_loss, value_loss = self.losses(rows)
            loss = policy_loss + self.value_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.policy.parameters(), 0.5)
            optimizer.step()
            k = len(rows)
            total += k
            policy_loss_sum += policy_loss.item() * k
            value_loss_sum += value_loss.item() * k
        return {
            "epoch": epoch + 1,
            "policy_loss": policy_loss_sum / total,
            "value_loss": value_loss_sum / total,
        }

    def agreement(self, rows: np.ndarray) -> float:
        """Return how often the policy's most likely action is one of the expert's best."""
        import torch

        hits = 0
        with torch.no_grad():
            for i in range(0, len(rows), 1024):
                obs, masks, best, _ = self.batch(rows[i : i + 1024])
                dist = self.policy.get_distribution(obs, action_masks=masks)
                top = dist.distribution.logits.argmax(dim=1, keepdim=True)
                hits += int(best.gather(1, top).sum())
        return hits / max(1, len(rows))


def _logits_and_values(policy: Any, obs: Any) -> tuple[Any, Any]:
    """Return the unmasked action logits and the values of an SB3 actor-critic policy."""
    features = policy.extract_features(obs)
    if policy.share_features_extractor:
        latent_pi, latent_vf = policy.mlp_extractor(features)
    else:
        latent_pi = policy.mlp_extractor.forward_actor(features[0])
        latent_vf = policy.mlp_extractor.forward_critic(features[1])
    return policy.action_net(latent_pi), policy.value_net(latent_vf).flatten()
