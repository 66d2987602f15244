"""The torch twin of :class:`~tabletop_envs.agents.az.PolicyValueNet`: build, learn, export.

The twin has the numpy network's MLP (``trunk`` / ``policy`` / ``value``), after a conv trunk
(``conv``, :mod:`tabletop_envs.training.az.torch_conv`) for ``arch "conv"``; :func:`to_numpy_net`
and :func:`export_npz` turn its weights into that class's ``.npz`` format, which ``AZAgent``
plays with numpy only. torch is imported inside the functions, so importing this module does
not need it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_envs.core.game import GameState
from tabletop_envs.search.network import FORMAT, PolicyValueNet, game_meta
from tabletop_envs.search.network_layout import ARCH_VERSIONS, dense_input
from tabletop_envs.training.az.buffer import ReplayBuffer


def build_torch_net(
    obs_dim: int,
    num_actions: int,
    hidden: Sequence[int],
    seed: int = 0,
    conv: Mapping[str, Any] | None = None,
) -> Any:
    """Return the torch twin of a :class:`PolicyValueNet`: ``trunk`` / ``policy`` / ``value``.

    A ``torch.nn.ModuleDict``: ``trunk`` is Linear+ReLU per hidden layer, ``policy`` and
    ``value`` are Linear layers over the last hidden layer (see :func:`torch_forward`). With
    ``conv`` (a conv network's meta entry, :func:`~tabletop_envs.search.network.conv_meta`) a
    ``conv`` trunk over the board planes comes first and ``trunk`` reads its output. Weights
    start from torch's default initialization under ``torch.manual_seed(seed)``.
    """
    import torch
    from torch import nn

    torch.manual_seed(seed)
    modules: dict[str, Any] = {}
    width = int(obs_dim)
    if conv is not None:
        from tabletop_envs.training.az.torch_conv import TorchConvTrunk

        modules["conv"] = TorchConvTrunk(conv)
        width = dense_input({"obs_dim": int(obs_dim), "arch": "conv", "conv": conv})
    layers: list[Any] = []
    sizes = [width, *(int(h) for h in hidden)]
    for i in range(len(hidden)):
        layers += [nn.Linear(sizes[i], sizes[i + 1]), nn.ReLU()]
    modules["trunk"] = nn.Sequential(*layers)
    modules["policy"] = nn.Linear(sizes[-1], int(num_actions))
    modules["value"] = nn.Linear(sizes[-1], 1)
    return nn.ModuleDict(modules)


def build_optimizer(net: Any, learning_rate: float, weight_decay: float) -> Any:
    """Return the AdamW optimizer of ``net``: ``weight_decay`` is decoupled from the gradient.

    Not Adam with an L2 term: Adam normalizes each parameter's step, so for a weight whose
    input is absent from a minibatch the L2 gradient alone makes a full step of about the
    learning rate towards 0. Irk's 10,726 inputs are mostly zero, and what the warm start
    learnt about rare features was erased within a few dozen steps of not seeing them (issue
    21; ``tests/training/test_az_optimizer.py``). AdamW shrinks every weight by
    ``learning_rate * weight_decay`` of itself per step, seen or not.
    """
    import torch

    return torch.optim.AdamW(net.parameters(), lr=learning_rate, weight_decay=weight_decay)


def set_learning_rate(optimizer: Any, learning_rate: float) -> None:
    """Set the learning rate of every parameter group of ``optimizer``."""
    for group in optimizer.param_groups:
        group["lr"] = learning_rate


def torch_forward(net: Any, obs: Any) -> tuple[Any, Any]:
    """Return ``(logits (B, A), values (B,))`` of the torch net for ``obs`` (B, D) float32."""
    x = _features(net, obs)
    return net["policy"](x), _value(net, x)


def _features(net: Any, obs: Any) -> Any:
    """Return what the heads read: the trunk's output (after the conv trunk, if any)."""
    return net["trunk"](net["conv"](obs) if "conv" in net else obs)


def _value(net: Any, x: Any) -> Any:
    """Return the value head's output for the features ``x``: (B,) in [-1, 1]."""
    import torch

    return torch.tanh(net["value"](x)).squeeze(-1)


def masked_priors(logits: Any, mask: Any) -> Any:
    """Return the softmax of ``logits`` over each row's legal ``mask`` (zero elsewhere)."""
    import torch

    masked = logits.masked_fill(~mask, -math.inf)
    return torch.nan_to_num(torch.softmax(masked, dim=-1), nan=0.0)


#: Inputs (actions) above which :func:`torch_evaluator`'s first layer (policy head) may read
#: only each row's nonzero inputs (the actions legal in some row): with fewer the dense product
#: costs less than gathering the weights (measured on Iris and Isis & Osiris).
SPARSE_INPUTS = 2048
SPARSE_ACTIONS = 1024


def torch_evaluator(net: Any) -> Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Return ``evaluate(obs, mask) -> (priors, values)`` of the torch net, for ``run_puct``.

    The same function as :func:`torch_forward` then :func:`masked_priors`. With many inputs or
    actions it skips what is zero, as the numpy :class:`PolicyValueNet` does: the first layer
    reads only each row's nonzero inputs, the policy head only the actions legal in some row.
    Irk's observation has 10,726 entries of which about a hundred are nonzero, and a few
    hundred of its 3,874 actions are legal at once: the dense products were half of a
    self-play step (issue 22).
    """
    import torch
    from torch import nn

    first = None if "conv" in net else next(iter(net["trunk"]), None)
    sparse_in = isinstance(first, nn.Linear) and first.in_features > SPARSE_INPUTS
    sparse_out = net["policy"].out_features > SPARSE_ACTIONS
    cache: dict[str, Any] = {}  # the first layer's weight, transposed

    def evaluate(obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with torch.inference_mode():
            if not (sparse_in or sparse_out):
                logits, values = torch_forward(net, torch.from_numpy(obs))
                return masked_priors(logits, torch.from_numpy(mask)).numpy(), values.numpy()
            x = _trunk(net, obs, cache) if sparse_in else _features(net, torch.from_numpy(obs))
            values = _value(net, x)
            priors = _legal_priors(net["policy"], x, np.asarray(mask, dtype=bool))
        return priors, values.numpy()

    return evaluate


def _trunk(net: Any, obs: np.ndarray, cache: dict[str, Any]) -> Any:
    """Return the MLP trunk's output, its first Linear layer summing, per row, the weight
    columns of that row's nonzero inputs times their values (when under a third of the
    inputs are nonzero): ``embedding_bag`` over the transposed weight.

    ``cache`` keeps the transposed copy while the weight's version (bumped by every in-place
    change, an optimizer step included) stays the same.
    """
    import torch

    layers = list(net["trunk"])
    nonzero = np.flatnonzero(obs != 0)  # on a bool array: several times faster
    if 3 * len(nonzero) < obs.size:
        first = layers.pop(0)
        weight = first.weight
        key = (weight.data_ptr(), weight._version)
        if cache.get("key") != key:
            cache["key"], cache["t"] = key, weight.detach().t().contiguous()
        rows, cols = np.divmod(nonzero, obs.shape[1])
        starts = np.searchsorted(rows, np.arange(len(obs)))  # each row's first entry
        x = torch.nn.functional.embedding_bag(
            torch.from_numpy(cols),
            cache["t"],
            torch.from_numpy(starts),
            mode="sum",
            per_sample_weights=torch.from_numpy(obs.ravel()[nonzero]),
        )
        x += first.bias
    else:
        x = torch.from_numpy(obs)
    for layer in layers:  # the functions themselves: a module call costs ~10 us a batch
        if type(layer) is torch.nn.Linear:
            x = torch.nn.functional.linear(x, layer.weight, layer.bias)
        elif type(layer) is torch.nn.ReLU:
            x = torch.relu(x)
        else:
            x = layer(x)
    return x


def _legal_priors(policy: Any, x: Any, legal: np.ndarray) -> np.ndarray:
    """Return :func:`masked_priors` of ``policy(x)`` (float64, as the search reads them),
    computing only the logits of the actions legal in some row (when they are under a third
    of them)."""
    import torch

    cols = np.flatnonzero(legal.any(axis=0))
    if 3 * len(cols) >= legal.shape[1]:
        return masked_priors(policy(x), torch.from_numpy(legal)).numpy().astype(np.float64)
    priors = np.zeros(legal.shape)  # scattered into by numpy: 3x faster than torch's index_put
    if len(cols):
        pick = torch.from_numpy(cols)
        weight = torch.index_select(policy.weight, 0, pick)  # ~4x faster than weight[pick]
        logits = torch.nn.functional.linear(x, weight, torch.index_select(policy.bias, 0, pick))
        priors[:, cols] = masked_priors(logits, torch.from_numpy(legal[:, cols])).numpy()
    return priors


def train_steps(
    net: Any,
    optimizer: Any,
    buffer: ReplayBuffer,
    steps: int,
    batch_size: int,
    rng: np.random.Generator,
) -> dict[str, float]:
    """Run ``steps`` Adam steps on minibatches drawn uniformly from ``buffer``; return mean losses.

    The loss is the cross-entropy of the masked policy to the visit distribution pi plus the
    squared error of the value to z (the optimizer's weight decay adds the L2 term).
    ``policy_kl`` is the cross-entropy minus the targets' own entropy: the KL divergence from
    the targets to the policy, 0 for a policy equal to them. The cross-entropy alone also
    rises when the targets spread out (visit counts in place of one-hot moves) without the
    policy getting worse (issue 21).
    """
    import torch

    totals = {"loss": 0.0, "policy_loss": 0.0, "policy_kl": 0.0, "value_loss": 0.0}
    net.train()
    for _ in range(steps):
        index = rng.integers(len(buffer), size=min(batch_size, len(buffer)))
        obs, mask, pi, z = (torch.from_numpy(a) for a in buffer.rows(index))
        logits, values = torch_forward(net, obs)
        logp = torch.log_softmax(logits.masked_fill(~mask, torch.finfo(logits.dtype).min), -1)
        policy_loss = -(pi * logp).sum(dim=1).mean()
        value_loss = torch.mean((values - z) ** 2)
        loss = policy_loss + value_loss
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        cross_entropy = policy_loss.item()
        entropy = -torch.special.xlogy(pi, pi).sum(dim=1).mean().item()  # 0 log 0 = 0
        totals["loss"] += loss.item()
        totals["policy_loss"] += cross_entropy
        totals["policy_kl"] += cross_entropy - entropy
        totals["value_loss"] += value_loss.item()
    net.eval()
    return {k: v / steps for k, v in totals.items()} if steps else totals


# ---- export ---------------------------------------------------------------------------------
def _linear_layers(net: Any) -> list[Any]:
    from torch import nn

    return [m for m in net["trunk"] if isinstance(m, nn.Linear)]


def to_numpy_net(net: Any, game: GameState, **extra_meta: Any) -> PolicyValueNet:
    """Return the torch net's weights as a :class:`PolicyValueNet` for ``game``'s parameters.

    ``extra_meta`` adds keys to the file's meta (e.g. ``env="iris_v0"``). Raises ValueError
    if the net's sizes do not fit the game.
    """
    arrays: dict[str, np.ndarray] = {}

    def put(prefix: str, layer: Any) -> None:
        arrays[f"{prefix}_w"] = layer.weight.detach().cpu().numpy().T.astype(np.float32).copy()
        arrays[f"{prefix}_b"] = layer.bias.detach().cpu().numpy().astype(np.float32).copy()

    trunk = _linear_layers(net)
    for i, layer in enumerate(trunk):
        put(f"trunk_{i}", layer)
    put("policy", net["policy"])
    put("value", net["value"])
    arch: dict[str, Any] = {}
    if "conv" in net:
        arrays.update(net["conv"].numpy_arrays())
        arch = {"arch": "conv", "conv": dict(net["conv"].conv)}
    meta = {
        "format": FORMAT,
        "version": ARCH_VERSIONS[arch.get("arch", "mlp")],
        **game_meta(game),
        "hidden": [int(layer.out_features) for layer in trunk],
        **arch,
        **extra_meta,
    }
    return PolicyValueNet(meta, arrays)


def export_npz(
    net: Any, path: str | Path, game: GameState, dtype: str = "float32", **extra_meta: Any
) -> PolicyValueNet:
    """Write the torch net as a network file ``path`` (replaced atomically); return it.

    The file is :class:`PolicyValueNet`'s format, for ``game``'s parameters; ``AZAgent`` plays
    with it (``PolicyValueNet.load(path)``). ``dtype="float16"`` stores half-size weights.
    """
    numpy_net = to_numpy_net(net, game, **extra_meta)
    path = Path(path)
    partial = path.with_name(path.name + ".partial")
    numpy_net.save(partial, dtype=dtype)
    os.replace(partial, path)
    return numpy_net
