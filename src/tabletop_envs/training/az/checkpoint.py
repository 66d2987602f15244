"""Checkpoints of a run: ``checkpoint.pt`` (weights, Adam state, counters) and ``buffer.npz``.

Resuming restores the network, the optimizer's moments, the counters and the replay buffer,
so an interrupted run continues exactly as an uninterrupted one would have.
"""

from __future__ import annotations

import json
import os
import zipfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_envs.core.config import cut, quote
from tabletop_envs.training.az.buffer import ReplayBuffer
from tabletop_envs.training.az.config import AZConfig, new_names

#: ``format`` and ``version`` of ``checkpoint.pt``.
CHECKPOINT_FORMAT = "tabletop_envs-az-checkpoint"
CHECKPOINT_VERSION = 1
#: Config fields a resumed run must share with its checkpoint (the network and its game).
RESUME_FIXED = (
    "env",
    "env_kwargs",
    "hidden",
    "arch",
    "conv_channels",
    "conv_blocks",
    "conv_head_channels",
)


@dataclass
class RunState:
    """The counters of a run that a checkpoint carries on."""

    iteration: int = 0
    positions: int = 0
    games: int = 0
    train_steps: int = 0
    selfplay_seconds: float = 0.0
    selfplay_cpu_seconds: float = 0.0
    train_seconds: float = 0.0
    eval_seconds: float = 0.0
    warm_start: dict[str, Any] = field(default_factory=dict)  # what the warm start did
    best: dict[str, Any] = field(default_factory=dict)  # keep_best: iteration, score of best.npz
    iterations: list[dict[str, Any]] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)


def save_checkpoint(out: Path, net: Any, optimizer: Any, config: AZConfig, run: RunState) -> None:
    """Write ``checkpoint.pt`` (and ``buffer.npz`` is written by the caller), atomically."""
    import torch

    data = {
        "format": CHECKPOINT_FORMAT,
        "version": CHECKPOINT_VERSION,
        "config": config.to_dict(),
        "model": net.state_dict(),
        "optimizer": optimizer.state_dict(),
        "run": _jsonable(asdict(run)),
    }
    partial = out / "checkpoint.pt.partial"
    torch.save(data, partial)
    os.replace(partial, out / "checkpoint.pt")


def save_buffer(out: Path, buffer: ReplayBuffer) -> None:
    """Write the replay buffer to ``buffer.npz`` (replaced atomically)."""
    partial = out / "buffer.npz.partial"
    with open(partial, "wb") as file:
        np.savez(file, **buffer.state())
    os.replace(partial, out / "buffer.npz")


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """Read a ``checkpoint.pt`` (or the run directory holding one); ValueError if it is not one.

    Read with ``weights_only=True``: tensors and plain data only, no pickled code.
    """
    import torch

    path = Path(path).expanduser()
    if path.is_dir():
        path = path / "checkpoint.pt"
    if not path.is_file():
        raise ValueError(
            f"no checkpoint at {quote(str(path))} (resume takes a run directory or checkpoint.pt)"
        )
    if not zipfile.is_zipfile(path):  # torch writes a zip archive; its own error is a page long
        raise ValueError(
            f"{quote(str(path))} is not a checkpoint.pt written by this trainer (not a zip archive)"
        )
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # torch raises many kinds on a file that is not its own
        first = str(err).strip().split(". ")[0]
        raise ValueError(
            f"{quote(str(path))} is not a checkpoint.pt written by this trainer (torch cannot "
            f"read it: {cut(first, 200)})"
        ) from None
    if (
        not isinstance(data, dict)
        or data.get("format") != CHECKPOINT_FORMAT
        or data.get("version") != CHECKPOINT_VERSION
    ):
        raise ValueError(
            f"{path} is not a {CHECKPOINT_FORMAT} version {CHECKPOINT_VERSION} checkpoint"
        )
    missing = [k for k in ("config", "model", "optimizer", "run") if k not in data]
    if missing:
        raise ValueError(f"{path} misses {', '.join(missing)}")
    data["path"] = path
    return data


def resume(
    config: AZConfig, net: Any, optimizer: Any, buffer: ReplayBuffer, say: Callable[[str], None]
) -> RunState:
    """Load ``config.resume``'s checkpoint into ``net``, ``optimizer`` and ``buffer``.

    The optimizer keeps the saved moments with this run's learning rate and weight decay.
    Returns the run's counters; ValueError if the checkpoint is not one or does not fit.
    """
    if not config.resume:
        raise ValueError("resume needs config.resume, a run directory or checkpoint.pt")
    saved = load_checkpoint(config.resume)
    _check_resume(config, saved)
    net.load_state_dict(saved["model"])
    optimizer.load_state_dict(saved["optimizer"])
    for group in optimizer.param_groups:  # this run's settings, the saved moments
        group["lr"] = config.learning_rate
        group["weight_decay"] = config.weight_decay
    try:
        run = RunState(**saved["run"])
    except TypeError as err:
        raise ValueError(f"{saved['path']}: malformed run counters ({err})") from None
    for point in run.history:  # evaluations saved before the rename say rollout_weight ...
        point["vs"] = {opp: new_names(result) for opp, result in point.get("vs", {}).items()}
    buffer_file = saved["path"].parent / "buffer.npz"
    if buffer_file.is_file():
        with np.load(buffer_file, allow_pickle=False) as data:
            buffer.load_state(data)
    say(
        f"resumed {saved['path']} at iteration {run.iteration} ({run.positions} positions; "
        f"buffer {len(buffer)} positions{'' if buffer_file.is_file() else ', none saved'})"
    )
    return run


def _check_resume(config: AZConfig, saved: dict[str, Any]) -> None:
    """Raise ValueError if ``config`` changes what the checkpoint's network was made for."""
    theirs = saved["config"]
    ours = config.to_dict()
    for key in RESUME_FIXED:
        if key.startswith("conv_") and ours["arch"] == "mlp":
            continue  # an MLP has no conv trunk (and arch, checked before, is the same)
        # a checkpoint older than a setting holds its default (the arch settings: an MLP)
        default = AZConfig.__dataclass_fields__[key].default
        if ours[key] != theirs.get(key, default):
            raise ValueError(
                f"cannot resume {saved['path']}: this run's {key} is {ours[key]!r}, the "
                f"checkpoint's {theirs.get(key, default)!r} (the network and its game stay fixed)"
            )


def _jsonable(value: Any) -> Any:
    """Return ``value`` as JSON would give it back (tuples as lists, other objects as text)."""
    return json.loads(json.dumps(value, default=str))
