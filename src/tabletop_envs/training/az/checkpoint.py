"""Checkpoints of a run: ``checkpoint.pt`` (weights, Adam state, counters) and ``buffer.npz``.

Resuming restores the network, the optimizer's moments, the counters and the replay buffer,
so an interrupted run continues exactly as an uninterrupted one would have.
"""

from __future__ import annotations

import json
import math
import os
import zipfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_envs.core.config import cut, quote, quote_path
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
            f"no checkpoint at {quote_path(path)} (resume takes a run directory or checkpoint.pt)"
        )
    if not zipfile.is_zipfile(path):  # torch writes a zip archive; its own error is a page long
        raise ValueError(
            f"{quote_path(path)} is not a checkpoint.pt written by this trainer (not a zip archive)"
        )
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # torch raises many kinds on a file that is not its own
        first = str(err).strip().split(". ")[0]
        raise ValueError(
            f"{quote_path(path)} is not a checkpoint.pt written by this trainer (torch cannot "
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
    for key in ("config", "model", "optimizer", "run"):
        if not isinstance(data[key], dict):
            raise ValueError(
                f"{path}: {key} must be a mapping, as the trainer saves it, got "
                f"{type(data[key]).__name__}"
            )
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
    run = _run_state(saved["run"], saved["path"])
    try:  # a checkpoint's own config may not match the weights it holds
        net.load_state_dict(saved["model"])
        optimizer.load_state_dict(saved["optimizer"])
    except (RuntimeError, KeyError, IndexError, TypeError, ValueError) as err:
        words = " ".join(line.strip() for line in str(err).splitlines())
        raise ValueError(
            f"cannot resume {saved['path']}: its weights or optimizer state do not fit the "
            f"network of its config ({type(err).__name__}: {cut(words, 200)})"
        ) from None
    for group in optimizer.param_groups:  # this run's settings, the saved moments
        group["lr"] = config.learning_rate
        group["weight_decay"] = config.weight_decay
    buffer_file = saved["path"].parent / "buffer.npz"
    if buffer_file.is_file():
        try:
            with np.load(buffer_file, allow_pickle=False) as data:
                buffer.load_state(data)
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as err:
            raise ValueError(
                f"cannot resume from {buffer_file}: not a replay buffer saved by this trainer "
                f"({cut(str(err), 200)})"
            ) from None
    say(
        f"resumed {saved['path']} at iteration {run.iteration} ({run.positions} positions; "
        f"buffer {len(buffer)} positions{'' if buffer_file.is_file() else ', none saved'})"
    )
    return run


def _run_state(data: dict[str, Any], path: Path) -> RunState:
    """Return the run counters saved in a checkpoint; ValueError naming the first bad one."""
    try:
        run = RunState(**data)
    except TypeError as err:
        raise ValueError(f"{path}: malformed run counters ({err})") from None
    problems = _run_problems(run)
    if problems:
        raise ValueError(f"{path}: malformed run counters: {problems[0]}")
    for point in run.history:  # evaluations saved before the rename say rollout_weight ...
        point["vs"] = {opp: new_names(result) for opp, result in point.get("vs", {}).items()}
    return run


def _run_problems(run: RunState) -> list[str]:
    """Return what is wrong with counters read from a file (what the run goes on to read)."""
    saved: dict[str, Any] = vars(run)  # as read: any types
    problems = [
        f"{name} must be {'an integer' if name in _COUNTS else 'a number'} >= 0, got {quote(value)}"
        for name, value in saved.items()
        if name not in ("warm_start", "best", "iterations", "history")
        and not (_is_number(value) and value >= 0 and (name not in _COUNTS or type(value) is int))
    ]
    if not isinstance(saved["warm_start"], dict) or not isinstance(saved["iterations"], list):
        problems.append("warm_start must be a mapping and iterations a list")
    best = saved["best"]
    if best and not (
        isinstance(best, dict)
        and type(best.get("iteration")) is int
        and _is_number(best.get("score"))
    ):
        problems.append(f"best must be empty or hold an iteration and a score, got {quote(best)}")
    history = saved["history"]
    if not isinstance(history, list) or not all(_is_point(p) for p in history):
        problems.append(
            "history must be a list of evaluations (iteration, and per opponent a win_rate and "
            "its ci95)"
        )
    return problems


#: The counters of :class:`RunState` that are integers (the others are seconds).
_COUNTS = ("iteration", "positions", "games", "train_steps")


def _is_number(value: Any) -> bool:
    """Return whether ``value`` is a finite int or float (not a bool)."""
    return type(value) in (int, float) and math.isfinite(value)


def _is_point(point: Any) -> bool:
    """Return whether ``point`` is an evaluation of the history as :func:`plot_az` reads it."""
    if not isinstance(point, dict) or type(point.get("iteration")) is not int:
        return False
    results = point.get("vs", {})
    return isinstance(results, dict) and all(
        isinstance(r, dict)
        and _is_number(r.get("win_rate"))
        and isinstance(r.get("ci95"), list)
        and len(r["ci95"]) == 2
        and all(_is_number(x) for x in r["ci95"])
        for r in results.values()
    )


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
