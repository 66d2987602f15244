"""The AlphaZero trainer's optimizer keeps what it learnt about inputs a minibatch lacks.

Issue 21 suspected that weight decay as an L2 term inside Adam hurt Irk, whose inputs are
mostly zero: Adam normalizes each step, so a weight whose input is absent sees only the L2
gradient and still moves by about the learning rate towards 0 at every step. These tests
failed with ``torch.optim.Adam(..., weight_decay=...)``.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from tabletop_envs.training.az.model import build_optimizer, build_torch_net, torch_forward  # noqa: E402


def _train(steps: int, learning_rate: float, weight_decay: float) -> tuple[float, float]:
    """Mean |weight| of the unused inputs' first-layer columns before and after training."""
    torch.set_num_threads(1)
    net = build_torch_net(20, 5, [8], seed=0)
    optimizer = build_optimizer(net, learning_rate, weight_decay)
    before = net["trunk"][0].weight.detach()[:, 10:].abs().mean().item()
    gen = torch.Generator().manual_seed(0)
    for _ in range(steps):
        obs = torch.rand(64, 20, generator=gen)
        obs[:, 10:] = 0.0  # inputs 10-19 never occur
        logits, values = torch_forward(net, obs)
        loss = logits.pow(2).mean() + (values - 0.5).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    after = net["trunk"][0].weight.detach()[:, 10:].abs().mean().item()
    return before, after


def test_unused_inputs_keep_their_weights() -> None:
    # Adam + L2: 0.117 -> 0.069 after 200 steps at lr 3e-4 (a step of ~lr each time)
    before, after = _train(200, 3e-4, 1e-4)
    assert after == pytest.approx(before * (1 - 3e-4 * 1e-4) ** 200, rel=1e-4)


def test_weight_decay_is_decoupled() -> None:
    # the decay is lr * weight_decay * w per step, whatever the gradient's scale
    before, after = _train(50, 1e-2, 0.5)
    assert after == pytest.approx(before * (1 - 1e-2 * 0.5) ** 50, rel=1e-3)
