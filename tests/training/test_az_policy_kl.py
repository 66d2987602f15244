"""The trainer reports how far its policy is from the targets, not only their cross-entropy.

Issue 21 suspected that the policy loss misleads: the cross-entropy to the targets includes the
targets' own entropy, so it rises when the targets spread out (visit counts in place of one-hot
moves) even when the policy gets no worse. ``train_steps`` reports ``policy_kl`` beside it: the
cross-entropy minus that entropy, 0 for a policy equal to its targets.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tabletop_envs.training.az.buffer import ReplayBuffer  # noqa: E402
from tabletop_envs.training.az.model import (  # noqa: E402
    build_optimizer,
    build_torch_net,
    train_steps,
)

OBS, ACTIONS, ROWS = 6, 5, 8


def _buffer(pi: np.ndarray, mask: np.ndarray) -> ReplayBuffer:
    buffer = ReplayBuffer(ROWS, OBS, ACTIONS, np.int8)
    obs = np.random.default_rng(0).integers(0, 2, size=(ROWS, OBS)).astype(np.float32)
    buffer.add(obs, mask, pi, np.zeros(ROWS, dtype=np.float32))
    return buffer


def _uniform_policy_net():
    """A net whose policy is uniform over the legal actions, whatever the input."""
    torch.set_num_threads(1)
    net = build_torch_net(OBS, ACTIONS, [4], seed=0)
    with torch.no_grad():
        net["policy"].weight.zero_()
        net["policy"].bias.zero_()
    return net


def _losses(pi: np.ndarray, mask: np.ndarray) -> dict[str, float]:
    net = _uniform_policy_net()
    optimizer = build_optimizer(net, 0.0, 0.0)  # measure only: the weights stay as they are
    return train_steps(net, optimizer, _buffer(pi, mask), 3, ROWS, np.random.default_rng(1))


def test_a_policy_equal_to_spread_targets_has_zero_kl():
    mask = np.zeros((ROWS, ACTIONS), dtype=bool)
    mask[:, :4] = True  # four legal actions, the targets uniform over them
    pi = mask / 4.0
    losses = _losses(pi, mask)
    assert losses["policy_loss"] == pytest.approx(math.log(4), abs=1e-5)  # the targets' entropy
    assert losses["policy_kl"] == pytest.approx(0.0, abs=1e-5)


def test_kl_of_one_hot_targets_is_the_cross_entropy():
    mask = np.zeros((ROWS, ACTIONS), dtype=bool)
    mask[:, :4] = True
    pi = np.zeros((ROWS, ACTIONS))
    pi[:, 1] = 1.0  # 0 log 0 counts as 0: no entropy
    losses = _losses(pi, mask)
    assert losses["policy_kl"] == pytest.approx(losses["policy_loss"], abs=1e-6)
    assert losses["policy_kl"] == pytest.approx(math.log(4), abs=1e-5)
